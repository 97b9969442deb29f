/// The min-heap (a `BinaryHeap`) of blocks and fences for `nearestEdges`: by bound, blocks
/// before fences at an equal bound (a block may still hold a fence of that edge with a smaller
/// number), fences by number.
struct NearestHeap {
    struct Entry: HeapOrdered {
        var bound: Double
        var isFence: Bool
        var level: Int32
        var shift: UInt64
        /// A block's Morton prefix, or a fence's number.
        var prefix: UInt64
        var from: Int
        var to: Int

        @inline(__always)
        static func before(_ a: Entry, _ b: Entry) -> Bool {
            if a.bound != b.bound { return a.bound < b.bound }
            if a.isFence != b.isFence { return !a.isFence }
            return a.prefix < b.prefix
        }
    }

    private var heap = BinaryHeap<Entry>()

    mutating func push(_ e: Entry) { heap.push(e) }

    mutating func pop() -> Entry? { heap.pop() }
}
