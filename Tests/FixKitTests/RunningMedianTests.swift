import Foundation
import Testing

@testable import FixKit

/// visits' running weighted median against the definition computed by a sort, with exact
/// integer sums: the smallest value at which the cumulative weight reaches half the total.
struct RunningMedianTests {
    /// The definition, by sorting: twice the cumulative weight at least the total.
    static func bySort(_ items: [(value: Double, weight: UInt64)]) -> Double {
        let sorted = items.sorted { $0.value < $1.value }
        let total = sorted.reduce(UInt64(0)) { $0 + $1.weight }
        var sum: UInt64 = 0
        for (i, item) in sorted.enumerated() {
            sum += item.weight
            // The cumulative weight of a value counts every item equal to it.
            if i + 1 < sorted.count, sorted[i + 1].value == item.value { continue }
            if 2 * sum >= total { return item.value }
        }
        return sorted[sorted.count - 1].value
    }

    @Test("equal weights: the smaller middle value, in any order of arrival")
    func tiesGoToTheSmallerMiddle() {
        var r = FenceIndexBruteForceTests.Random(7)
        for n in 2...40 {
            var values = (0..<n).map { Double($0) }
            for i in stride(from: n - 1, to: 0, by: -1) { values.swapAt(i, Int(r.range(0, Double(i) + 0.999))) }
            var m = RunningMedian()
            for v in values { m.insert(v, weight: 5) }
            #expect(m.median == Double((n - 1) / 2), "n = \(n)")
            // With one more of the same weight: n + 1 values, the middle one (the smaller of two).
            #expect(m.median(with: 1000, weight: 5) == Double(n / 2), "n = \(n), one above")
            #expect(m.median(with: -1000, weight: 5) == Double((n + 2) / 2 - 2), "n = \(n), one below")
        }
    }

    /// Many random sequences, with repeated values (a receiver that rounds) and weights that
    /// range over six orders of magnitude, checked after every insertion, alone and with an
    /// extra value anywhere: below, at or above the median, with a weight small or large.
    @Test(arguments: 0..<40)
    func agreesWithTheDefinition(seed: Int) {
        var r = FenceIndexBruteForceTests.Random(UInt64(seed) + 100)
        let levels = [2.0, 10, 1000][seed % 3]  // distinct values: few, some, many
        var m = RunningMedian()
        var items: [(value: Double, weight: UInt64)] = []
        for _ in 0..<300 {
            let v = (r.range(0, levels)).rounded(.down) / 7
            let w = UInt64(pow(10, r.range(0, 6)))
            m.insert(v, weight: w)
            items.append((v, w))
            #expect(m.median == Self.bySort(items))
            let extra = (r.range(-1, levels + 1)).rounded(.down) / 7
            let ew = r.chance(0.5) ? UInt64(1) : UInt64(pow(10, r.range(0, 7)))
            #expect(m.median(with: extra, weight: ew) == Self.bySort(items + [(extra, ew)]))
            // The extra value is not kept: the median is as before.
            #expect(m.median == Self.bySort(items))
        }
    }

    /// visits asks for a stay's centre once every sixteenth of its growth, so hundreds of
    /// insertions can come between two medians, all pushed on the side of a median that has
    /// since moved: values drifting one way (a walk into the stay), with repeats and weights
    /// over six orders of magnitude.
    @Test(arguments: 0..<20)
    func agreesWithTheDefinitionAskedRarely(seed: Int) {
        var r = FenceIndexBruteForceTests.Random(UInt64(seed) + 500)
        var m = RunningMedian()
        var items: [(value: Double, weight: UInt64)] = []
        let drift = r.range(-0.05, 0.05)
        for _ in 0..<40 {
            for _ in 0..<r.int(300) {
                let v = ((r.gauss() + drift * Double(items.count)) * 8).rounded() / 8
                let w = UInt64(pow(10, r.range(0, 6)))
                m.insert(v, weight: w)
                items.append((v, w))
            }
            guard !items.isEmpty else { continue }
            let extra = (r.gauss() * 8).rounded() / 8
            let ew = UInt64(pow(10, r.range(0, 7)))
            #expect(m.median(with: extra, weight: ew) == Self.bySort(items + [(extra, ew)]), "\(items.count) values")
            #expect(m.median == Self.bySort(items), "\(items.count) values")
        }
    }

    @Test("where no tie is near, the same value as the selection over doubles")
    func agreesWithTheSelection() {
        var r = FenceIndexBruteForceTests.Random(42)
        for _ in 0..<200 {
            let n = Int(r.range(1, 400))
            let values = (0..<n).map { _ in r.gauss() * 1e-4 + 51.5 }
            let weights = (0..<n).map { _ in r.range(1, 60) / pow(r.range(30, 150), 2) }
            var m = RunningMedian()
            for (v, w) in zip(values.dropLast(), weights.dropLast()) { m.insert(v, weight: RunningMedian.quantize(w)) }
            let got = m.median(with: values[n - 1], weight: RunningMedian.quantize(weights[n - 1]))
            #expect(got == WeightedMedian.of(values, weights: weights))
        }
    }

    @Test("weights are whole units of 2^-40, at least one, at most 2^40")
    func quantize() {
        #expect(RunningMedian.quantize(1.0 / 900) == UInt64((0x1p40 / 900).rounded()))
        #expect(RunningMedian.quantize(0) == 1)
        #expect(RunningMedian.quantize(.nan) == 1)
        #expect(RunningMedian.quantize(1e-30) == 1)
        #expect(RunningMedian.quantize(5) == 1 << 40)
        #expect(RunningMedian.quantize(.infinity) == 1 << 40)
    }
}
