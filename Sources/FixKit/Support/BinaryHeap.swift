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

    /// Adds `element`. O(log n).
    mutating func push(_ element: Element) {
        items.append(element)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Element.before(element, items[parent]) else { break }
            items[i] = items[parent]
            i = parent
        }
        items[i] = element
    }

    /// Takes the top off and returns it; nil when the heap is empty. O(log n).
    @discardableResult
    mutating func pop() -> Element? {
        guard let last = items.popLast() else { return nil }
        guard let top = items.first else { return last }
        // Sift the last element down from the root, into the hole the top leaves.
        var i = 0
        let n = items.count
        while true {
            let left = 2 * i + 1
            guard left < n else { break }
            let right = left + 1
            let child = right < n && Element.before(items[right], items[left]) ? right : left
            guard Element.before(items[child], last) else { break }
            items[i] = items[child]
            i = child
        }
        items[i] = last
        return top
    }
}
