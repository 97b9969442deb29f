import Foundation
import Testing

@testable import FixKit

/// The thinning that keeps a million fixes to a few MB: no point may move by more than the
/// tolerance, over many generated lines at every scale, and lines that can be thinned are.
struct ScreenSimplifierTests {
    static func simplify(_ points: [(Int, Int)], tolerance: Double = 5) -> [(Int, Int, Int)] {
        var s = ScreenSimplifier<Int>(tolerance: tolerance)
        var out: [(Int, Int, Int)] = []
        for (k, p) in points.enumerated() {
            if let v = s.add(x: p.0, y: p.1, payload: k) { out.append(v) }
        }
        if let v = s.finish() { out.append(v) }
        return out
    }

    /// Random walks: steps from a tenth of a pixel to 50 px, smooth turns or jitter, pauses
    /// (repeated points), reversals.
    static func walk(seed: UInt64, count: Int) -> [(Int, Int)] {
        var g = FixGenerator(seed: seed)
        let step = [1.0, 3, 10, 40, 150, 500][Int(seed % 6)]
        var x = 0.0, y = 0.0, heading = g.unit() * 6.28
        var out: [(Int, Int)] = []
        for _ in 0..<count {
            if g.chance(0.05) {
                out.append(out.last ?? (0, 0))
                continue
            }
            heading += g.chance(0.02) ? 3.14 : (g.unit() - 0.5) * (seed % 2 == 0 ? 0.3 : 2.5)
            let d = step * (0.2 + g.unit())
            x += d * cos(heading)
            y += d * sin(heading)
            out.append((Int(x.rounded()), Int(y.rounded())))
        }
        return out
    }

    @Test(arguments: 0..<60)
    func noPointMovesMoreThanTheTolerance(_ seed: Int) {
        let points = Self.walk(seed: UInt64(seed), count: 2000)
        let kept = Self.simplify(points)
        let line = kept.map { (Double($0.0), Double($0.1)) }
        var worst = 0.0
        for p in points {
            worst = max(worst, distance((Double(p.0), Double(p.1)), toPolyline: line))
        }
        #expect(worst <= 5 + 1e-9, "seed \(seed): a point is \(worst) units from the line")
        // The vertices are input points, in order, the first and the last among them.
        let indices = kept.map(\.2)
        #expect(indices == indices.sorted())
        for v in kept { #expect(points[v.2] == (v.0, v.1)) }
        #expect(indices.first == 0)
        #expect(points[indices.last!] == points.last!)
    }

    @Test func aStraightLineIsTwoVertices() {
        let points = (0..<10_000).map { ($0, 3 * $0) }
        #expect(Self.simplify(points).count == 2)
    }

    @Test func aCircleKeepsWhatTheToleranceNeeds() {
        // Radius 1000 units (100 px), 100,000 points: a chord within 5 units of its arc spans
        // 2·acos(1 - 5/1000) = 0.2 rad, so about 32 vertices suffice; the sleeve keeps under 70.
        let points = (0..<100_000).map { k -> (Int, Int) in
            let a = Double(k) / 100_000 * 2 * Double.pi
            return (Int((1000 * cos(a)).rounded()), Int((1000 * sin(a)).rounded()))
        }
        let n = Self.simplify(points).count
        #expect(n >= 32 && n < 70, "\(n) vertices")
    }

    @Test func backtrackingIsKept() {
        // Out and back along one line: the far end must stay, or the line would be short.
        let points = (0...100).map { ($0 * 10, 0) } + (0..<100).reversed().map { ($0 * 10, 0) }
        let kept = Self.simplify(points)
        #expect(kept.contains { $0.0 == 1000 })
        #expect(kept.count == 3)
    }

    @Test func edgeCases() {
        #expect(Self.simplify([]).isEmpty)
        #expect(Self.simplify([(5, 5)]).map(\.2) == [0])
        #expect(Self.simplify([(5, 5), (5, 5), (5, 5)]).map(\.2) == [0])
        #expect(Self.simplify([(0, 0), (1, 0)]).map(\.2) == [0, 1])
    }

    @Test(arguments: [
        (0.0, "0"), (0.04, "0"), (0.05, ".1"), (-0.05, "-.1"), (12.34, "12.3"), (-3, "-3"), (100.96, "101"),
    ])
    func gridNumbers(_ px: Double, _ text: String) {
        var out: [UInt8] = []
        PathGrid.write(pixels: px, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == text)
    }

    @Test(arguments: [(0.9, 0.5), (1.0, 1), (3.7, 2), (9.99, 5), (250, 200), (7300, 5000), (0.0001, 0.001)])
    func roundMetres(_ limit: Double, _ want: Double) {
        #expect(MapLayer.roundMetres(below: limit) == want)
    }
}
