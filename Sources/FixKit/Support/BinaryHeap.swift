/// An element of a `BinaryHeap`: the order it is kept in.
protocol HeapOrdered {
    /// Whether `a` comes out of the heap before `b`: a strict weak order (never `a` before
    /// itself). Elements neither before the other come out in no stated order.
    static func before(_ a: Self, _ b: Self) -> Bool
}

/// A binary min-heap: the element first in `Element.before` order on top. Used by visits'
/// running medians (`RunningMedian`, values with weights) and fencerule's nearest fences
/// (`NearestHeap`, blocks and fences by bound).
///
/// The order is a static requirement rather than a stored closure, so that each use (in this
/// module, built whole) is specialised for its element and `before` is inlined into the sift
/// loops. Both sifts move a hole rather than swap: one copy of an element per level.
struct BinaryHeap<Element: HeapOrdered> {
    /// The elements in heap order. Moved out and back whole (visits parks a stay's heaps in a
    /// file, `RunningMedian.park`); anything else goes through `push` and `pop`.
    var items: [Element] = []

    init() {}

    /// The first element, nil when the heap is empty.
    var top: Element? { items.first }

    var count: Int { items.count }

    var isEmpty: Bool { items.isEmpty }

    /// Whether no other element ties with the top: both of the root's children come after it
    /// (then no element below them can tie with it either).
    var topIsUnique: Bool {
        guard let root = items.first else { return true }
        return (items.count < 2 || Element.before(root, items[1]))
            && (items.count < 3 || Element.before(root, items[2]))
    }

    /// Adds `element`. O(log n), and O(1) on average for elements in random order.
    mutating func push(_ element: Element) {
        items.append(element)
        // SAFETY: the items' own storage, lent for the closure; every index is below the count.
        items.withUnsafeMutableBufferPointer { h in BinaryHeap.siftUp(element, from: h.count - 1, in: h) }
    }

    /// Puts `element` in the hole at `i`, or above it: each parent it comes before moves down.
    // SAFETY: `h` is the items' storage, lent by the caller; i < h.count, and parents are below i.
    @inline(__always)
    static func siftUp(_ element: Element, from i: Int, in h: UnsafeMutableBufferPointer<Element>) {
        var i = i
        while i > 0 {
            let parent = (i - 1) / 2
            guard Element.before(element, h[parent]) else { break }
            h[i] = h[parent]
            i = parent
        }
        h[i] = element
    }

    /// Takes the top off and returns it; nil when the heap is empty. O(log n).
    ///
    /// Bottom-up (Floyd): the hole the top leaves goes down to a leaf along the earlier child
    /// at each level, and the last element then rises from there, as a rule a level or two,
    /// since it came from the bottom. One comparison a level instead of two, and the choice of
    /// child is arithmetic, not a branch the processor must guess (visits' medians pop from
    /// heaps of thousands of coordinates, whose order is noise).
    @discardableResult
    mutating func pop() -> Element? {
        guard let last = items.popLast() else { return nil }
        guard let top = items.first else { return last }
        // SAFETY: the items' own storage, lent for the closure; every index is below n, the count.
        items.withUnsafeMutableBufferPointer { h in
            let n = h.count
            var i = 0
            var right = 2
            while right < n {
                let child = right - 1 + (Element.before(h[right], h[right - 1]) ? 1 : 0)
                h[i] = h[child]
                i = child
                right = 2 * i + 2
            }
            if right == n {
                // Only a left child.
                h[i] = h[n - 1]
                i = n - 1
            }
            BinaryHeap.siftUp(last, from: i, in: h)
        }
        return top
    }
}
