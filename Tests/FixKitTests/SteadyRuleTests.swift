import Foundation
import Testing

@testable import FixKit

/// `fencerule --rule steady` under a first-order Gauss–Markov position error made here (not by
/// fixsim), by the method of Tests/oracle/steady_eval.py and the figures fencerule(1) gives:
/// a 100 m fence, σ = 8 m per axis, hacc 8, one fix a second, Doppler speed the true speed plus
/// N(0, 0.1²) clamped at 0; and the exit event's `duration`.
struct SteadyRuleTests {
    static let centre = (lat: 51.5, lon: -0.12)
    static let sigma = 8.0
    static let frame = LocalFrame(lat: centre.lat, lon: centre.lon)

    /// One axis of error: x₀ ~ N(0, σ²), x' = e^{−Δt/τ} x + σ√(1 − e^{−2Δt/τ}) n (τ = 0:
    /// independent), exactly discretised.
    static func gaussMarkov(_ r: inout FenceIndexBruteForceTests.Random, count: Int, tau: Double) -> [Double] {
        var x = sigma * r.gauss()
        var out = [x]
        let phi = tau > 0 ? exp(-1 / tau) : 0
        let q = sigma * (1 - phi * phi).squareRoot()
        for _ in 1..<count {
            x = phi * x + q * r.gauss()
            out.append(x)
        }
        return out
    }

    /// Fixes along a true track (metres east and north of the centre), one a second.
    static func fixes(
        _ r: inout FenceIndexBruteForceTests.Random, east: [Double], north: [Double], speed: Double, tau: Double,
        withSpeed: Bool, outliers: Double = 0
    ) -> [FixPoint] {
        let ex = gaussMarkov(&r, count: east.count, tau: tau)
        let ny = gaussMarkov(&r, count: east.count, tau: tau)
        return east.indices.map { k in
            var e = east[k] + ex[k]
            var n = north[k] + ny[k]
            if outliers > 0, r.chance(outliers) {
                let theta = r.range(0, 2 * .pi)
                e += 200 * sin(theta)
                n += 200 * cos(theta)
            }
            let p = frame.degrees(east: e, north: n)
            let v = max(0, speed + 0.1 * r.gauss())
            return FixPoint(
                lat: p.lat, lon: p.lon, time: Timestamp(seconds: 1_767_258_000 + Double(k)), speed: withSpeed ? v : nil,
                sigma: sigma)
        }
    }

    /// The enter (true) and exit (false) events, with their fix numbers, of one trace.
    static func transitions(_ fixes: [FixPoint], _ kind: FenceRuleKind) -> [(Int, Bool)] {
        var settings = FenceRuleSettings()
        settings.kind = kind
        let engine = FenceEngine(
            index: FenceIndex([Fence(id: "fence", lat: centre.lat, lon: centre.lon, radius: 100)]), settings: settings,
            limit: nil)
        var state = TraceFences()
        var out: [(Int, Bool)] = []
        for (i, f) in fixes.enumerated() {
            for e in engine.process(f, trace: &state) {
                switch e {
                case .enter: out.append((i, true))
                case .exit: out.append((i, false))
                default: break
                }
            }
        }
        return out
    }

    /// Standing an hour at 90–110 m from the centre: with speed at most one transition in the
    /// hour (a stand is one still stretch, changed at most once), without speed at most 2 an
    /// hour on average (issue 12's target; fencerule(1) measured 0.95); and, where the error
    /// wanders (τ ≥ 10 s), far fewer than confident makes on the same fixes.
    @Test(arguments: [0.0, 10, 30, 60])
    func standingStillNearTheEdge(tau: Double) {
        var r = FenceIndexBruteForceTests.Random(UInt64(100 + tau))
        var steadyWith = 0
        var steadyWithout = 0
        var confident = 0
        var hours = 0
        for d in [90.0, 95, 100, 105, 110] {
            let east = [Double](repeating: d, count: 3600)
            let north = [Double](repeating: 0, count: 3600)
            let withSpeed = Self.fixes(&r, east: east, north: north, speed: 0, tau: tau, withSpeed: true)
            let s = Self.transitions(withSpeed, .steady)
            #expect(s.count <= 1, "τ \(tau), \(d) m, with speed: \(s.count) transitions in an hour")
            steadyWith += s.count
            confident += Self.transitions(withSpeed, .confident).count
            let without = Self.fixes(&r, east: east, north: north, speed: 0, tau: tau, withSpeed: false)
            let n = Self.transitions(without, .steady)
            steadyWithout += n.count
            // A transition is a change of state: they alternate, starting with an enter.
            #expect(n.enumerated().allSatisfy { $0.element.1 == ($0.offset % 2 == 0) })
            hours += 1
        }
        #expect(
            Double(steadyWithout) / Double(hours) <= 2,
            "τ \(tau): \(steadyWithout) transitions in \(hours) hours without speed")
        if tau >= 10 {
            // Issue 12 measured confident at 5–30 an hour here; steady must be far below it.
            #expect(
                confident >= 20, "τ \(tau): confident made only \(confident) transitions: the error does not wander")
            #expect(steadyWith * 10 <= confident, "τ \(tau): steady \(steadyWith), confident \(confident)")
            #expect(
                steadyWithout * 4 <= confident,
                "τ \(tau): steady without speed \(steadyWithout), confident \(confident)")
        }
    }

    /// Walks through the centre from 300 m before it to 300 m past: exactly one enter and then
    /// one exit, at 1.4 and 15 m/s, at every τ, and with 2% of fixes thrown 200 m.
    @Test(arguments: [0.0, 10, 30, 60])
    func crossingGivesOneEnterAndOneExit(tau: Double) {
        var r = FenceIndexBruteForceTests.Random(UInt64(200 + tau))
        for speed in [1.4, 15] {
            for outliers in [0.0, 0.02] {
                for walk in 0..<12 {
                    let n = Int(600 / speed) + 1
                    let east = (0..<n).map { -300 + speed * Double($0) }
                    let fixes = Self.fixes(
                        &r, east: east, north: [Double](repeating: 0, count: n), speed: speed, tau: tau,
                        withSpeed: true,
                        outliers: outliers)
                    let t = Self.transitions(fixes, .steady)
                    #expect(
                        t.map(\.1) == [true, false],
                        "τ \(tau), \(speed) m/s, outliers \(outliers), walk \(walk): \(t)")
                    // And near the edges: the enter after the true edge at −100 m, within 60 m of it.
                    if let enter = t.first, t.count == 2 {
                        let x = east[enter.0]
                        #expect(x > -100 - 3 * Self.sigma && x < -40, "enter at \(x) m")
                        let out = east[t[1].0]
                        #expect(out > 100 - 3 * Self.sigma && out < 160, "exit at \(out) m")
                    }
                }
            }
        }
    }

    /// Walking past at 95 m from the centre (inside the fence for 62 m, at most 5 m deep): no more transitions
    /// than confident makes on the same fixes, at every τ (issue 12's target).
    @Test(arguments: [0.0, 10, 30, 60])
    func skirtingNoWorseThanConfident(tau: Double) {
        var r = FenceIndexBruteForceTests.Random(UInt64(300 + tau))
        var steady = 0
        var confident = 0
        for _ in 0..<15 {
            let n = Int(600 / 1.4) + 1
            let east = (0..<n).map { -300 + 1.4 * Double($0) }
            let fixes = Self.fixes(
                &r, east: east, north: [Double](repeating: 95, count: n), speed: 1.4, tau: tau, withSpeed: true)
            steady += Self.transitions(fixes, .steady).count
            confident += Self.transitions(fixes, .confident).count
        }
        #expect(steady <= confident, "τ \(tau): steady \(steady), confident \(confident) over 15 walks")
    }

    /// The same through the tools: fixsim --noise-tau makes the wandering error (and the
    /// Doppler speed), fencerule reads it. Three hours standing on the edge of the fence: steady
    /// changes each trace at most once, confident many times.
    @Test(arguments: [10.0, 60])
    func fixsimStandingOnTheEdge(tau: Double) throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fences = dir.appendingPathComponent("f.json")
        try #"[{"id":"fence","lat":\#(Self.centre.lat),"lon":\#(Self.centre.lon),"radius":100}]"#.write(
            to: fences, atomically: false, encoding: .utf8)
        let sim = try Tools.run(
            "fixsim",
            [
                "--origin", "\(Self.centre.lat),\(Self.centre.lon)", "--route", "100,0", "--pause", "3600", "--noise",
                "8",
                "--noise-tau", "\(tau)", "--traces", "3", "--seed", "\(Int(tau))",
            ])
        #expect(sim.status == 0, "\(sim.stderr)")
        #expect(sim.lines.count == 3 * 3601)
        var counts: [String: [String: Int]] = [:]
        for rule in ["steady", "confident"] {
            let run = try Tools.run("fencerule", ["--fences", fences.path, "--rule", rule], stdin: sim.stdout)
            #expect(run.status == 0, "\(run.stderr)")
            for e in try Tools.objects(run.stdout) {
                counts[rule, default: [:]][e["trace"] as? String ?? "?", default: 0] += 1
            }
        }
        let steady = counts["steady"] ?? [:]
        let confident = (counts["confident"] ?? [:]).values.reduce(0, +)
        #expect(steady.values.allSatisfy { $0 <= 1 }, "τ \(tau): steady \(steady)")
        #expect(
            confident >= 10 && steady.values.reduce(0, +) * 10 <= confident,
            "τ \(tau): steady \(steady), confident \(confident)")
    }

    // MARK: duration

    static func line(_ seconds: Double?, east: Double) -> String {
        let p = frame.degrees(east: east, north: 0)
        var time = ""
        if let seconds {
            var b: [UInt8] = []
            Timestamp(seconds: 1_767_258_000 + seconds).write(into: &b)
            time = #""time":"\#(String(decoding: b, as: UTF8.self))","#
        }
        return #"{\#(time)"lat":\#(p.lat),"lon":\#(p.lon),"hacc":5}"#
    }

    static func run(_ lines: [String], _ extra: [String] = []) throws -> [[String: Any]] {
        let dir = TestScratch.root.appendingPathComponent("fixkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fences = dir.appendingPathComponent("f.json")
        try #"[{"id":"fence","lat":\#(centre.lat),"lon":\#(centre.lon),"radius":100}]"#.write(
            to: fences, atomically: false, encoding: .utf8)
        let run = try Tools.run(
            "fencerule", ["--fences", fences.path] + extra, stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        return try Tools.objects(run.stdout)
    }

    /// Seconds since the epoch of an event's `time` (whole seconds, as written here).
    static func seconds(_ e: [String: Any]) -> Double? {
        guard let s = e["time"] as? String else { return nil }
        let f = ISO8601DateFormatter()
        return f.date(from: s).map { $0.timeIntervalSince1970 }
    }

    /// In and out several times with irregular gaps between fixes: every exit's duration is its
    /// time minus the matching enter's, for every rule.
    @Test(arguments: ["naive", "confident", "adaptive", "steady"])
    func durationIsExitTimeMinusEnterTime(rule: String) throws {
        var lines: [String] = []
        var t = 0.0
        var r = FenceIndexBruteForceTests.Random(5)
        for visit in 0..<4 {
            for _ in 0..<(5 + visit) {
                lines.append(Self.line(t, east: 300))
                t += r.range(1, 30).rounded()
            }
            for _ in 0..<(6 + 3 * visit) {
                lines.append(Self.line(t, east: 0))
                t += r.range(1, 90).rounded()
            }
        }
        lines.append(Self.line(t, east: 300))
        for _ in 0..<4 {
            t += 7
            lines.append(Self.line(t, east: 300))
        }
        let events = try Self.run(lines, ["--rule", rule])
        #expect(
            events.map { $0["event"] as? String ?? "?" }
                == Array(repeating: ["enter", "exit"], count: 4).flatMap { $0 })
        for pair in stride(from: 0, to: events.count - 1, by: 2) {
            let enter = try #require(Self.seconds(events[pair]))
            let exit = try #require(Self.seconds(events[pair + 1]))
            #expect(events[pair]["duration"] == nil)
            #expect(events[pair + 1]["duration"] as? Double == exit - enter)
        }
    }

    /// No duration where a time is missing: an enter at a fix without a time, an exit at a fix
    /// without one, and an exit under --assume inside that no enter preceded.
    @Test func durationAbsentWhenATimeIsMissing() throws {
        // naive decides on the fix itself: the enter is the first fix inside, the exit the
        // first outside.
        let enterUntimed = try Self.run(
            [Self.line(0, east: 300), Self.line(nil, east: 0), Self.line(5, east: 0), Self.line(9, east: 300)],
            ["--rule", "naive"])
        #expect(enterUntimed.map { $0["event"] as? String } == ["enter", "exit"])
        #expect(enterUntimed.last?["duration"] == nil && enterUntimed.last?["time"] != nil)
        let exitUntimed = try Self.run(
            [Self.line(0, east: 300), Self.line(3, east: 0), Self.line(nil, east: 300)], ["--rule", "naive"])
        #expect(exitUntimed.map { $0["event"] as? String } == ["enter", "exit"])
        #expect(exitUntimed.last?["duration"] == nil && exitUntimed.last?["time"] == nil)
        let assumed = try Self.run(
            [
                Self.line(0, east: 300), Self.line(1, east: 300), Self.line(2, east: 300), Self.line(3, east: 0),
                Self.line(4, east: 0), Self.line(5, east: 0), Self.line(6, east: 300), Self.line(7, east: 300),
                Self.line(8, east: 300),
            ],
            ["--assume", "inside"])
        #expect(assumed.map { $0["event"] as? String } == ["exit", "enter", "exit"])
        #expect(assumed.first?["duration"] == nil)
        let second = try #require(Self.seconds(assumed[1]))
        let third = try #require(Self.seconds(assumed[2]))
        #expect(assumed[2]["duration"] as? Double == third - second)
        #expect(third - second == 3)  // the enter at 5 s, the exit at 8 s (dwell 3)
    }
}
