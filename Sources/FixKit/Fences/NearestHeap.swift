/// A binary min-heap of blocks and fences for `nearestEdges`: by bound, blocks before fences
/// at an equal bound (a block may still hold a fence of that edge with a smaller number),
/// fences by number.
struct NearestHeap {
    struct Entry {
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

    private var items: [Entry] = []

    mutating func push(_ e: Entry) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Entry.before(items[i], items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Entry? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < items.count, Entry.before(items[l], items[m]) { m = l }
                if r < items.count, Entry.before(items[r], items[m]) { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top
    }
}
