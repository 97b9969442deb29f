import Foundation
import Testing

@testable import FixKit

/// visits' stay summary (issue 11b) against an exact weighted median computed here by sorting:
/// up to 65,536 fixes the centre and the spread are exact; past that, the median of each
/// coordinate is within one bin width (1e-7°) of the exact one and the spread (the 68th
/// percentile of the distances from the centre, the visit's hacc) within a cell's diagonal, as
/// StaySummary.swift documents. And the selection that computes them against a sort.
struct StaySummaryTests {
    /// The smallest value at which the cumulative weight, in increasing order, reaches q of the
    /// total: by a sort.
    static func exactQuantile(_ values: [Double], _ weights: [Double], _ q: Double) -> Double {
        let order = values.indices.sorted { values[$0] < values[$1] }
        let target = weights.reduce(0, +) * q
        var sum = 0.0
        for i in order {
            sum += weights[i]
            if sum >= target { return values[i] }
        }
        return values[order.last!]
    }

    /// The weight of each fix as visits(1) gives it: the time it stands for (half the time to
    /// each neighbour, at most 60 s, at least 0.5 s) over max(30, hacc)².
    static func weights(_ points: [StayDetector.StayPoint]) -> [Double] {
        points.indices.map { i in
            let before = i > 0 ? points[i].time.seconds - points[i - 1].time.seconds : 0
            let after = i + 1 < points.count ? points[i + 1].time.seconds - points[i].time.seconds : 0
            let share = max(0.5, min(60, before / 2 + after / 2))
            return share / pow(max(30, points[i].hacc), 2)
        }
    }

    static func stay(count: Int, at c: (lat: Double, lon: Double), seed: UInt64) -> [StayDetector.StayPoint] {
        var r = FenceIndexBruteForceTests.Random(seed)
        let frame = LocalFrame(lat: c.lat, lon: c.lon)
        var t = 1_767_258_000.0
        return (0..<count).map { _ in
            // Mostly 1 Hz, sometimes a gap of up to three minutes; hacc 3 to 80 m; 12 m noise
            // and a few fixes thrown 100 m.
            t += r.chance(0.02) ? r.range(1, 180).rounded() : 1
            let far = r.chance(0.01) ? 100.0 : 0
            let p = frame.degrees(east: 12 * r.gauss() + far, north: 12 * r.gauss())
            return StayDetector.StayPoint(lat: p.lat, lon: p.lon, hacc: r.range(3, 80), time: Timestamp(seconds: t))
        }
    }

    /// Metres per degree of latitude and longitude at a latitude (a sphere of 6,378,137 m is
    /// enough for a bound).
    static func cellDiagonal(_ size: Double, lat: Double) -> Double {
        let m = 6_378_137.0 * .pi / 180 * size
        return (m * m + pow(m * cos(lat * .pi / 180), 2)).squareRoot()
    }

    @Test(arguments: [(51.5, -0.12), (-16.5, 179.9999), (0.0, 0.0)])
    func longStayWithinTheDocumentedTolerance(lat: Double, lon: Double) throws {
        let points = Self.stay(count: 100_000, at: (lat, lon), seed: UInt64(abs(lat * 10 + lon)))
        let w = Self.weights(points)
        for n in [StaySummary.exactLimit, 100_000] {
            let ps = Array(points.prefix(n))
            let ws = Self.weights(ps)
            var summary = StaySummary(ps)
            let computed = summary.centre()
            let centre = try #require(computed)
            let exactLat = Self.exactQuantile(ps.map(\.lat), ws, 0.5)
            // Longitudes about the first fix, as the stay takes them (across the antimeridian).
            let rel = ps.map { p -> Double in
                var d = p.lon - ps[0].lon
                if d > 180 { d -= 360 } else if d < -180 { d += 360 }
                return d
            }
            var exactLon = ps[0].lon + Self.exactQuantile(rel, ws, 0.5)
            if exactLon > 180 { exactLon -= 360 } else if exactLon < -180 { exactLon += 360 }
            var dLon = centre.lon - exactLon
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let exactSpread = Self.exactQuantile(
                ps.map { Geodesy.distance(lat1: centre.lat, lon1: centre.lon, lat2: $0.lat, lon2: $0.lon) }, ws, 0.68)
            let spread = summary.spread(around: centre)
            if n <= StaySummary.exactLimit {
                #expect(centre.lat == exactLat)
                #expect(abs(dLon) <= 1e-12)
                #expect(abs(spread - exactSpread) <= 1e-9)
            } else {
                // The fixes spread over less than 360 m: the bins keep their width of 1e-7°.
                #expect(abs(centre.lat - exactLat) <= 1e-7, "latitude off by \(centre.lat - exactLat)°")
                #expect(abs(dLon) <= 1e-7, "longitude off by \(dLon)°")
                // The cells double while more than 65,536 are occupied: the size they end at,
                // counted here by distinct keys.
                var size = 1e-6
                while Set(
                    ps.map { p -> [Int] in
                        var d = p.lon - ps[0].lon
                        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
                        return [Int((p.lat / size).rounded(.down)), Int((d / size).rounded(.down))]
                    }
                ).count > StaySummary.cellCapacity {
                    size *= 2
                }
                let tolerance = Self.cellDiagonal(size, lat: lat) * 1.01
                #expect(
                    abs(spread - exactSpread) <= tolerance,
                    "spread \(spread) m, exact \(exactSpread) m, tolerance \(tolerance) m (cells of \(size)°)")
                #expect(exactSpread > 5 && exactSpread < 40)
            }
        }
        #expect(w.count == 100_000)
    }

    /// Through the tool: one stay of 80,000 fixes (22 hours at 1 Hz with some gaps, none over
    /// the hour) and a walk away; the visit's lat, lon and hacc are within the same tolerance of
    /// the exact weighted median and 68th percentile, and it has every fix.
    @Test func visitsToolOnALongStay() throws {
        var r = FenceIndexBruteForceTests.Random(8)
        let c = (lat: 48.85, lon: 2.35)
        let frame = LocalFrame(lat: c.lat, lon: c.lon)
        var t = 1_767_258_000.0
        var points: [StayDetector.StayPoint] = []
        for _ in 0..<80_000 {
            t += r.chance(0.01) ? r.range(1, 600).rounded() : 1
            let p = frame.degrees(east: 7 * r.gauss(), north: 7 * r.gauss())
            points.append(
                StayDetector.StayPoint(
                    lat: p.lat, lon: p.lon, hacc: r.range(3, 60).rounded(), time: Timestamp(seconds: t)))
        }
        var text: [UInt8] = []
        func write(_ p: StayDetector.StayPoint) {
            var f = Fix(lat: p.lat, lon: p.lon)
            f.time = p.time
            f.hacc = p.hacc
            FixEncoder.encode(f, into: &text)
        }
        for p in points { write(p) }
        for k in 1...20 {
            let p = frame.degrees(east: 300 + 20 * Double(k), north: 0)
            write(StayDetector.StayPoint(lat: p.lat, lon: p.lon, hacc: 5, time: Timestamp(seconds: t + 10 * Double(k))))
        }
        let run = try Tools.run("visits", [], stdin: Data(text))
        #expect(run.status == 0, "\(run.stderr)")
        let visits = try Tools.objects(run.stdout)
        #expect(visits.count == 1)
        let v = try #require(visits.first)
        let lat = try #require(v["lat"] as? Double)
        let lon = try #require(v["lon"] as? Double)
        let hacc = try #require(v["hacc"] as? Double)
        #expect(v["fixes"] as? Int == points.count)
        let w = Self.weights(points)
        let exactLat = Self.exactQuantile(points.map(\.lat), w, 0.5)
        let exactLon = Self.exactQuantile(points.map(\.lon), w, 0.5)
        #expect(abs(lat - exactLat) <= 1e-7, "lat off by \(lat - exactLat)°")
        #expect(abs(lon - exactLon) <= 1e-7, "lon off by \(lon - exactLon)°")
        let exactSpread = Self.exactQuantile(
            points.map { Geodesy.distance(lat1: lat, lon1: lon, lat2: $0.lat, lon2: $0.lon) }, w, 0.68)
        // 7 m of noise fills fewer than 65,536 cells of 1e-6° only at twice that size or more;
        // the tolerance is the diagonal of the cells it ends with, counted as in the test above.
        var size = 1e-6
        while Set(
            points.map { [Int(($0.lat / size).rounded(.down)), Int((($0.lon - points[0].lon) / size).rounded(.down))] }
        ).count
            > StaySummary.cellCapacity
        {
            size *= 2
        }
        #expect(
            abs(hacc - exactSpread) <= Self.cellDiagonal(size, lat: c.lat) * 1.01, "hacc \(hacc), exact \(exactSpread)")
    }

    /// The selection against a sort, over many generated inputs: ties, zero weights, a few
    /// values or many, any quantile.
    @Test func selectionEqualsSort() {
        var r = FenceIndexBruteForceTests.Random(77)
        for trial in 0..<200 {
            let n = 1 + r.int(trial % 3 == 0 ? 10 : 200)
            let values = (0..<n).map { _ in r.chance(0.3) ? Double(r.int(5)) : r.gauss() * 10 }
            let weights = (0..<n).map { _ in r.chance(0.1) ? 0 : r.logRange(1e-4, 10) }
            guard weights.reduce(0, +) > 0 else { continue }
            for q in [0.5, 0.68, 0.01, 0.99, r.unit()] {
                let got = WeightedMedian.quantile(values, weights: weights, q)
                let want = Self.exactQuantile(values, weights, q)
                // A sum in another order may differ in its last bit: then either neighbour.
                if got != want {
                    let sorted = values.sorted()
                    let k = sorted.firstIndex(of: want)!
                    let near = sorted[max(0, k - 1)...min(sorted.count - 1, k + 1)]
                    #expect(near.contains(got ?? .nan), "trial \(trial), q \(q): \(got ?? .nan), sorted \(want)")
                }
            }
        }
    }
}
