import Foundation
import Testing

@testable import FixKit

/// The one binary heap (visits' running medians, fencerule's nearest fences) against a sort:
/// whatever the pushes and pops, each pop gives the least element left, as a sorted array of
/// the same elements says.
struct BinaryHeapTests {
    /// A key with many ties, and a number that tells tied elements apart.
    struct Item: HeapOrdered, Equatable {
        var key: Int
        var id: Int
        static func before(_ a: Item, _ b: Item) -> Bool { a.key < b.key }
    }

    @Test("pushes and pops in any mix give the least key left, as a sort does")
    func againstSort() {
        var r = SplitMix(seed: 20_261_202)
        for round in 0..<400 {
            var heap = BinaryHeap<Item>()
            var model: [Item] = []
            // Few distinct keys in some rounds (ties everywhere), many in others.
            let keys = [2, 10, 1000, 1 << 30][round % 4]
            let steps = Int(r.next() % 300)
            for id in 0..<steps {
                if model.isEmpty || r.next() % 3 != 0 {
                    let item = Item(key: Int(r.next() % UInt64(keys)), id: id)
                    heap.push(item)
                    model.append(item)
                } else {
                    let least = model.map(\.key).min()
                    guard let top = heap.top, let popped = heap.pop() else {
                        Issue.record("empty heap with \(model.count) elements")
                        return
                    }
                    #expect(top == popped)
                    #expect(popped.key == least)
                    // The element itself, not only its key, was one of those pushed.
                    guard let at = model.firstIndex(of: popped) else {
                        Issue.record("popped \(popped), never pushed or popped twice")
                        return
                    }
                    model.remove(at: at)
                }
                #expect(heap.count == model.count)
                #expect(heap.topIsUnique == (model.filter { $0.key == heap.top?.key }.count <= 1))
            }
            // Emptied, the rest come out in sorted order.
            var rest: [Int] = []
            while let item = heap.pop() { rest.append(item.key) }
            #expect(rest == model.map(\.key).sorted())
            #expect(heap.isEmpty && heap.top == nil && heap.pop() == nil)
        }
    }

    @Test("a heap sort of doubles (with negative zero, infinities) is the sorted array")
    func heapSortOfDoubles() {
        var r = SplitMix(seed: 5)
        for n in [0, 1, 2, 3, 7, 64, 1000, 4097] {
            var values: [Double] = (0..<n).map { _ in Double(Int64(bitPattern: r.next()) % 1000) / 8 }
            if n > 4 { values[0...3] = [-0.0, 0.0, .infinity, -.infinity] }
            var heap = BinaryHeap<WeightedKey>()
            for v in values { heap.push(WeightedKey(key: v, weight: 1)) }
            var out: [Double] = []
            while let t = heap.pop() { out.append(t.key) }
            #expect(out == values.sorted())
        }
    }

    /// nearestEdges' order: by bound, a block before a fence at an equal bound, then by prefix;
    /// the heap gives its entries in exactly the order of a sort by it.
    @Test("NearestHeap gives its entries in the order of a sort by bound, blocks first, then prefix")
    func nearestHeapOrder() {
        var r = SplitMix(seed: 11)
        for _ in 0..<200 {
            var heap = NearestHeap()
            var entries: [NearestHeap.Entry] = []
            for k in 0..<Int(r.next() % 200) {
                let e = NearestHeap.Entry(
                    bound: Double(r.next() % 20) - 5, isFence: r.next() % 2 == 0, level: 0, shift: 0,
                    prefix: UInt64(k), from: 0, to: 0)
                heap.push(e)
                entries.append(e)
            }
            var out: [UInt64] = []
            while let e = heap.pop() { out.append(e.prefix) }
            #expect(out == entries.sorted(by: NearestHeap.Entry.before).map(\.prefix))
        }
    }
}
