import Foundation
import Testing

@testable import FixKit

/// Geodesy.distance against GeographicLib's geodesic on WGS 84 (Tests/oracle/geodesic.py):
/// within 0.1% up to 10 km at every latitude (the spec's promise), sane (0.5%) beyond, across
/// the antimeridian and the poles, and exactly zero for the same point.
struct DistanceTests {
    static var geographiclibAvailable: Bool {
        guard let python = Tools.which("python3"),
            let r = try? Tools.runExecutable(python, ["-c", "import geographiclib.geodesic"])
        else { return false }
        return r.status == 0
    }

    struct Pair {
        var lat1, lon1, lat2, lon2, geodesic: Double
        var ours: Double { Geodesy.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) }
        var relative: Double { geodesic == 0 ? ours : abs(ours - geodesic) / geodesic }
        var description: String { "(\(lat1), \(lon1)) → (\(lat2), \(lon2)): geodesic \(geodesic) m, ours \(ours) m" }
    }

    /// Sends "D lat lon azi s" / "I lat1 lon1 lat2 lon2" lines to the oracle.
    static func oracle(_ lines: [String]) throws -> [Pair] {
        let script = Tools.packageRoot.appendingPathComponent("Tests/oracle/geodesic.py").path
        let r = try Tools.runExecutable(
            Tools.which("python3")!, [script], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(r.status == 0, "\(r.stderr)")
        return try r.lines.map { line in
            let v = line.split(separator: " ").compactMap { Double($0) }
            guard v.count == 5 else { throw TestFailure("oracle: \(line)") }
            return Pair(lat1: v[0], lon1: v[1], lat2: v[2], lon2: v[3], geodesic: v[4])
        }
    }

    /// `count` random Direct problems from points with |lat| in `latitudes` (uniform over the
    /// sphere's area in that band, both hemispheres), any longitude and azimuth, at distances
    /// in `distances`, half log-uniform (down to 1 cm) and half uniform.
    static func random(
        _ count: Int, latitudes: ClosedRange<Double>, distances: ClosedRange<Double>,
        longitudes: ClosedRange<Double> = -180...180, seed: UInt64
    ) -> [String] {
        var g = SeededRandom(seed: seed)
        let s0 = Foundation.sin(latitudes.lowerBound * .pi / 180)
        let s1 = Foundation.sin(latitudes.upperBound * .pi / 180)
        return (0..<count).map { k in
            let lat = Foundation.asin(s0 + (s1 - s0) * g.uniform()) * 180 / .pi * (g.uniform() < 0.5 ? -1 : 1)
            let lon = longitudes.lowerBound + (longitudes.upperBound - longitudes.lowerBound) * g.uniform()
            let azimuth = 360 * g.uniform() - 180
            let lo = max(distances.lowerBound, 0.01)
            let s =
                k % 2 == 0
                ? lo * Foundation.pow(distances.upperBound / lo, g.uniform())
                : distances.lowerBound + (distances.upperBound - distances.lowerBound) * g.uniform()
            return "D \(lat) \(lon) \(azimuth) \(s)"
        }
    }

    static func worst(_ pairs: [Pair]) -> Pair { pairs.max { $0.relative < $1.relative }! }

    static func check(
        _ pairs: [Pair], below bound: Double, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let w = worst(pairs)
        print("\(label): \(pairs.count) pairs, worst relative error \(w.relative) at \(w.description)")
        let bad = pairs.filter { !($0.relative < bound) }
        #expect(
            bad.isEmpty,
            "\(label): \(bad.count) of \(pairs.count) pairs off by \(bound) or more; worst \(w.relative) at \(w.description)",
            sourceLocation: sourceLocation)
    }

    @Test(.enabled(if: geographiclibAvailable, "needs python3 with geographiclib (pip install geographiclib)"))
    func upTo10km() throws {
        let pairs = try Self.oracle(Self.random(20_000, latitudes: 0...85, distances: 0...10_000, seed: 1))
        Self.check(pairs, below: 1e-3, "0–10 km, |lat| ≤ 85°")
        // Far better than promised: the local radii of curvature are good to about (d/R)².
        #expect(Self.worst(pairs).relative < 1e-4)
        // Short distances, where fences live: a fix 1 cm to 500 m from a centre.
        let short = try Self.oracle(Self.random(5_000, latitudes: 0...85, distances: 0.01...500, seed: 2))
        Self.check(short, below: 1e-6, "0.01–500 m, |lat| ≤ 85°")
    }

    @Test(.enabled(if: geographiclibAvailable, "needs python3 with geographiclib (pip install geographiclib)"))
    func beyond10km() throws {
        var lines = Self.random(5_000, latitudes: 0...85, distances: 10_000...100_000, seed: 3)
        lines += Self.random(5_000, latitudes: 0...85, distances: 100_000...20_000_000, seed: 4)
        // Near the 50 km switch from the local radii to Andoyer–Lambert.
        lines += Self.random(2_000, latitudes: 0...85, distances: 49_000...51_000, seed: 5)
        let pairs = try Self.oracle(lines)
        Self.check(pairs, below: 5e-3, "10 km – 20,000 km, |lat| ≤ 85°")
    }

    /// Near-antipodal pairs, where Andoyer–Lambert is weakest (and divides by cos(σ/2)).
    @Test(.enabled(if: geographiclibAvailable, "needs python3 with geographiclib (pip install geographiclib)"))
    func nearAntipodes() throws {
        var lines: [String] = [
            "I 0 0 0 180", "I 30 0 -30 180", "I 45 10 -45 -170", "I 90 0 -90 0", "I 0 0 0.5 179.5", "I 0 -90 0 90",
            "I 60 0 -60 179.9",
        ]
        lines += Self.random(3_000, latitudes: 0...90, distances: 19_900_000...20_003_000, seed: 6)
        let pairs = try Self.oracle(lines)
        #expect(pairs.allSatisfy { $0.ours.isFinite })
        Self.check(pairs, below: 5e-3, "near antipodes")
    }

    /// Pairs whose longitudes straddle ±180°, and the same pair written with 180 and −180.
    @Test(.enabled(if: geographiclibAvailable, "needs python3 with geographiclib (pip install geographiclib)"))
    func acrossTheAntimeridian() throws {
        var lines = Self.random(5_000, latitudes: 0...85, distances: 0...10_000, longitudes: 179.8...180, seed: 7)
        lines += Self.random(5_000, latitudes: 0...85, distances: 0...10_000, longitudes: -180 ... -179.8, seed: 8)
        lines += [
            "I 0 179.99 0 -179.99", "I 51.5 -179.999 51.5 179.999", "I -40 180 -40.01 -179.99",
            "I 10 -180 10.05 179.95",
        ]
        let pairs = try Self.oracle(lines)
        let crossing = pairs.filter { ($0.lon1 > 0) != ($0.lon2 > 0) }
        #expect(crossing.count > 300, "\(crossing.count) pairs cross the antimeridian")
        Self.check(pairs, below: 1e-3, "0–10 km across ±180°")
        let far = try Self.oracle(
            Self.random(2_000, latitudes: 0...85, distances: 10_000...5_000_000, longitudes: 170...180, seed: 9))
        Self.check(far, below: 5e-3, "10 km – 5,000 km near ±180°")
        for lat in [-89.0, -45, 0, 51.5, 80] {
            let a = Geodesy.distance(lat1: lat, lon1: 180, lat2: lat + 0.01, lon2: 179.99)
            let b = Geodesy.distance(lat1: lat, lon1: -180, lat2: lat + 0.01, lon2: 179.99)
            #expect(abs(a - b) <= 1e-9 * a, "lat \(lat): \(a) vs \(b)")
        }
    }

    /// Within 10 km of the poles, over the pole and beside it: the spec promises 0.1% at every
    /// latitude.
    @Test(.enabled(if: geographiclibAvailable, "needs python3 with geographiclib (pip install geographiclib)"))
    func nearThePolesWithin10km() throws {
        var lines = Self.random(10_000, latitudes: 85...90, distances: 0...10_000, seed: 10)
        // Over the pole: the same latitude on opposite meridians.
        for lat in [89.9, 89.97, 89.99, 89.999] {
            for lon in [0.0, 45, 123.4, -170] {
                lines.append("I \(lat) \(lon) \(lat) \(lon > 0 ? lon - 180 : lon + 180)")
                lines.append("I \(-lat) \(lon) \(-lat) \(lon > 0 ? lon - 180 : lon + 180)")
                lines.append("I \(lat) \(lon) \(lat) \(lon + 90 > 180 ? lon - 270 : lon + 90)")
            }
        }
        lines += ["I 90 0 89.95 77", "I -90 0 -89.95 -77", "I 90 12 89.99 -168"]
        let pairs = try Self.oracle(lines)
        Self.check(pairs, below: 1e-3, "0–10 km, |lat| 85–90°")
        // Broken down by band, for the report.
        for band in [(85.0, 88.0), (88, 89), (89, 89.5), (89.5, 90.01)] {
            let inBand = pairs.filter {
                max(abs($0.lat1), abs($0.lat2)) >= band.0 && max(abs($0.lat1), abs($0.lat2)) < band.1
            }
            if !inBand.isEmpty {
                print("  |lat| \(band.0)–\(band.1)°: worst \(Self.worst(inBand).relative) over \(inBand.count)")
            }
        }
    }

    @Test(.enabled(if: geographiclibAvailable, "needs python3 with geographiclib (pip install geographiclib)"))
    func nearThePolesBeyond10km() throws {
        var lines = Self.random(3_000, latitudes: 85...90, distances: 10_000...100_000, seed: 11)
        lines += Self.random(3_000, latitudes: 85...90, distances: 100_000...20_000_000, seed: 12)
        let pairs = try Self.oracle(lines)
        Self.check(pairs, below: 5e-3, "10 km – 20,000 km, |lat| 85–90°")
    }

    /// `Geodesy.sinCos` (one `sincos` call where the C library has it) gives sin's and cos's own
    /// values, bit for bit, for latitudes and longitudes in radians, angles in the reduction's
    /// hard ranges and huge ones: a fence centre and a fix are made Earth-centred with it, and
    /// every other caller of sin or cos must agree with them to the last bit.
    @Test func sinCosIsSinAndCos() {
        var g = SeededRandom(seed: 2026)
        var angles: [Double] = [0, -0.0, .pi / 4, .pi / 2, .pi, 1e-300, 5e-324, 1e22, -1e300, 0x1p1023]
        for _ in 0..<2_000_000 {
            let u = g.uniform()
            switch angles.count % 4 {
            case 0: angles.append((360 * u - 180) * .pi / 180)
            case 1: angles.append(1e6 * (2 * u - 1))
            case 2: angles.append(Double(bitPattern: UInt64(u * 0x7FEF_FFFF_FFFF_FFFF)))
            default: angles.append(1.6 * (2 * u - 1))
            }
        }
        var differ = 0
        for x in angles {
            let (s, c) = Geodesy.sinCos(x)
            if s.bitPattern != sin(x).bitPattern || c.bitPattern != cos(x).bitPattern {
                differ += 1
                if differ <= 3 { Issue.record("sinCos(\(x)) = (\(s), \(c)), sin and cos give (\(sin(x)), \(cos(x)))") }
            }
        }
        #expect(differ == 0)
    }

    /// The same point is exactly 0 m from itself, however it is written; distances are
    /// symmetric and never negative or NaN.
    @Test func zeroAndSymmetry() {
        var g = SeededRandom(seed: 13)
        for _ in 0..<10_000 {
            let lat = 180 * g.uniform() - 90
            let lon = 360 * g.uniform() - 180
            #expect(Geodesy.distance(lat1: lat, lon1: lon, lat2: lat, lon2: lon) == 0)
            let lat2 = max(-90, min(90, lat + 0.2 * g.uniform() - 0.1))
            let lon2 = lon + 0.2 * g.uniform() - 0.1
            let ab = Geodesy.distance(lat1: lat, lon1: lon, lat2: lat2, lon2: lon2)
            let ba = Geodesy.distance(lat1: lat2, lon1: lon2, lat2: lat, lon2: lon)
            #expect(ab >= 0 && ab.isFinite)
            #expect(abs(ab - ba) <= 1e-9 * max(1, ab), "(\(lat), \(lon)) (\(lat2), \(lon2)): \(ab) vs \(ba)")
        }
        for lat in [-90.0, -45, 0, 45, 90] {
            // ±180° is one meridian: nothing but rounding (cos π and cos −π) between them.
            #expect(Geodesy.distance(lat1: lat, lon1: 180, lat2: lat, lon2: -180) < 1e-6)
        }
        // The pole is one point whatever its longitude.
        #expect(Geodesy.distance(lat1: 90, lon1: 0, lat2: 90, lon2: 123) < 1e-6)
        #expect(Geodesy.distance(lat1: -90, lon1: -45, lat2: -90, lon2: 180) < 1e-6)
        // A metre is a metre: 1e-5° of latitude at the equator is 1.1057 m.
        #expect(abs(Geodesy.distance(lat1: 0, lon1: 0, lat2: 0.00001, lon2: 0) - 1.105_74) < 1e-4)
    }

    /// `FenceIndex.leastDistance`, the bound of `--limit`'s nearest search, is never above the
    /// distance between two points whose chord it is given: on pairs anywhere, near antipodes,
    /// from 0 to 70 km (across the switch to Andoyer–Lambert at 50 km) and to near a pole. And
    /// it is close where the chord is not: from 0,0 to Switzerland, within 0.5% of the
    /// distance, where the chord's bound is 3% short (and a million fences there were all
    /// measured for a fix at 0,0).
    @Test func leastDistanceBoundsEveryDistance() {
        var g = FixGenerator(seed: 41)
        func anywhere() -> (Double, Double) { (asin(2 * g.unit() - 1) * 180 / .pi, 360 * g.unit() - 180) }
        func latitude(_ v: Double) -> Double { min(90, max(-90, v)) }
        var tightest = Double.infinity
        for k in 0..<200_000 {
            let p = anywhere()
            var q: (Double, Double)
            switch k % 4 {
            case 0: q = anywhere()
            case 1: q = (latitude(-p.0 + 4 * g.unit() - 2), p.1 + 180 + 4 * g.unit() - 2)
            case 2: q = (latitude(p.0 + g.unit() - 0.5), p.1 + g.unit() - 0.5)
            default: q = (89 + g.unit(), 360 * g.unit() - 180)
            }
            if q.1 > 180 { q.1 -= 360 }
            if q.1 < -180 { q.1 += 360 }
            let a = Geodesy.Point(lat: p.0, lon: p.1)
            let b = Geodesy.Point(lat: q.0, lon: q.1)
            let chord = FenceIndex.chordSquared(a, b.x, b.y, b.z).squareRoot()
            let d = Geodesy.distance(a, b)
            let bound = FenceIndex.leastDistance(chord: chord)
            guard d >= bound else {
                Issue.record("\(p) to \(q): distance \(d) m, bound \(bound) m")
                return
            }
            if d > 0 { tightest = min(tightest, (d - bound) / d) }
        }
        #expect(tightest >= 0)
        let zero = Geodesy.Point(lat: 0, lon: 0)
        let swiss = Geodesy.Point(lat: 47, lon: 8)
        let chord = FenceIndex.chordSquared(zero, swiss.x, swiss.y, swiss.z).squareRoot()
        let d = Geodesy.distance(zero, swiss)
        #expect(FenceIndex.leastDistance(chord: chord) > 0.995 * d)
        #expect(chord / FenceIndex.chordPerDistance < 0.975 * d)
    }
}
