import Testing

@testable import FixKit

/// The summaries' hash table (`CellTable`) against the standard `Dictionary`: after any mix of
/// updates, through every growth, it holds the same entries with the same values, and visits
/// each once.
struct CellTableTests {
    @Test("updates of any keys, through every growth, leave what a Dictionary holds")
    func againstDictionary() {
        var r = SplitMix(seed: 20_261_203)
        for round in 0..<60 {
            // Few keys (each updated often), nearby keys (a stay's neighbouring cells, which
            // differ in their low bits), and keys anywhere, with negatives as bit patterns.
            let spread: UInt64 = [8, 1000, 1 << 20, .max][round % 4]
            var table = CellTable<Double>(minimumCapacity: round % 3 == 0 ? 0 : 100)
            var model: [UInt64: Double] = [:]
            let steps = 1 + Int(r.next() % 20_000)
            for step in 0..<steps {
                var key = spread == .max ? r.next() : r.next() % spread
                if round % 8 >= 4 { key = 0 &- key }  // a negative number's bit pattern
                let add = Double(step % 97) + 0.25
                table.update(key, default: -1) { $0 += add }
                model[key, default: -1] += add
            }
            #expect(table.count == model.count)
            var seen: [UInt64: Double] = [:]
            table.forEach { k, v in
                #expect(seen[k] == nil, "key \(k) visited twice")
                seen[k] = v
            }
            #expect(seen == model)
            for (k, v) in model.prefix(500) { #expect(table[k] == v) }
            #expect(table[UInt64.max - 12345] == model[UInt64.max - 12345])
        }
    }
}
