/// A growable buffer of trivial elements that keeps its storage from one use to the next, for
/// scratch that a loop fills and empties on every turn (fencerule's candidates of a fix):
/// emptying it is one store, where an array's `removeAll(keepingCapacity:)` is a generic call
/// through `replaceSubrange` (about 70 instructions a fix), and an append checks neither
/// uniqueness nor exclusivity.
///
/// A class, so that whoever holds it shares one buffer with every copy of itself: the owner must
/// use it from one place at a time (fencerule's engine processes one fix at a time).
final class ScratchBuffer<Element: BitwiseCopyable> {
    // Unchecked: only this class's methods touch them, never re-entrantly; the run-time
    // exclusivity check on each access cost more than the access.
    // SAFETY: `base` holds `capacity` elements, allocated in `init` or `grow` and freed in
    // `grow` or `deinit`; the first `count` are initialized (elements are trivial, so neither
    // deinitializing nor moving them needs more than a copy of their bytes).
    @exclusivity(unchecked) private(set) var base: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int

    init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
        base = System.allocateLarge(Element.self, capacity: self.capacity)
    }

    deinit {
        // SAFETY: the storage `init` or `grow` allocated; trivial elements.
        System.deallocateLarge(base, capacity: capacity)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow() }
        // SAFETY: count < capacity after `grow`.
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(__always)
    func removeAll() { count = 0 }

    /// The i-th element, i < count.
    @inline(__always)
    subscript(i: Int) -> Element {
        get {
            assert(i >= 0 && i < count, "ScratchBuffer index out of range")
            // SAFETY: i < count, checked in debug builds; callers index below `count` only.
            return base[i]
        }
        set {
            assert(i >= 0 && i < count, "ScratchBuffer index out of range")
            // SAFETY: as above.
            base[i] = newValue
        }
    }

    /// The elements, valid until the next `append` or until the buffer is freed.
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    @inline(never)
    private func grow() {
        // SAFETY: the `count` initialized elements moved to storage of twice the capacity; the
        // old storage freed once, by `reallocateLarge`, and not used after.
        base = System.reallocateLarge(base, used: count, from: capacity, capacity: 2 * capacity)
        capacity *= 2
    }
}
