import Foundation
import Testing

@testable import FixKit

/// Visits are stays: a slow walk is not one, and a stay broken by a short excursion is one.
/// The hikes come from a generator of this file (SplitMix64 with the Marsaglia polar method),
/// not from fixsim.
struct VisitsStayTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func uniform(_ a: Double = 0, _ b: Double = 1) -> Double {
            a + (b - a) * Double(next() >> 11) / Double(1 << 53)
        }
        mutating func normal() -> Double {
            while true {
                let u = uniform(-1, 1), v = uniform(-1, 1)
                let s = u * u + v * v
                if s > 0, s < 1 { return u * (-2 * Foundation.log(s) / s).squareRoot() }
            }
        }
    }

    /// A hike of `hours` at a steady pace in [0.2, 0.6] m/s, turning now and then, fixes every
    /// 1 to 15 s (the interval drawn per hike, then jittered by a second), 8 m of noise per axis
    /// (independent, or wandering with a 30 s time constant), with or without hacc.
    static func hike(seed: UInt64, hours: Double = 2) -> (fixes: [(lat: Double, lon: Double, hacc: Double?, t: Double)], speed: Double) {
        var g = Generator(state: seed)
        let speed = g.uniform(0.2, 0.6)
        let interval = g.uniform(1, 15)
        let correlated = g.uniform() < 0.5
        let withHacc = g.uniform() < 0.5
        let frame = LocalFrame(lat: 46.5, lon: 7.9)
        var (x, y, heading) = (0.0, 0.0, g.uniform(0, 2 * .pi))
        var (ex, ey) = (8 * g.normal(), 8 * g.normal())
        var t = 0.0
        var out: [(lat: Double, lon: Double, hacc: Double?, t: Double)] = []
        while t < hours * 3600 {
            let dt = max(1, interval + g.uniform(-1, 1))
            t += dt
            heading += g.normal() * 0.15
            if g.uniform() < 0.01 { heading += g.uniform(-2, 2) }  // a switchback
            x += speed * dt * sin(heading)
            y += speed * dt * cos(heading)
            let rho = correlated ? exp(-dt / 30) : 0
            ex = rho * ex + 8 * (1 - rho * rho).squareRoot() * g.normal()
            ey = rho * ey + 8 * (1 - rho * rho).squareRoot() * g.normal()
            let p = frame.degrees(east: x + ex, north: y + ey)
            out.append((p.lat, p.lon, withHacc ? 8 : nil, t))
        }
        return (out, speed)
    }

    @Test("Slow hikes (0.2-0.6 m/s, a fix every 1-15 s, 8 m of noise, no stop): no visit")
    func slowHikesAreNotVisits() {
        var written: [String] = []
        for seed in UInt64(1)...200 {
            let (fixes, speed) = Self.hike(seed: seed)
            var d = StayDetector(settings: StaySettings(), trace: nil)
            var visits: [Visit] = []
            for f in fixes {
                d.add(lat: f.lat, lon: f.lon, hacc: f.hacc, time: Timestamp(seconds: 1_767_258_000 + f.t)) { visits.append($0) }
            }
            d.finish { visits.append($0) }
            if !visits.isEmpty { written.append("seed \(seed) at \(speed) m/s: \(visits.count) visits") }
        }
        #expect(written.isEmpty, "\(written.count) of 200 hikes: \(written.prefix(10).joined(separator: "; "))")
    }

    /// The hiker stops for 20 minutes in the middle: that stop, and only it, is a visit.
    @Test("A slow hike with a 20 minute stop: one visit, at the stop")
    func slowHikeWithAStop() throws {
        var found = 0
        for seed in UInt64(1)...50 {
            let (fixes, _) = Self.hike(seed: seed, hours: 1)
            let stopAt = fixes.count / 2
            var d = StayDetector(settings: StaySettings(), trace: nil)
            var visits: [Visit] = []
            var g = Generator(state: seed &* 77)
            for (k, f) in fixes.enumerated() {
                d.add(lat: f.lat, lon: f.lon, hacc: f.hacc, time: Timestamp(seconds: 1_767_258_000 + f.t)) { visits.append($0) }
                if k == stopAt {
                    // Twenty minutes at this spot, a fix every 10 s, 8 m of fresh noise.
                    for s in stride(from: 10.0, through: 1200, by: 10) {
                        let (e, n) = (8 * g.normal(), 8 * g.normal())
                        let p = LocalFrame(lat: f.lat, lon: f.lon).degrees(east: e, north: n)
                        d.add(lat: p.lat, lon: p.lon, hacc: f.hacc, time: Timestamp(seconds: 1_767_258_000 + f.t + s)) { visits.append($0) }
                    }
                    break
                }
            }
            // The rest of the hike, shifted 20 minutes later.
            for f in fixes[(stopAt + 1)...] {
                d.add(lat: f.lat, lon: f.lon, hacc: f.hacc, time: Timestamp(seconds: 1_767_258_000 + f.t + 1200)) { visits.append($0) }
            }
            d.finish { visits.append($0) }
            #expect(visits.count == 1, "seed \(seed): \(visits.count) visits")
            if let v = visits.first {
                let stop = fixes[stopAt]
                #expect(Geodesy.distance(lat1: v.lat, lon1: v.lon, lat2: stop.lat, lon2: stop.lon) < 30, "seed \(seed)")
                let length = (v.departure?.seconds ?? 0) - (v.arrival?.seconds ?? 0)
                #expect(length >= 1200 && length < 1200 + 600, "seed \(seed): \(length) s")
                found += 1
            }
        }
        #expect(found == 50)
    }

    /// Two stays of ten minutes at one place, 2 minutes apart (a walk to the car park and back):
    /// one visit from the first arrival to the last departure, holding the fixes of both.
    @Test("Back-to-back stays less than --min-stay apart and within the radius: one visit")
    func backToBackStaysMerge() {
        let frame = LocalFrame(lat: 51.5, lon: -0.12)
        func run(_ excursion: Double, gap: Double) -> [Visit] {
            var d = StayDetector(settings: StaySettings(), trace: nil)
            var out: [Visit] = []
            var g = Generator(state: 9)
            func at(_ t: Double, _ e: Double, _ n: Double) {
                let p = frame.degrees(east: e + 3 * g.normal(), north: n + 3 * g.normal())
                d.add(lat: p.lat, lon: p.lon, hacc: 5, time: Timestamp(seconds: 1_767_258_000 + t)) { out.append($0) }
            }
            for t in stride(from: 0.0, through: 600, by: 10) { at(t, 0, 0) }
            // Out `excursion` metres and back over `gap` seconds, a fix every 5 s.
            let steps = Int(gap / 5)
            for k in 1..<steps {
                let f = Double(k) / Double(steps)
                at(600 + Double(k) * 5, excursion * (1 - abs(2 * f - 1)), 0)
            }
            for t in stride(from: 600 + gap, through: 1200 + gap, by: 10) { at(t, 0, 0) }
            // And away for good.
            for k in 1...40 { at(1200 + gap + Double(k) * 5, Double(k) * 7, 0) }
            d.finish { out.append($0) }
            return out
        }
        let merged = run(150, gap: 120)
        #expect(merged.count == 1, "\(merged)")
        if let v = merged.first {
            #expect(v.arrival == Timestamp(seconds: 1_767_258_000))
            #expect(v.departure == Timestamp(seconds: 1_767_258_000 + 1320))
            #expect(v.fixes == 61 + 61)
        }
        // Longer apart than --min-stay (300 s): two visits.
        #expect(run(150, gap: 400).count == 2)
    }

    /// The eTrex hike of the corpus, a fix every 15 s or so, had 14 visits in chains 16 s apart:
    /// those that are walks are gone; what is left are the real stops (lunch, the end, and
    /// pauses of about four minutes with their slow approach).
    @Test(.enabled(if: VisitsStayTests.etrex != nil, "../shared/corpus is absent: the eTrex hike is skipped"))
    func etrexHike() throws {
        let fixes = try Tools.run("gpx2fix", [try #require(Self.etrex).path])
        let r = try Tools.run("visits", [], stdin: fixes.stdout)
        let visits = try Tools.objects(r.stdout)
        print("garmin_etrex32_hike_error_1.gpx: \(visits.count) visits")
        #expect(visits.count == 6)
        // Lunch, an hour at one place, is still one visit.
        #expect(visits.contains { ($0["arrival"] as? String) == "2023-04-29T11:03:43Z" && ($0["departure"] as? String) == "2023-04-29T12:08:08Z" })
    }

    static let etrex = Tools.corpus?.appendingPathComponent(
        "gpx/ezgpx__tests__test_files__files__garmin_etrex32_hike_error_1.gpx")
}
