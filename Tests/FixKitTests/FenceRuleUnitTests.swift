import Foundation
import Testing

@testable import FixKit

/// FenceRuleSettings.step at its thresholds: the dwell, its reset, adaptive's movement (from
/// speed × time, and from displacement beyond the fixes' accuracy), --assume inside, naive;
/// then fencerule --trace as a user reads it.
struct FenceRuleUnitTests {
    let t0 = Timestamp.parse("2026-01-01T09:00:00Z")!

    /// A fix `seconds` after t0, `east` metres east of (51.5, -0.12), with an optional speed.
    func fix(_ seconds: Double, east: Double = 0, speed: Double? = nil, sigma: Double = 8) -> FixPoint {
        let (lat, lon) = LocalFrame(lat: 51.5, lon: -0.12).degrees(east: east, north: 0)
        return FixPoint(lat: lat, lon: lon, time: Timestamp(milliseconds: t0.milliseconds + Int64((seconds * 1000).rounded())), speed: speed, sigma: sigma)
    }

    /// Feeds one p per fix (fixes one second apart, standing still unless `fixes` says
    /// otherwise) and returns the event of each step.
    func run(_ settings: FenceRuleSettings, _ ps: [Double], fixes: [FixPoint]? = nil, distance: Double = 100, radius: Double = 100, start inside: Bool? = nil) -> [Bool?] {
        var state = FenceState(inside: inside ?? settings.assumeInside)
        let points = fixes ?? ps.indices.map { fix(Double($0)) }
        var previous: FixPoint? = fix(-1)
        var out: [Bool?] = []
        for (p, f) in zip(ps, points) {
            out.append(settings.step(&state, p: p, distance: distance, radius: radius, fix: f, previous: previous))
            previous = f
        }
        return out
    }

    func settings(_ kind: FenceRuleKind, dwell: Int = 3) -> FenceRuleSettings {
        var s = FenceRuleSettings()
        s.kind = kind
        s.dwell = dwell
        return s
    }

    @Test(arguments: [FenceRuleKind.confident, .adaptive])
    func entersExactlyAfterDwellFixes(_ kind: FenceRuleKind) {
        #expect(run(settings(kind), [0.95, 0.95, 0.95]) == [nil, nil, true])
        #expect(run(settings(kind, dwell: 1), [0.95]) == [true])
        #expect(run(settings(kind, dwell: 5), Array(repeating: 0.99, count: 6)) == [nil, nil, nil, nil, true, nil])
        // Exits the same way, and the state then holds.
        #expect(run(settings(kind), [0.05, 0.05, 0.05, 0.05], start: true) == [nil, nil, false, nil])
    }

    /// The thresholds are strict: P > enter, P < exit.
    @Test func thresholdsAreStrict() {
        let s = settings(.confident)
        #expect(run(s, [0.9, 0.9, 0.9, 0.9]) == [nil, nil, nil, nil])
        #expect(run(s, [0.9000001, 0.9000001, 0.9000001]) == [nil, nil, true])
        #expect(run(s, [0.1, 0.1, 0.1, 0.1], start: true) == [nil, nil, nil, nil])
        #expect(run(s, [0.0999999, 0.0999999, 0.0999999], start: true) == [nil, nil, false])
        // In between the thresholds nothing changes, whatever the state.
        #expect(run(s, Array(repeating: 0.5, count: 10)) == Array(repeating: nil, count: 10))
        #expect(run(s, Array(repeating: 0.5, count: 10), start: true) == Array(repeating: nil, count: 10))
    }

    @Test(arguments: [FenceRuleKind.confident, .adaptive])
    func nonContradictingFixResetsTheCount(_ kind: FenceRuleKind) {
        // Two contradicting, one not (even at p 0.9, not above), then the count starts again.
        #expect(run(settings(kind), [0.95, 0.95, 0.9, 0.95, 0.95, 0.95]) == [nil, nil, nil, nil, nil, true])
        #expect(run(settings(kind), [0.95, 0.95, 0.2, 0.95, 0.95, 0.95]) == [nil, nil, nil, nil, nil, true])
        #expect(run(settings(kind), [0.05, 0.05, 0.5, 0.05, 0.05, 0.05], start: true) == [nil, nil, nil, nil, nil, false])
        var state = FenceState(inside: false)
        let s = settings(kind)
        _ = s.step(&state, p: 0.95, distance: 50, radius: 100, fix: fix(0, speed: 1.4), previous: fix(-1, speed: 1.4))
        #expect(state.count == 1)
        _ = s.step(&state, p: 0.5, distance: 50, radius: 100, fix: fix(1, speed: 1.4), previous: fix(0, speed: 1.4))
        #expect(state.count == 0 && state.moved == 0 && state.anchor == nil)
    }

    /// adaptive ends the dwell once speed × time since the last fix before the evidence reaches
    /// --dwell-distance (20 m), and not a fix before.
    @Test(arguments: [(10.0, 2), (9.99, 3), (5, 4), (4.99, 5), (20, 1), (1.4, 10)])
    func adaptiveEndsDwellBySpeedTimesTime(_ speed: Double, _ expectedFix: Int) {
        let s = settings(.adaptive, dwell: 10)
        let fixes = (0..<12).map { fix(Double($0), east: Double($0) * speed, speed: speed) }
        let events = run(s, Array(repeating: 0.99, count: 12), fixes: fixes)
        #expect(events.firstIndex(where: { $0 != nil }) == expectedFix - 1, "speed \(speed): \(events)")
        #expect(events[expectedFix - 1] == true)
        // confident waits for the dwell whatever the speed.
        let c = run(settings(.confident, dwell: 10), Array(repeating: 0.99, count: 12), fixes: fixes)
        #expect(c.firstIndex(where: { $0 != nil }) == 9)
    }

    /// The time between fixes counts, not the number of fixes: two fixes 5 s apart at 4 m/s.
    @Test func adaptiveUsesTimeBetweenFixes() {
        let s = settings(.adaptive, dwell: 10)
        let fixes = [fix(0, speed: 4), fix(5, speed: 4)]
        #expect(run(s, [0.99, 0.99], fixes: fixes) == [nil, true])  // 4 × 1 (from t = −1), then + 4 × 5 = 24
        let slow = [fix(0, speed: 3), fix(5, speed: 3)]
        #expect(run(s, [0.99, 0.99], fixes: slow) == [nil, nil])  // 3 + 15 = 18 < 20
        // A custom --dwell-distance.
        var s50 = s
        s50.dwellDistance = 50
        let fast = (0..<6).map { fix(Double($0), speed: 10) }
        #expect(run(s50, Array(repeating: 0.99, count: 6), fixes: fast) == [nil, nil, nil, nil, true, nil])
    }

    /// Without speed, position noise alone never ends the dwell: 8 m fixes scattered by up to
    /// ±30 m (5σ·√2 ≈ 56.6 m is what noise may explain) wait for the full dwell.
    @Test func adaptiveIgnoresNoiseSizedDisplacement() {
        let s = settings(.adaptive, dwell: 10)
        var random = SeededRandom(seed: 42)
        var fixes: [FixPoint] = []
        for k in 0..<12 {
            fixes.append(fix(Double(k), east: 8 * random.gaussian() * 1.5, sigma: 8))
        }
        let events = run(s, Array(repeating: 0.99, count: 12), fixes: fixes)
        #expect(events.firstIndex(where: { $0 != nil }) == 9, "\(events)")
        // Jumps of 55 m back and forth, just inside what two 8 m fixes explain.
        let jumpy = (0..<12).map { fix(Double($0), east: $0 % 2 == 0 ? 0 : 55, sigma: 8) }
        #expect(run(s, Array(repeating: 0.99, count: 12), fixes: jumpy).firstIndex(where: { $0 != nil }) == 9)
        // Standing still with a reported speed of 0: no movement at all, even if the fixes jump.
        let standing = (0..<12).map { fix(Double($0), east: $0 % 2 == 0 ? 0 : 200, speed: 0, sigma: 8) }
        #expect(run(s, Array(repeating: 0.99, count: 12), fixes: standing).firstIndex(where: { $0 != nil }) == 9)
    }

    /// Without speed, displacement beyond the noise allowance does count: 30 m a fix with 8 m
    /// fixes reaches 90 − 56.6 = 33 m from the anchor at the third fix.
    @Test func adaptiveCountsDisplacementBeyondNoise() {
        let s = settings(.adaptive, dwell: 10)
        let fixes = (0..<12).map { fix(Double($0), east: 30 * Double($0 + 1), sigma: 8) }
        var state = FenceState(inside: false)
        var previous: FixPoint? = fix(-1, east: 0, sigma: 8)
        var events: [Bool?] = []
        for f in fixes {
            events.append(s.step(&state, p: 0.99, distance: 50, radius: 100, fix: f, previous: previous))
            previous = f
        }
        #expect(events == [nil, nil, true, nil, nil, nil, nil, nil, nil, nil, nil, nil])
        // With 2 m fixes the allowance is 14.1 m: 30 − 14.1 < 20 at the first fix, 60 − 14.1 at the second.
        let precise = (0..<4).map { fix(Double($0), east: 30 * Double($0 + 1), sigma: 2) }
        var st = FenceState(inside: false)
        previous = fix(-1, east: 0, sigma: 2)
        var ev: [Bool?] = []
        for f in precise {
            ev.append(s.step(&st, p: 0.99, distance: 50, radius: 100, fix: f, previous: previous))
            previous = f
        }
        #expect(ev == [nil, true, nil, nil])
    }

    @Test func assumeInside() {
        var s = settings(.confident)
        s.assumeInside = true
        // Starts inside: evidence of being inside changes nothing, three fixes outside exit.
        #expect(run(s, [0.99, 0.99, 0.99, 0.99]) == [nil, nil, nil, nil])
        #expect(run(s, [0.01, 0.01, 0.01]) == [nil, nil, false])
    }

    /// fencerule --assume inside on a walk that starts far from every fence: one exit per fence
    /// at the third fix, and nothing else; without it, nothing at all.
    @Test func assumeInsideEndToEnd() throws {
        let dir = try temporaryDirectory()
        let fences = dir.appendingPathComponent("f.json")
        try Data(#"[{"id":"a","lat":51.5,"lon":-0.12,"radius":100},{"id":"b","lat":51.51,"lon":-0.12,"radius":50}]"#.utf8).write(to: fences)
        let walk = try Tools.run("fixsim", ["--origin", "51.5,-0.12", "--route", "-3000,-3000:-2900,-3000"])
        #expect(walk.status == 0)
        let inside = try Tools.run("fencerule", ["--fences", fences.path, "--assume", "inside"], stdin: walk.stdout)
        #expect(inside.status == 0, "\(inside.stderr)")
        let events = try Tools.objects(inside.stdout)
        #expect(events.map { $0["event"] as? String } == ["exit", "exit"])
        #expect(Set(events.compactMap { $0["fence"] as? String }) == ["a", "b"])
        #expect(events.allSatisfy { $0["time"] as? String == "2026-01-01T09:00:02Z" })
        let outside = try Tools.run("fencerule", ["--fences", fences.path], stdin: walk.stdout)
        #expect(outside.status == 0 && outside.stdout.isEmpty)
    }

    /// naive: inside whenever d ≤ R, whatever p, flipping on every crossing.
    @Test func naiveFlips() {
        let s = settings(.naive)
        var state = FenceState(inside: false)
        let f = fix(0)
        let steps: [(Double, Double, Bool?)] = [
            (100.0001, 0.99, nil), (100, 0.0, true), (100, 0.99, nil), (100.0001, 0.99, false),
            (50, 0.0, true), (150, 1.0, false), (0, 0.5, true),
        ]
        for (d, p, expected) in steps {
            #expect(s.step(&state, p: p, distance: d, radius: 100, fix: f, previous: f) == expected, "d \(d)")
        }
    }

    /// --trace: every fix is written, with its own fields, and a "fences" object holding p,
    /// distance and inside for each fence with p ≥ 1e-12 (or held inside), in full precision;
    /// a far fence is absent.
    @Test func traceOutput() throws {
        let dir = try temporaryDirectory()
        let fences = dir.appendingPathComponent("f.json")
        try Data(#"[{"id":"shop","lat":51.5,"lon":-0.12,"radius":100},{"id":"far","lat":51.52,"lon":-0.12,"radius":100}]"#.utf8).write(to: fences)
        let walk = try Tools.run("fixsim", ["--origin", "51.5,-0.12", "--route", "-250,0:250,0", "--seed", "5"])
        let fixes = try Tools.objects(walk.stdout)
        let traced = try Tools.run("fencerule", ["--fences", fences.path, "--trace"], stdin: walk.stdout)
        #expect(traced.status == 0, "\(traced.stderr)")
        let events = try Tools.objects(try Tools.run("fencerule", ["--fences", fences.path], stdin: walk.stdout).stdout)
        #expect(events.map { $0["event"] as? String } == ["enter", "exit"])
        let enterTime = events.first?["time"] as? String ?? ""
        let exitTime = events.last?["time"] as? String ?? ""
        let out = try Tools.objects(traced.stdout)
        try #require(out.count == fixes.count)
        var sawAbsent = false
        for (input, line) in zip(fixes, out) {
            for (key, value) in input {
                #expect("\(line[key] ?? "missing")" == "\(value)", "\(key) changed")
            }
            let map = try #require(line["fences"] as? [String: Any], "no fences object: \(line)")
            #expect(map["far"] == nil)
            let lat = try #require(line["lat"] as? Double)
            let lon = try #require(line["lon"] as? Double)
            let d = Geodesy.distance(lat1: lat, lon1: lon, lat2: 51.5, lon2: -0.12)
            let p = InsideProbability.p(distance: d, radius: 100, sigma: 8)
            let time = line["time"] as? String ?? ""
            let heldInside = time >= enterTime && time < exitTime
            guard let entry = map["shop"] as? [String: Any] else {
                #expect(p < 1.001e-12 && !heldInside, "shop missing at \(time), p \(p)")
                sawAbsent = true
                continue
            }
            #expect(p >= 0.999e-12 || heldInside, "p \(p) reported at \(time)")
            #expect(Set(entry.keys) == ["p", "distance", "inside"])
            // Foundation's JSON parser on Linux may miss the last bit or two of a double, so
            // the fix read back (and the distance and p from it) agree to 1e-9, not bit for bit.
            let tp = try #require(entry["p"] as? Double)
            let td = try #require(entry["distance"] as? Double)
            #expect(abs(td - d) <= 1e-9 * d, "distance \(td) vs \(d)")
            #expect(abs(tp - p) <= 1e-9 * p + 1e-15, "p \(tp) vs \(p)")
            #expect(entry["inside"] as? Bool == heldInside, "at \(time)")
        }
        #expect(sawAbsent, "the walk should start and end beyond 1e-12")
    }

    /// --trace for a fix among more fences than one piece of its line holds (256 entries, the
    /// line being written a piece at a time): a hacc of 20-30 km among 1,500 fences within 4 km
    /// gives every fence p ≥ 1e-12, and each line is one JSON object with the fix's own
    /// members, as written (white space before its `}` too), and a "fences" object of exactly
    /// those fences, each with the p and distance worked out here.
    @Test func traceOfManyFences() throws {
        let dir = try temporaryDirectory()
        let path = dir.appendingPathComponent("f.json")
        var r = FenceIndexBruteForceTests.Random(1_500)
        let fences = (0..<1_500).map { k -> Fence in
            let c = FenceIndexBruteForceTests.point(
                (47.0, 8.0), east: r.range(-4_000, 4_000), north: r.range(-4_000, 4_000))
            return Fence(id: "f\(k)", lat: c.0, lon: c.1, radius: r.range(50, 200))
        }
        let json = fences.map { #"{"id":"\#($0.id)","lat":\#($0.lat),"lon":\#($0.lon),"radius":\#($0.radius)}"# }
        try Data(("[" + json.joined(separator: ",\n") + "]").utf8).write(to: path)
        let lines = [
            #"{"lat":47.0,"lon":8.0,"hacc":30000 }"#,
            #"{"time":"2026-01-02T10:00:00Z","lat":47.001,"lon":8.002,"hacc":20000,"trace":"x"}"#,
            #"{"lat":47.002,"lon":7.999,"hacc":25000}  "#,
        ]
        let traced = try Tools.run(
            "fencerule", ["--fences", path.path, "--trace"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(traced.status == 0, "\(traced.stderr)")
        let out = String(decoding: traced.stdout, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        try #require(out.count == lines.count + 1 && out[lines.count].isEmpty, "a line a fix")
        for (input, line) in zip(lines, out) {
            // The fix's own members, byte for byte, up to its last `}`, then the fences, then the
            // rest of the line as it was.
            let close = try #require(input.lastIndex(of: "}"))
            #expect(line.hasPrefix(input[..<close] + #","fences":{"#), "\(line.prefix(120))")
            #expect(line.hasSuffix("}}" + input[close...]), "\(line.suffix(40))")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let map = try #require(object["fences"] as? [String: [String: Any]])
            let lat = try #require(object["lat"] as? Double)
            let lon = try #require(object["lon"] as? Double)
            let sigma = try #require(object["hacc"] as? Double)
            #expect(map.count == fences.count)
            for f in fences {
                let entry = try #require(map[f.id], "\(f.id) missing")
                let d = Geodesy.distance(lat1: lat, lon1: lon, lat2: f.lat, lon2: f.lon)
                let p = InsideProbability.p(distance: d, radius: f.radius, sigma: sigma)
                #expect(p >= 1e-12)
                let td = try #require(entry["distance"] as? Double)
                let tp = try #require(entry["p"] as? Double)
                #expect(abs(td - d) <= 1e-9 * d, "\(f.id): distance \(td) vs \(d)")
                #expect(abs(tp - p) <= 1e-9 * p, "\(f.id): p \(tp) vs \(p)")
                #expect(entry["inside"] as? Bool == false)
            }
        }
    }

    func temporaryDirectory() throws -> URL {
        let dir = TestScratch.root.appendingPathComponent("fence-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}
