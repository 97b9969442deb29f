import Foundation
import Testing

@testable import FixKit

/// `Geodesy.Centre.isWithin` answers `Geodesy.distance(point, lat:lon:) <= limit`, and
/// `isCloser(than:)` answers `< limit` (fixfilter's move rule), without trigonometry where
/// their bound settles it: each must give that comparison's answer for every fix and limit,
/// above all for limits within a hair of the distance, where a bound that is too tight would
/// flip it.
struct GeodesyCentreTests {
    /// A fix offset from the centre by up to `degrees` in a random direction, the longitude
    /// offset widened by 1/cos φ (so near the poles it goes a long way round), wrapped.
    static func fix(near c: (lat: Double, lon: Double), degrees: Double, _ r: inout FenceIndexBruteForceTests.Random)
        -> (lat: Double, lon: Double)
    {
        let theta = r.range(0, 2 * .pi)
        let lat = min(90, max(-90, c.lat + degrees * cos(theta)))
        var lon = c.lon + degrees * sin(theta) / max(1e-6, cos(c.lat * .pi / 180))
        lon = lon.truncatingRemainder(dividingBy: 360)
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (lat, lon)
    }

    /// Centres anywhere (both poles within a metre, both sides of the antimeridian), fixes from
    /// a millimetre to across the globe, limits at the distance and just either side of it, in
    /// relative and in absolute steps: the answer is the comparison's, every time.
    @Test(arguments: 0..<8)
    func agreesWithTheDistance(seed: Int) {
        var r = FenceIndexBruteForceTests.Random(UInt64(seed) + 9000)
        let special: [(Double, Double)] = [
            (89.99999, 10), (-89.99999, -170), (0, 179.9999), (-33.9, -179.9999), (51.5, -0.12), (0, 0),
        ]
        let steps = [0, 1e-15, 1e-12, 1e-9, 1e-7, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.5]
        let shifts = [1e-4, 1e-3, 1e-2, 0.1, 1, 10]
        var checked = 0
        var disagreements: [String] = []
        for k in 0..<1500 {
            let c =
                k < special.count * 50
                ? special[k % special.count]
                : (asin(r.range(-1, 1)) * 180 / .pi, r.range(-180, 180))
            let centre = Geodesy.Centre(lat: c.0, lon: c.1)
            let spread = r.logRange(1e-8, 3)  // degrees: a millimetre to 330 km
            let p = Self.fix(near: (c.0, c.1), degrees: spread, &r)
            let d = Geodesy.distance(centre.point, lat: p.lat, lon: p.lon)
            var limits = [0.0, d]
            for s in steps { limits += [d * (1 + s), d * (1 - s)] }
            for s in shifts { limits += [d + s, d - s] }
            for limit in limits {
                checked += 1
                let expected = d <= limit
                if centre.isWithin(limit, lat: p.lat, lon: p.lon) != expected {
                    disagreements.append("centre \(c), fix \(p), distance \(d) m, limit \(limit) m")
                }
                if centre.isCloser(than: limit, lat: p.lat, lon: p.lon) != (d < limit) {
                    disagreements.append("closer: centre \(c), fix \(p), distance \(d) m, limit \(limit) m")
                }
            }
        }
        let wrong = disagreements.count
        let first = disagreements.prefix(3).joined(separator: "; ")
        #expect(wrong == 0, "\(wrong) of \(checked) wrong: \(first)")
    }

    /// Disagreements of a comparison with the measured distance over 20,000 centres at every
    /// latitude, each with one fix offset by `spread` degrees (log-uniform) and a limit
    /// chosen from the distance and the draw number.
    static func disagreementsAtEveryLatitude(
        seed: UInt64, spread: (Double, Double), limit: (Int, Double, inout FenceIndexBruteForceTests.Random) -> Double,
        _ agrees: (Geodesy.Centre, (lat: Double, lon: Double), Double, Double) -> Bool
    ) -> Int {
        var r = FenceIndexBruteForceTests.Random(seed)
        var disagreements = 0
        for k in 0..<20000 {
            let c = (r.range(-89.9, 89.9), r.range(-180, 180))
            let centre = Geodesy.Centre(lat: c.0, lon: c.1)
            let p = Self.fix(near: c, degrees: r.logRange(spread.0, spread.1), &r)
            let d = Geodesy.distance(centre.point, lat: p.lat, lon: p.lon)
            if !agrees(centre, p, d, limit(k, d, &r)) { disagreements += 1 }
        }
        return disagreements
    }

    /// Fixes a few metres from the last one passed, against fixfilter's --min-move limits:
    /// the move rule's case, at every latitude, with limits at the distance itself.
    @Test func movesAtEveryLatitude() {
        let wrong = Self.disagreementsAtEveryLatitude(
            seed: 78, spread: (1e-8, 0.001), limit: { k, d, r in k % 4 == 0 ? d : r.logRange(0.1, 100) }
        ) { centre, p, d, limit in centre.isCloser(than: limit, lat: p.lat, lon: p.lon) == (d < limit) }
        #expect(wrong == 0)
    }

    /// A stay's fixes, tens of metres from the centre against limits of 50 m plus a hacc:
    /// the case visits asks millions of times, at every latitude.
    @Test func staysAtEveryLatitude() {
        let wrong = Self.disagreementsAtEveryLatitude(
            seed: 77, spread: (1e-7, 0.01), limit: { _, _, r in 50 + r.logRange(1, 2000) }
        ) { centre, p, d, limit in centre.isWithin(limit, lat: p.lat, lon: p.lon) == (d <= limit) }
        #expect(wrong == 0)
    }

    /// NaN and infinite limits or positions: the comparison's answer (false for NaN), as
    /// measured.
    @Test func nonFiniteInputs() {
        let centre = Geodesy.Centre(lat: 47, lon: 8)
        #expect(!centre.isWithin(.nan, lat: 47, lon: 8))
        #expect(centre.isWithin(.infinity, lat: 47.001, lon: 8))
        #expect(!centre.isWithin(-.infinity, lat: 47, lon: 8))
        #expect(!centre.isWithin(100, lat: .nan, lon: 8))
        #expect(centre.isWithin(0, lat: 47, lon: 8))
        #expect(!centre.isCloser(than: .nan, lat: 47, lon: 8))
        #expect(centre.isCloser(than: .infinity, lat: 47.001, lon: 8))
        #expect(!centre.isCloser(than: 0, lat: 47, lon: 8))
        #expect(!centre.isCloser(than: 100, lat: .nan, lon: 8))
    }
}
