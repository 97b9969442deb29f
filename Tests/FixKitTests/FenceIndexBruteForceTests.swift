import Foundation
import Testing

@testable import FixKit

/// fencerule's index, its pruning and `--limit` against a brute-force evaluation of every
/// fence for every fix (issue 11): for generated fence sets (radii from 5 m to 2,000 km,
/// clustered and spread, near the poles and the antimeridian) and generated fix streams (hacc
/// from 2 m to 500 km, glitches at 0,0, jumps across continents), with every rule, with and
/// without `--assume inside`, under `--limit N` and with `--trace`, the events (and the fences
/// --trace reports) of `FenceEngine` equal those of the reference below, which looks at every
/// fence and uses no index.
struct FenceIndexBruteForceTests {
    /// The reference: every fence's state kept, every (watched) fence stepped by the rule for
    /// every fix, P from `InsideProbability.p`; under a limit, the N−1 nearest edges found by
    /// sorting all fences, as fencerule(1) describes the budget.
    struct Brute {
        let fences: [Fence]
        let centres: [Geodesy.Point]
        let settings: FenceRuleSettings
        let limit: Int?
        var states: [FenceState]
        var previous: FixPoint?
        var still = StillPool()
        var watched: Set<Int> = []
        var refresh: (lat: Double, lon: Double, radius: Double)?
        var selected = false
        var missedInside: Set<Int> = []

        init(_ fences: [Fence], settings: FenceRuleSettings, limit: Int?) {
            self.fences = fences
            centres = fences.map { Geodesy.Point(lat: $0.lat, lon: $0.lon) }
            self.settings = settings
            self.limit = limit
            states = fences.map { _ in FenceState(inside: settings.assumeInside && limit == nil) }
        }

        mutating func process(_ fix: FixPoint, trace: inout [String]) -> [String] {
            var events: [String] = []
            let here = Geodesy.Point(lat: fix.lat, lon: fix.lon)
            if let limit {
                let leave =
                    !selected
                    || refresh.map {
                        Geodesy.distance(lat1: fix.lat, lon1: fix.lon, lat2: $0.lat, lon2: $0.lon) > $0.radius
                    }
                        ?? false
                if leave {
                    selected = true
                    let order = fences.indices.map { ($0, Geodesy.distance(centres[$0], here) - fences[$0].radius) }
                        .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
                    let held = fences.indices.filter { states[$0].inside && !settings.assumeInside }
                    var chosen = Array(held.prefix(limit - 1))
                    for (k, _) in order where chosen.count < limit - 1 && !chosen.contains(k) { chosen.append(k) }
                    let next = order.first { !chosen.contains($0.0) }
                    for k in fences.indices where !chosen.contains(k) { states[k] = FenceState(inside: false) }
                    if settings.assumeInside {
                        for k in chosen where !watched.contains(k) { states[k] = FenceState(inside: true) }
                    }
                    watched = Set(chosen)
                    refresh = next.map { (fix.lat, fix.lon, max(50, $0.1)) }
                    events.append("reselect \(chosen.sorted()) \(refresh.map { "\($0.radius)" } ?? "-")")
                }
            }
            let steady = settings.kind == .steady ? settings.observe(fix, previous: previous, pool: &still) : nil
            for k in fences.indices where limit == nil || watched.contains(k) {
                let f = fences[k]
                let d = Geodesy.distance(here, centres[k])
                var p = InsideProbability.p(distance: d, radius: f.radius, sigma: fix.sigma)
                var s = states[k]
                let change: Bool?
                if let steady {
                    if let pooled = steady.position {
                        p = InsideProbability.p(
                            distance: Geodesy.distance(pooled, centres[k]), radius: f.radius, sigma: steady.sigma)
                    }
                    change = settings.steadyStep(&s, p: p, observation: steady, fix: fix, previous: previous)
                } else {
                    change = settings.step(&s, p: p, distance: d, radius: f.radius, fix: fix, previous: previous)
                }
                if let change {
                    if change {
                        s.enteredAt = fix.time
                        events.append("enter \(k) \(d) \(p)")
                    } else {
                        let duration = fix.time.flatMap { t in s.enteredAt.map { t.seconds - $0.seconds } }
                        s.enteredAt = nil
                        events.append("exit \(k) \(d) \(p) \(duration.map { "\($0)" } ?? "-")")
                    }
                }
                states[k] = s
                if p >= FenceEngine.traceThreshold || s.inside { trace.append("\(k) \(p) \(d) \(s.inside)") }
            }
            if limit != nil {
                let inside = fences.indices.filter { Geodesy.distance(here, centres[$0]) <= fences[$0].radius }
                missedInside.formIntersection(inside)
                for k in inside where !watched.contains(k) && !missedInside.contains(k) {
                    missedInside.insert(k)
                    let d = Geodesy.distance(here, centres[k])
                    events.append(
                        "missed \(k) \(d) \(InsideProbability.p(distance: d, radius: fences[k].radius, sigma: fix.sigma))"
                    )
                }
            }
            previous = fix
            return events
        }
    }

    static func text(_ e: FenceEvent) -> String {
        switch e {
        case .enter(let k, let d, let p): return "enter \(k) \(d) \(p)"
        case .exit(let k, let d, let p, let duration): return "exit \(k) \(d) \(p) \(duration.map { "\($0)" } ?? "-")"
        case .reselect(let ks, let r): return "reselect \(ks) \(r.map { "\($0)" } ?? "-")"
        case .missed(let k, let d, let p): return "missed \(k) \(d) \(p)"
        }
    }

    // MARK: generated inputs

    struct Random {
        var g: FixGenerator
        init(_ seed: UInt64) { g = FixGenerator(seed: seed) }
        mutating func unit() -> Double { g.unit() }
        mutating func range(_ a: Double, _ b: Double) -> Double { a + (b - a) * g.unit() }
        mutating func logRange(_ a: Double, _ b: Double) -> Double { exp(range(log(a), log(b))) }
        mutating func chance(_ p: Double) -> Bool { g.chance(p) }
        mutating func int(_ n: Int) -> Int { Int(g.nextUInt() % UInt64(n)) }
        mutating func gauss() -> Double {
            let u = max(g.unit(), 1e-300)
            return (-2 * log(u)).squareRoot() * cos(2 * .pi * g.unit())
        }
    }

    /// Places where fences cluster: cities, both poles, both sides of the antimeridian, null island.
    static let places: [(Double, Double)] = [
        (51.5, -0.12), (40.4, -3.7), (41.9, 12.5), (89.995, 30), (-89.99, -120), (0.3, 179.9995),
        (-16.5, -179.999), (0.002, -0.001), (64.1, -21.9), (-33.9, 151.2),
    ]

    static func point(_ c: (Double, Double), east: Double, north: Double) -> (Double, Double) {
        let p = LocalFrame(lat: c.0, lon: c.1).degrees(east: east, north: north)
        return (p.lat, p.lon)
    }

    /// Clusters of small fences around some of the places, fences spread over the globe with
    /// radii from 5 m to 2,000 km, and one fence of 2,000 km.
    static func fenceSet(_ r: inout Random) -> (fences: [Fence], hubs: [(Double, Double)]) {
        var fences: [Fence] = []
        var hubs: [(Double, Double)] = []
        for _ in 0..<(2 + r.int(3)) {
            let hub = places[r.int(places.count)]
            hubs.append(hub)
            let spread = r.logRange(50, 5000)
            for _ in 0..<(5 + r.int(20)) {
                let c = point(hub, east: r.gauss() * spread, north: r.gauss() * spread)
                fences.append(Fence(id: "f\(fences.count)", lat: c.0, lon: c.1, radius: r.logRange(5, 500)))
            }
        }
        for _ in 0..<(5 + r.int(10)) {
            let lat = asin(r.range(-1, 1)) * 180 / .pi
            fences.append(
                Fence(id: "f\(fences.count)", lat: lat, lon: r.range(-180, 180), radius: r.logRange(5, 2_000_000)))
        }
        let hub = hubs[0]
        let big = point(hub, east: r.range(-3e6, 3e6), north: r.range(-1e6, 1e6))
        fences.insert(Fence(id: "big", lat: big.0, lon: big.1, radius: 2_000_000), at: r.int(fences.count))
        return (fences, hubs)
    }

    /// A user walking, driving and standing around the hubs: hacc mostly 2–30 m, sometimes up
    /// to 500 km; glitch fixes at 0,0; jumps to another hub; Doppler speed on all, some or no
    /// fixes; a few fixes without a time.
    static func fixStream(_ r: inout Random, hubs: [(Double, Double)], count: Int) -> [FixPoint] {
        var fixes: [FixPoint] = []
        var at = point(hubs[r.int(hubs.count)], east: r.gauss() * 300, north: r.gauss() * 300)
        let speedMode = r.int(3)  // 0: none, 1: all, 2: most
        var still = 0
        var velocity = (0.0, 0.0)
        var t = 1_700_000_000.0
        for _ in 0..<count {
            t += 1
            if still > 0 {
                still -= 1
                velocity = (0, 0)
            } else if r.chance(0.05) {
                still = 5 + r.int(40)
            } else if r.chance(0.1) {
                let v = r.chance(0.2) ? 15.0 : 1.4
                let h = r.range(0, 2 * .pi)
                velocity = (v * cos(h), v * sin(h))
            }
            if r.chance(0.01) { at = point(hubs[r.int(hubs.count)], east: r.gauss() * 200, north: r.gauss() * 200) }
            at = point(at, east: velocity.0, north: velocity.1)
            var hacc: Double
            switch r.int(20) {
            case 0: hacc = r.logRange(2000, 500_000)
            case 1: hacc = r.logRange(30, 2000)
            case 2: hacc = 500_000
            default: hacc = r.range(2, 30)
            }
            if r.chance(0.01) { hacc = 0 }
            let noise = min(hacc, 3000) * 0.8
            var p = point(at, east: r.gauss() * noise, north: r.gauss() * noise)
            if r.chance(0.02) { p = (0, 0) }  // null island
            let speed: Double? =
                speedMode == 0 || (speedMode == 2 && r.chance(0.2))
                ? nil : (still > 0 ? r.range(0, 0.3) : (velocity.0 * velocity.0 + velocity.1 * velocity.1).squareRoot())
            let time: Timestamp? = r.chance(0.03) ? nil : Timestamp(seconds: t)
            fixes.append(FixPoint(lat: p.0, lon: p.1, time: time, speed: speed, sigma: hacc))
        }
        return fixes
    }

    /// Runs the engine and the reference over the same fixes; returns the number of events.
    /// `engine`: the one to run, for a caller that reads its neighbourhood counts after (one is
    /// made from the fences otherwise).
    @discardableResult
    static func compare(
        fences: [Fence], fixes: [FixPoint], settings: FenceRuleSettings, limit: Int?, trace: Bool,
        engine given: FenceEngine? = nil, _ label: String
    ) -> Int {
        let engine = given ?? FenceEngine(index: FenceIndex(fences), settings: settings, limit: limit)
        var brute = Brute(fences, settings: settings, limit: limit)
        var state = TraceFences()
        var total = 0
        for (i, fix) in fixes.enumerated() {
            var reported: [String] = []
            let events: [FenceEvent]
            if trace {
                events = engine.process(fix, trace: &state) { k, p, d, inside in
                    reported.append("\(k) \(p) \(d) \(inside)")
                }
            } else {
                events = engine.process(fix, trace: &state)
            }
            var expectedTrace: [String] = []
            let expected = brute.process(fix, trace: &expectedTrace)
            let got = events.map(text)
            total += got.count
            guard got == expected else {
                Issue.record(
                    "\(label), fix \(i) (\(fix.lat), \(fix.lon), hacc \(fix.sigma), speed \(fix.speed.map { "\($0)" } ?? "-")): engine \(got), every fence \(expected)"
                )
                return total
            }
            if trace, reported != expectedTrace {
                Issue.record(
                    "\(label), fix \(i): --trace reports \(Set(reported).symmetricDifference(expectedTrace).sorted())")
                return total
            }
        }
        return total
    }

    static func settings(_ kind: FenceRuleKind, assume: Bool) -> FenceRuleSettings {
        var s = FenceRuleSettings()
        s.kind = kind
        s.assumeInside = assume
        return s
    }

    static let kinds: [FenceRuleKind] = [.naive, .confident, .adaptive, .steady]

    /// Generated sets and streams, every rule, both starts, no limit and limits 2, 3 and 8,
    /// with and without --trace.
    @Test(arguments: kinds, [false, true])
    func generatedInputsMatchEveryFence(kind: FenceRuleKind, assume: Bool) {
        var events = 0
        for seed in UInt64(1)...4 {
            var r = Random(seed * 7919 + UInt64(Self.kinds.firstIndex(of: kind)!) * 31 + (assume ? 1 : 0))
            let (fences, hubs) = Self.fenceSet(&r)
            let fixes = Self.fixStream(&r, hubs: hubs, count: 160)
            for limit in [nil, 2, 3, 8] as [Int?] {
                for trace in [false, true] where trace == (seed % 2 == 0) || limit == nil {
                    events += Self.compare(
                        fences: fences, fixes: fixes, settings: Self.settings(kind, assume: assume), limit: limit,
                        trace: trace,
                        "\(kind) assume \(assume) seed \(seed) limit \(limit.map(String.init) ?? "-") trace \(trace)")
                }
            }
        }
        // The inputs must make the rules act, or the comparison says nothing.
        #expect(events > 50, "only \(events) events")
    }

    /// London fences; fixes walking among them, a fix at 0,0 (a receiver glitch), one with hacc
    /// 500 km, and back.
    static func londonCase() -> (fences: [Fence], fixes: [FixPoint]) {
        var r = Random(11)
        var fences: [Fence] = []
        for _ in 0..<30 {
            let c = point((51.5, -0.12), east: r.range(-2000, 2000), north: r.range(-2000, 2000))
            fences.append(Fence(id: "f\(fences.count)", lat: c.0, lon: c.1, radius: r.range(5, 150)))
        }
        fences.append(Fence(id: "big", lat: 48.0, lon: 2.0, radius: 2_000_000))
        var fixes: [FixPoint] = []
        let walk = fences[3]
        for i in 0..<60 {
            let t = Timestamp(seconds: 1_700_000_000 + Double(i))
            var p = point((walk.lat, walk.lon), east: Double(i - 30) * 5, north: r.gauss() * 3)
            var hacc = 8.0
            if i == 20 || i == 21 { p = (0, 0) }
            if i == 40 { hacc = 500_000 }
            if i == 45 { hacc = 120_000 }
            fixes.append(FixPoint(lat: p.0, lon: p.1, time: t, speed: 1.4, sigma: hacc))
        }
        return (fences, fixes)
    }

    @Test(arguments: kinds)
    func nullIslandAndHugeHaccAmongLondonFences(kind: FenceRuleKind) {
        let (fences, fixes) = Self.londonCase()
        for assume in [false, true] {
            for limit in [nil, 2, 20] as [Int?] {
                Self.compare(
                    fences: fences, fixes: fixes, settings: Self.settings(kind, assume: assume), limit: limit,
                    trace: limit != 20, "London \(kind) assume \(assume) limit \(limit.map(String.init) ?? "-")")
            }
        }
    }

    /// Issue 11's setup at a sample's size: 20,000 fences of 5–200 m over a 100 km square, and
    /// fixes with hacc uniform in 2–150 m that stop for a few fixes near fence after fence (in,
    /// on the edge, just outside) and then move on: every rule, with and without --trace.
    @Test(arguments: kinds)
    func twentyThousandFencesOverAHundredKilometres(kind: FenceRuleKind) {
        var r = Random(20_000 + UInt64(Self.kinds.firstIndex(of: kind)!))
        let corner = (51.0, -0.8)
        let fences = (0..<20_000).map { k -> Fence in
            let c = Self.point(corner, east: r.range(0, 100_000), north: r.range(0, 100_000))
            return Fence(id: "f\(k)", lat: c.0, lon: c.1, radius: r.range(5, 200))
        }
        var fixes: [FixPoint] = []
        var t = 1_767_258_000.0
        for _ in 0..<16 {
            // Mostly the larger fences, which fixes of this accuracy can be sure to be in.
            var f = fences[r.int(fences.count)]
            while f.radius < 60, r.chance(0.8) { f = fences[r.int(fences.count)] }
            let offset = r.range(0, 1.2) * f.radius
            let heading = r.range(0, 2 * .pi)
            let still = r.chance(0.5)
            for _ in 0..<(4 + r.int(5)) {
                t += 1
                let hacc = r.chance(0.5) ? r.range(2, 150) : r.range(2, 20)
                let p = Self.point(
                    (f.lat, f.lon), east: offset * cos(heading) + r.gauss() * hacc * 0.5,
                    north: offset * sin(heading) + r.gauss() * hacc * 0.5)
                fixes.append(
                    FixPoint(
                        lat: p.0, lon: p.1, time: Timestamp(seconds: t), speed: still ? r.range(0, 0.3) : 1.4,
                        sigma: hacc))
            }
        }
        let events = Self.compare(
            fences: fences, fixes: fixes, settings: Self.settings(kind, assume: false), limit: nil, trace: false,
            "20,000 fences, \(kind)")
        #expect(events >= 2, "only \(events) events")
        Self.compare(
            fences: fences, fixes: Array(fixes.prefix(25)), settings: Self.settings(kind, assume: false), limit: nil,
            trace: true, "20,000 fences, \(kind), --trace")
    }

    /// A walk and a drive through 5,000 fences over 3 km (one every 1,800 m²), fixes with hacc
    /// 2–150 m and noise of that size: the fixes use the trace's neighbourhood list
    /// (`NearFences`), rebuilt as they leave it, and the events equal every fence's.
    @Test(arguments: [FenceRuleKind.confident, .adaptive])
    func aTraceThroughDenseFencesUsesItsNeighbourhood(kind: FenceRuleKind) {
        var r = Random(4242 + UInt64(Self.kinds.firstIndex(of: kind)!))
        let corner = (47.0, 8.0)
        let fences = (0..<5_000).map { k -> Fence in
            let c = Self.point(corner, east: r.range(0, 3_000), north: r.range(0, 3_000))
            return Fence(id: "f\(k)", lat: c.0, lon: c.1, radius: r.range(5, 200))
        }
        var fixes: [FixPoint] = []
        for (speed, count) in [(1.4, 900), (15.0, 180)] {
            var at = (r.range(200, 800), r.range(200, 800))
            for i in 0..<count {
                at.0 += speed * 0.8
                at.1 += speed * 0.6
                let hacc = r.range(2, 150)
                let p = Self.point(corner, east: at.0 + r.gauss() * hacc, north: at.1 + r.gauss() * hacc)
                fixes.append(
                    FixPoint(
                        lat: p.0, lon: p.1, time: Timestamp(seconds: 1_767_258_000 + Double(fixes.count)),
                        speed: i % 7 == 0 ? nil : speed, sigma: hacc))
            }
        }
        let settings = Self.settings(kind, assume: false)
        let engine = FenceEngine(index: FenceIndex(fences), settings: settings, limit: nil)
        let events = Self.compare(
            fences: fences, fixes: fixes, settings: settings, limit: nil, trace: false, engine: engine, "\(kind)")
        #expect(events >= 10, "only \(events) events")
        // The list served fixes (fewer builds than fixes), and was rebuilt as the trace moved.
        #expect(engine.near.builds > 1 && engine.near.builds < fixes.count, "\(engine.near.builds) builds")
    }

    /// Fences too dense for a list (1,500 within 150 m, so that even `NearFences.minimumRadius`
    /// holds more than `NearFences.capacity`): the index answers those fixes, and a fix near
    /// the place that found them too dense is not served the empty list kept there. A fix's
    /// margin is negative (−Φ⁻¹(enter)·σ), which once made that place cover fixes within
    /// |margin| of it with no fences at all: enters were missed, or came late.
    @Test(arguments: [FenceRuleKind.confident, .adaptive])
    func fencesTooDenseForAListAreStillFound(kind: FenceRuleKind) {
        var r = Random(777 + UInt64(Self.kinds.firstIndex(of: kind)!))
        let centre = (47.0, 8.0)
        let fences = (0..<1_500).map { k -> Fence in
            let c = Self.point(centre, east: r.range(-150, 150), north: r.range(-150, 150))
            return Fence(id: "f\(k)", lat: c.0, lon: c.1, radius: r.range(20, 200))
        }
        let fixes = (0..<400).map { i -> FixPoint in
            let hacc = r.range(2, 150)
            let p = Self.point(centre, east: r.gauss() * hacc, north: r.gauss() * hacc)
            return FixPoint(
                lat: p.0, lon: p.1, time: Timestamp(seconds: 1_767_258_000 + Double(i)), speed: nil, sigma: hacc)
        }
        let settings = Self.settings(kind, assume: false)
        let engine = FenceEngine(index: FenceIndex(fences), settings: settings, limit: nil)
        let events = Self.compare(
            fences: fences, fixes: fixes, settings: settings, limit: nil, trace: false, engine: engine, "\(kind)")
        #expect(events >= 100, "only \(events) events")
        // A build was tried, and found the place too dense.
        #expect(engine.near.builds >= 1, "\(engine.near.builds) builds")
    }

    /// The list scan's first test is in single precision (`NearFences.Columns`), and must
    /// never drop a fence the exact test keeps: every scan finds exactly what the index finds,
    /// for fixes anywhere in their neighbourhood, least radii and margins from 0 to hundreds of
    /// metres, and margins set so that a fence lies exactly on the test's edge (d − R =
    /// margin, from the same distance the scan measures). The fences on the edge are of 1 m to
    /// 45 km, half of them 300 m or more, centred near enough for the distance to be the chord
    /// (under 50 km), where the test is tightest; one of 2,000 km is among the fences, beyond
    /// the chord's reach. The test fails with no tolerance.
    @Test func listScanFindsWhatTheIndexFinds() {
        var r = Random(4242)
        var checked = 0
        var onEdge = 0
        var largeOnEdge = 0
        for (n, place) in Self.places.enumerated() {
            var fences = (0..<400).map { k -> Fence in
                let c = Self.point(place, east: r.gauss() * 300, north: r.gauss() * 300)
                return Fence(id: "f\(k)", lat: c.0, lon: c.1, radius: r.logRange(1, 300))
            }
            // Large ones within about their radius, so that a fix's distance to them is the
            // chord: they are in every list, and often inside it.
            for k in 0..<12 {
                let radius = r.logRange(300, 45_000)
                let c = Self.point(place, east: r.gauss() * radius * 0.6, north: r.gauss() * radius * 0.6)
                fences.append(Fence(id: "large\(k)", lat: c.0, lon: c.1, radius: radius))
            }
            let far = Self.point(place, east: r.range(-1e6, 1e6), north: r.range(-1e6, 1e6))
            fences.append(Fence(id: "big", lat: far.0, lon: far.1, radius: 2_000_000))
            let engine = FenceEngine(index: FenceIndex(fences), settings: FenceRuleSettings(), limit: nil)
            let serial = engine.near.newSerial()
            // The trace's second fix builds (its first is answered by the index).
            _ = engine.near.list(
                for: serial, at: Geodesy.Point(lat: place.0, lon: place.1), margin: 0, index: engine.index)
            for _ in 0..<400 {
                let p = Self.point(place, east: r.gauss() * 120, north: r.gauss() * 120)
                let here = Geodesy.Point(lat: p.0, lon: p.1)
                var margin = -r.logRange(1e-3, 400) + (r.chance(0.1) ? 1e-3 : 0)
                margin = min(0, margin)
                let minRadius = r.chance(0.5) ? 0 : r.logRange(1, 400)
                guard var list = engine.near.list(for: serial, at: here, margin: margin, index: engine.index) else {
                    continue  // too dense here, or beyond every kept neighbourhood after a jump
                }
                // A fence of the list exactly on the edge, now and then (the list asked for
                // again: how far it is read depends on the margin).
                var edgeFence: Int?
                // Half of them of 300 m or more, where the rounding is largest.
                let large = list.entries.filter { $0.slot.radius >= 300 }
                let pool = !large.isEmpty && r.chance(0.5) ? large : Array(list.entries)
                if r.chance(0.5), !pool.isEmpty {
                    let e = pool[r.int(pool.count)]
                    let d = engine.index.distance(here, e.slot, e.fence)
                    if d - e.slot.radius <= 0, e.slot.radius >= minRadius,
                        let again = engine.near.list(
                            for: serial, at: here, margin: d - e.slot.radius, index: engine.index)
                    {
                        margin = d - e.slot.radius
                        edgeFence = e.fence
                        list = again
                    }
                }
                var fromList: [Int] = []
                engine.forEachListed(list, here, margin: margin, minRadius: minRadius) { k, _, _, _ in
                    fromList.append(k)
                }
                var fromIndex: [Int] = []
                engine.index.forEachWithin(here, margin: margin, minRadius: minRadius) { k, _ in fromIndex.append(k) }
                #expect(fromList.sorted() == fromIndex.sorted(), "place \(n), margin \(margin), least \(minRadius)")
                if let edgeFence {
                    #expect(fromList.contains(edgeFence), "place \(n): the fence on the edge")
                    onEdge += 1
                    if fences[edgeFence].radius >= 300 { largeOnEdge += 1 }
                }
                checked += 1
            }
        }
        #expect(checked >= 2_000, "only \(checked) scans")
        #expect(onEdge >= 500, "only \(onEdge) fences on the edge")
        #expect(largeOnEdge >= 500, "only \(largeOnEdge) fences of 300 m or more on the edge")
    }

    /// Fixes that go back and forth between places 2 km apart (a noisy receiver's scatter,
    /// writ large) find the neighbourhoods built on their first visit instead of rebuilding,
    /// and every list served holds exactly the fences the index finds for that fix.
    @Test func neighbourhoodsAreKeptAndReused() {
        var r = Random(9090)
        let corner = (47.0, 8.0)
        let fences = (0..<3_000).map { k -> Fence in
            let c = Self.point(corner, east: r.range(0, 10_000), north: r.range(0, 1_000))
            return Fence(id: "f\(k)", lat: c.0, lon: c.1, radius: r.range(5, 60))
        }
        let index = FenceIndex(fences)
        let near = NearFences()
        let serial = near.newSerial()
        let places = (0..<NearFences.kept).map { Self.point(corner, east: 500 + 1_200 * Double($0), north: 500) }
        // A trace's first fix never builds (its trace was not the last one's): the index answers.
        let first = Geodesy.Point(lat: places[0].0, lon: places[0].1)
        #expect(near.list(for: serial, at: first, margin: 0, index: index) == nil)
        var served = 0
        for round in 0..<6 {
            for place in places {
                let p = Self.point(place, east: r.range(-20, 20), north: r.range(-20, 20))
                let here = Geodesy.Point(lat: p.0, lon: p.1)
                let margin = -r.range(0, 30)
                guard let list = near.list(for: serial, at: here, margin: margin, index: index) else {
                    Issue.record("round \(round): no list (the fences are sparse)")
                    return
                }
                served += 1
                var fromList: [Int] = []
                #expect(zip(list.entries, list.entries.dropFirst()).allSatisfy { $0.key <= $1.key })
                for e in list.entries where e.key <= list.limit {
                    let d = index.distance(here, e.slot, e.fence)
                    if d - e.slot.radius <= margin { fromList.append(e.fence) }
                }
                var fromIndex: [Int] = []
                index.forEachWithin(here, margin: margin) { k, _ in fromIndex.append(k) }
                #expect(fromList.sorted() == fromIndex.sorted(), "round \(round)")
            }
        }
        #expect(served == 6 * places.count)
        // One build a place, on the first round; the later rounds found them.
        #expect(near.builds == places.count, "\(near.builds) builds")
    }

    /// A glitch fix that comes back at the same place (0,0) under a limit is answered from the
    /// reselection kept for it, not searched again: far from every fence the search measures
    /// most of them. Each of its reselections is the first one, which is the index's answer,
    /// and the fixes between glitches (3 km from the fences, past the glitch's refresh
    /// circle) search as before.
    @Test func aGlitchAtTheSamePlaceIsNotSearchedAgain() {
        var r = Random(29)
        let london = Self.places[0]
        let fences = (0..<300).map { k in
            let p = Self.point(london, east: r.range(-1000, 1000), north: r.range(-1000, 1000))
            return Fence(id: "f\(k)", lat: p.0, lon: p.1, radius: 20)
        }
        let engine = FenceEngine(index: FenceIndex(fences), settings: FenceRuleSettings(), limit: 20)
        var state = TraceFences()
        var atGlitch: [(watched: [Int], radius: Double?)] = []
        for k in 0..<6 {
            let east = Self.point(london, east: 3000 + Double(k) * 10, north: 0)
            for (p, glitch) in [(east, false), ((0.0, 0.0), true)] {
                var events: [FenceEvent] = []
                engine.process(
                    FixPoint(lat: p.0, lon: p.1, time: nil, speed: nil, sigma: 8), trace: &state, fences: nil,
                    into: &events)
                for case .reselect(let watched, let radius) in events where glitch {
                    atGlitch.append((watched, radius))
                }
            }
        }
        let nearest = engine.index.nearestEdges(lat: 0, lon: 0, count: 20)
        #expect(atGlitch.count == 6)
        for g in atGlitch {
            #expect(g.watched == nearest.prefix(19).map(\.index).sorted())
            #expect(g.radius == max(FenceEngine.minimumRefreshRadius, nearest[19].edge))
        }
        // Six fixes near the fences and one glitch searched; five glitches did not.
        #expect(engine.nearestSearches == 7)
    }

    /// The tool itself on the cases the fuzzing campaign found: a fix at 0,0 among London
    /// fences under `--limit 2`, and `--limit 2 --rule adaptive` with fences 1,000 km apart
    /// (which did not finish before). The test finishing is the check that it no longer hangs;
    /// the events must equal the reference's.
    @Test func limitTwoOnTheToolFinishes() throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Fences 1,000 km apart on a line of latitude-ish points, 20 m each, and London's.
        var fences: [Fence] = [
            Fence(id: "london", lat: 51.5, lon: -0.12, radius: 20),
            Fence(id: "madrid", lat: 40.4168, lon: -3.7038, radius: 20),
            Fence(id: "rome", lat: 41.9028, lon: 12.4964, radius: 20),
        ]
        for k in 0..<6 {
            let c = Self.point((10, 0), east: Double(k) * 1_000_000, north: 0)
            fences.append(Fence(id: "far\(k)", lat: c.0, lon: c.1, radius: 20))
        }
        let fenceJSON =
            "["
            + fences.map { #"{"id":"\#($0.id)","lat":\#($0.lat),"lon":\#($0.lon),"radius":20}"# }.joined(separator: ",")
            + "]"
        let path = dir.appendingPathComponent("fences.json")
        try fenceJSON.write(to: path, atomically: false, encoding: .utf8)
        var lines: [String] = []
        var points: [FixPoint] = []
        func add(_ lat: Double, _ lon: Double, _ i: Int, hacc: Double = 8) {
            let t = Timestamp(seconds: 1_700_000_000 + Double(i))
            var b: [UInt8] = []
            t.write(into: &b)
            lines.append(
                #"{"time":"\#(String(decoding: b, as: UTF8.self))","lat":\#(lat),"lon":\#(lon),"hacc":\#(hacc),"speed":1.4}"#
            )
            points.append(FixPoint(lat: lat, lon: lon, time: t, speed: 1.4, sigma: hacc))
        }
        var i = 0
        for (c, _) in [(fences[0], 0), (fences[1], 1), (fences[2], 2), (fences[4], 4), (fences[7], 7)] {
            for s in -6...6 {
                let p = Self.point((c.lat, c.lon), east: Double(s) * 5, north: 0)
                add(p.0, p.1, i)
                i += 1
            }
            add(0, 0, i)  // a glitch between the walks
            i += 1
            add(c.lat, c.lon, i, hacc: 500_000)
            i += 1
        }
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        for rule in ["adaptive", "confident"] {
            let run = try Tools.run("fencerule", ["--fences", path.path, "--limit", "2", "--rule", rule], stdin: input)
            #expect(run.status == 0, "\(run.stderr)")
            let events = try Tools.objects(run.stdout)
            var brute = Brute(
                fences, settings: Self.settings(rule == "adaptive" ? .adaptive : .confident, assume: false), limit: 2)
            var expected: [String] = []
            for p in points {
                var ignored: [String] = []
                for e in brute.process(p, trace: &ignored) {
                    let parts = e.split(separator: " ")
                    if parts[0] == "reselect" {
                        expected.append("reselect")
                    } else {
                        expected.append("\(parts[0]) \(fences[Int(parts[1])!].id)")
                    }
                }
            }
            let got = events.map { e in
                let kind = e["event"] as? String ?? "?"
                return kind == "reselect" ? kind : "\(kind) \(e["fence"] as? String ?? "?")"
            }
            #expect(got == expected)
            #expect(got.filter { $0.hasPrefix("enter") }.count >= 5, "\(got)")
        }
    }
}
