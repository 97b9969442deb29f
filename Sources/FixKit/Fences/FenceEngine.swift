#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// fencerule's state for one trace: the fences' states, and under a region budget the watched
/// set, the refresh circle and the fences entered while unwatched.
struct TraceFences {
    var states = FenceStates()
    /// The next fix's states are written here, then the two swap: a fix allocates none.
    var spareStates = FenceStates()
    var previous: FixPoint?
    var initialized = false
    /// The trace's number for the engine's `NearFences` (0 until its first fix).
    var serial = 0
    /// steady: the pooled position of the user standing still.
    var still = StillPool()
    // Region budget (--limit).
    var watched: Set<Int> = []
    /// The refresh circle: its centre (the fix that reselected) and radius.
    var refresh: (centre: Geodesy.Point, radius: Double)?
    var selected = false
    /// The unwatched fences the user is inside of that were reported missed, ascending.
    var missedInside: [Int] = []
    /// The fences the last fix was inside of, kept for their storage (`findMissed`).
    var insideScratch: [Int] = []
    /// The candidates of the last fix, kept for their storage: a fix allocates none.
    var scratch: [(k: Int, d: Double, radius: Double, place: Int)] = []
}

/// Events for one fix, in the order they are written.
enum FenceEvent {
    case enter(Int, distance: Double, p: Double)
    /// `duration`: seconds since the matching enter, when both fixes have a time.
    case exit(Int, distance: Double, p: Double, duration: Double?)
    case reselect([Int], radius: Double?)
    case missed(Int, distance: Double, p: Double)
}

/// Evaluates fixes against the fences: the rule, the spatial index and the region budget.
///
/// A fence's state is kept only while it is not the quiet one, outside with no dwell under
/// way; a quiet fence can only change where the rule may act on it (`ActingRegion`), so a fix
/// evaluates the fences it finds there and the fences whose state is kept: the same decisions
/// as evaluating every fence, at the cost of the few that matter.
struct FenceEngine {
    let index: FenceIndex
    let settings: FenceRuleSettings
    /// --limit: the number of monitored conditions (N−1 fences and the refresh circle).
    let limit: Int?
    /// Where a quiet fence may change, given a fix's σ.
    let acting: ActingRegion
    /// Fences whose P(inside) is at least this appear in --trace output.
    static let traceThreshold = 1e-12
    /// Beyond 8σ past its edge a fence's P(inside) is below 1e-12: the true position is then
    /// more than 8σ from the fix, which a Rayleigh error does with probability e^{−32}.
    static let searchSigmas = 8.0
    /// The refresh circle's smallest radius, as Core Location's.
    static let minimumRefreshRadius = 50.0

    /// Which side of the thresholds P is on, without P where a table settles it.
    let decisions: DecisionTable
    /// The fences near the trace the stream is on.
    let near = NearFences()

    init(index: FenceIndex, settings: FenceRuleSettings, limit: Int?) {
        self.index = index
        self.settings = settings
        self.limit = limit
        acting = ActingRegion(settings)
        decisions = DecisionTable(enter: settings.enter, exit: settings.exit)
    }

    /// The value of P to give the step, if the table or `ActingRegion`'s bounds settle the
    /// comparison the step makes with it (see `ActingRegion.standIn`).
    @inline(__always)
    func standIn(inside: Bool, _ d: Double, _ radius: Double, _ sigma: Double) -> Double? {
        if !acting.naive, sigma > 0, sigma.isFinite, radius.isFinite, d.isFinite,
            let contradicts = decisions.contradicts(inside: inside, d, radius, sigma)
        {
            // A value on the side the table found, far from the threshold by P's rounding.
            let slack = DecisionTable.slack
            if inside { return contradicts ? settings.exit - slack : settings.exit + slack }
            return contradicts ? settings.enter + slack : settings.enter - slack
        }
        return acting.standIn(inside: inside, d, radius, sigma)
    }

    /// One fix. `fences` receives each fence worth reporting in --trace (index, p, distance,
    /// inside), in index order; the events come back in order.
    func process(
        _ fix: FixPoint, trace state: inout TraceFences, fences report: ((Int, Double, Double, Bool) -> Void)? = nil
    ) -> [FenceEvent] {
        var events: [FenceEvent] = []
        if !state.initialized {
            state.initialized = true
            state.serial = near.newSerial()
            if settings.assumeInside, limit == nil {
                // Every fence starts inside: all must be looked at until each has left.
                for k in index.fences.indices {
                    state.states.append(k, place: index.place(of: k), FenceState(inside: true))
                }
            }
        }
        let here = Geodesy.Point(lat: fix.lat, lon: fix.lon)
        if let limit { reselectIfNeeded(fix, at: here, limit: limit, state: &state, events: &events) }

        // Fences to evaluate: those where a quiet fence may change (for --trace, also all that
        // may reach its threshold), and those whose state is kept.
        let steady =
            settings.kind == .steady ? settings.observe(fix, previous: state.previous, pool: &state.still) : nil
        var (margin, minRadius) = acting.region(sigma: fix.sigma)
        if report != nil {
            margin = max(margin, FenceEngine.searchSigmas * fix.sigma + 1)
            minRadius = 0
        }
        if let steady {
            // The steady rule judges from the pooled position when the user stands still: look
            // as far as P can reach from either position, whatever the rule's thresholds.
            let sigma = max(fix.sigma, steady.sigma)
            var reach = max(acting.region(sigma: sigma).margin, FenceEngine.searchSigmas * sigma + 1)
            if let pooled = steady.position { reach += Geodesy.distance(here, pooled) }
            margin = max(margin, reach)
            minRadius = 0
        }
        var candidates: [(k: Int, d: Double, radius: Double, place: Int)] = []
        swap(&candidates, &state.scratch)
        candidates.removeAll(keepingCapacity: true)
        defer { swap(&candidates, &state.scratch) }
        forEachWithin(here, margin: margin, minRadius: minRadius, serial: state.serial) { k, d, radius, place in
            if limit == nil || state.watched.contains(k) { candidates.append((k, d, radius, place)) }
        }
        if candidates.isEmpty, state.states.isEmpty {
            if limit != nil { findMissed(fix, at: here, state: &state, events: &events) }
            state.previous = fix
            return events
        }
        if candidates.count > 1 { candidates.sort { $0.k < $1.k } }
        // The candidates and the kept states, merged in fence order; the states kept after this
        // fix are written to `next`.
        var next = FenceStates()
        swap(&next, &state.spareStates)
        next.removeAll()
        var c = 0
        var m = 0
        let keptCount = state.states.count
        while c < candidates.count || m < keptCount {
            let k: Int
            let d: Double
            // The fence's radius, and its place in the index's slots (where a kept state's
            // distance reads the centre).
            let radius: Double
            let place: Int
            // The kept state's place in `state.states`, or −1: read there, not copied out (a
            // state is a hundred bytes, and most kept ones are only copied on to `next`).
            let kept: Int
            if m == keptCount || (c < candidates.count && candidates[c].k < state.states.key(m)) {
                (k, d, radius, place) = candidates[c]
                kept = -1
                c += 1
            } else if c == candidates.count || state.states.key(m) < candidates[c].k {
                k = state.states.key(m)
                place = state.states.entries[m].place
                assert(Int(index.originals[place]) == k, "a kept state's place is its fence's slot")
                let slot = index.slots[place]
                d = index.distance(here, slot, k)
                radius = slot.radius
                kept = m
                m += 1
            } else {
                (k, d, radius, place) = candidates[c]
                kept = m
                c += 1
                m += 1
            }
            if limit != nil, !state.watched.contains(k) {
                if kept >= 0 { next.append(state.states, at: kept) }
                continue
            }
            // Held inside with no dwell under way, and surely not contradicted: the step would
            // leave it as it is, so P is not needed (unless --trace prints it).
            if report == nil, steady == nil, kept >= 0, state.states.entries[kept].state.inside,
                state.states.entries[kept].state.count == 0, acting.surelyInside(d, radius, fix.sigma)
            {
                next.append(state.states, at: kept)
                continue
            }
            var s = kept >= 0 ? state.states.entries[kept].state : FenceState(inside: false)
            var p: Double
            let change: Bool?
            if let steady {
                p = InsideProbability.p(distance: d, radius: radius, sigma: fix.sigma)
                if let pooled = steady.position {
                    p = InsideProbability.p(
                        distance: index.distance(pooled, index.slots[place], k), radius: radius, sigma: steady.sigma)
                }
                change = settings.steadyStep(&s, p: p, observation: steady, fix: fix, previous: state.previous)
            } else {
                // The step reads P only against its threshold, so where a table or cheap bounds
                // on P already settle that comparison, a value on the same side stands in; the
                // exact P is worked out only for an event, which prints it (and for --trace,
                // which prints every P).
                let standIn = report == nil ? standIn(inside: s.inside, d, radius, fix.sigma) : nil
                p = standIn ?? InsideProbability.p(distance: d, radius: radius, sigma: fix.sigma)
                change = settings.step(&s, p: p, distance: d, radius: radius, fix: fix, previous: state.previous)
                if change != nil, standIn != nil {
                    p = InsideProbability.p(distance: d, radius: radius, sigma: fix.sigma)
                }
            }
            if let change {
                if change {
                    s.enteredAt = fix.time
                    events.append(.enter(k, distance: d, p: p))
                } else {
                    let duration = fix.time.flatMap { t in s.enteredAt.map { t.seconds - $0.seconds } }
                    s.enteredAt = nil
                    events.append(.exit(k, distance: d, p: p, duration: duration))
                }
            }
            // Only the quiet state (outside, no dwell, nothing pooled) is forgotten: fences that
            // start inside under --assume are given their state when first seen.
            let settled = s.settledStretch != nil && s.settledStretch == state.still.stretch && state.still.active
            if s.inside || s.count != 0 || settled || s.enteredAt != nil { next.append(k, place: place, s) }
            if let report, p >= FenceEngine.traceThreshold || s.inside { report(k, p, d, s.inside) }
        }
        swap(&state.states, &next)
        swap(&next, &state.spareStates)
        if limit != nil { findMissed(fix, at: here, state: &state, events: &events) }
        state.previous = fix
        return events
    }

    /// Calls `body(k, d, radius, place)` for every fence k with d − radius ≤ `margin` (≤ 0 for the
    /// list) and radius ≥ `minRadius`, d its `Geodesy.distance`: from the neighbourhood list that
    /// covers the fix (`NearFences`: the index's own test on the list's fences), else from the
    /// index. Each once, in no particular order.
    @inline(__always)
    private func forEachWithin(
        _ here: Geodesy.Point, margin: Double, minRadius: Double = 0, serial: Int,
        _ body: (Int, Double, Double, Int) -> Void
    ) {
        if let list = near.list(for: serial, at: here, margin: margin, index: index) {
            for e in list.entries {
                if e.key > list.limit { break }  // the rest are farther (see `NearFences`)
                guard e.slot.radius >= minRadius else { continue }
                if let d = index.distance(here, e.slot, e.fence, within: margin) {
                    body(e.fence, d, e.slot.radius, e.place)
                }
            }
        } else {
            index.forEachWithin(here, margin: margin, minRadius: minRadius, body)
        }
    }

    /// Core Location's budget: the N−1 fences with the nearest edges, and a refresh circle on
    /// the user reaching just short of the N-th (never below 50 m); leaving it reselects, before
    /// the fix is evaluated. Fences the user is held inside keep their place.
    private func reselectIfNeeded(
        _ fix: FixPoint, at here: Geodesy.Point, limit: Int, state: inout TraceFences, events: inout [FenceEvent]
    ) {
        if state.selected {
            guard let r = state.refresh else { return }  // every fence is watched
            // The same distance as from the latitudes and longitudes, without their trigonometry.
            if Geodesy.distance(here, r.centre) <= r.radius { return }
        }
        state.selected = true
        // Fences the rule holds the user inside stay watched, nearest or not, so that their exit
        // is still seen (an app keeps the regions it believes it is in); the nearest fill the rest.
        let held = settings.assumeInside ? [] : state.states.insideFences()
        var watched = Array(held.prefix(limit - 1))
        let nearest = index.nearestEdges(lat: fix.lat, lon: fix.lon, count: limit + watched.count)
        for n in nearest where watched.count < limit - 1 && !watched.contains(n.index) { watched.append(n.index) }
        // The refresh circle reaches the edge of the nearest fence left unwatched.
        let nextUnwatched = nearest.first { !watched.contains($0.index) }
        let newSet = Set(watched)
        // Fences no longer watched lose their state; newly watched ones start as assumed.
        state.states.filter(keeping: { newSet.contains($0) })
        if settings.assumeInside {
            for k in watched where !state.watched.contains(k) {
                state.states.set(k, place: index.place(of: k), FenceState(inside: true))
            }
        }
        state.watched = newSet
        if let next = nextUnwatched {
            let radius = max(FenceEngine.minimumRefreshRadius, next.edge)
            state.refresh = (here, radius)
        } else {
            state.refresh = nil
        }
        events.append(.reselect(watched.sorted(), radius: state.refresh?.radius))
    }

    /// A fix inside a fence (d ≤ R) that is not watched: what the budget cost the app, said
    /// once until the fix is outside that fence again. A fix inside none, with none missed,
    /// allocates nothing.
    private func findMissed(
        _ fix: FixPoint, at here: Geodesy.Point, state: inout TraceFences, events: inout [FenceEvent]
    ) {
        var inside: [Int] = []
        swap(&inside, &state.insideScratch)
        inside.removeAll(keepingCapacity: true)
        defer { swap(&inside, &state.insideScratch) }
        forEachWithin(here, margin: 0, serial: state.serial) { k, _, _, _ in inside.append(k) }
        if inside.isEmpty, state.missedInside.isEmpty { return }
        if inside.count > 1 { inside.sort() }
        // Those still inside stay reported (both lists ascending).
        var kept = 0
        var j = 0
        for k in state.missedInside {
            while j < inside.count, inside[j] < k { j += 1 }
            if j < inside.count, inside[j] == k {
                state.missedInside[kept] = k
                kept += 1
            }
        }
        state.missedInside.removeLast(state.missedInside.count - kept)
        let reported = state.missedInside.count
        for k in inside where !state.watched.contains(k) && !state.missedInside[..<reported].contains(k) {
            state.missedInside.append(k)
            let f = index.fences[k]
            let d = Geodesy.distance(here, index.centre(k))
            events.append(
                .missed(k, distance: d, p: InsideProbability.p(distance: d, radius: f.radius, sigma: fix.sigma)))
        }
        if state.missedInside.count > reported { state.missedInside.sort() }
    }
}

/// Where a quiet fence (outside, no dwell under way) may change under the rule: d − R ≤
/// margin and R ≥ minRadius, for a fix of σ. Elsewhere the rule's step leaves it quiet without
/// an event, so it need not be looked at.
///
/// naive: inside when d ≤ R. confident and adaptive: a quiet fence changes only when
/// P(inside) > enter. The disc lies in the strip of half-width R across the line from its
/// centre to the fix, and within R of that line, so with the two axes of the error
/// independent, P ≤ Φ((R − d)/σ) · (2Φ(R/σ) − 1): P > enter needs (R − d)/σ > Φ⁻¹(enter) and
/// R/σ > Φ⁻¹((1 + enter)/2). For enter above ½ the first needs d < R, which the index answers
/// from one cube per level. Both quantiles are taken for an enter smaller by 1e-12 (or half of
/// it, if smaller), and a further 1e-6 σ off, far more than P's rounding; below an enter of
/// 1e-9 the region is where P is not exactly 0 (d − R < 38.5σ).
///
/// The other way, for a fence held inside with no dwell under way: the disc holds the circle
/// of radius R − d around the fix, so P ≥ 1 − e^{−(R − d)²/2σ²}, and R − d ≥ σ√(−2 ln(1 − exit))
/// (for an exit larger by 1e-12, and 1e-6 σ more) means P ≥ exit: the rule keeps it inside.
struct ActingRegion {
    let naive: Bool
    /// Lower bounds of Φ⁻¹(enter) and Φ⁻¹((1 + enter)/2); nil: below 1e-9, the wide region.
    let along: Double?
    let across: Double
    /// R − d past which, in σ, P ≥ exit (∞: never known without P).
    let deepInside: Double
    /// The rule's thresholds, for `standIn`.
    let enter: Double
    let exit: Double

    init(_ settings: FenceRuleSettings) {
        enter = settings.enter
        self.exit = settings.exit
        let exit = settings.exit + 1e-12
        deepInside = exit >= 1 ? .infinity : (-2 * log1p(-exit)).squareRoot() + 1e-6
        switch settings.kind {
        case .naive:
            naive = true
            along = nil
            across = 0
        case .confident, .adaptive, .steady:
            naive = false
            let enter = max(settings.enter - 1e-12, settings.enter / 2)
            if enter < 1e-9 {
                along = nil
                across = 0
            } else {
                along = ActingRegion.quantile(enter) - 1e-6
                across = ActingRegion.quantile((1 + enter) / 2) - 1e-6
            }
        }
    }

    func region(sigma: Double) -> (margin: Double, minRadius: Double) {
        // σ = ∞ makes P the naive 0 or 1 (InsideProbability's rule for a non-finite input).
        if naive || !sigma.isFinite { return (0, 0) }
        guard let along else { return (38.5 * sigma + 1e-6, 0) }
        return (-along * sigma + 1e-6, max(0, across * sigma - 1e-6))
    }

    /// Whether a fence held inside stays so for this fix under the rule, from d alone.
    @inline(__always)
    func surelyInside(_ d: Double, _ radius: Double, _ sigma: Double) -> Bool {
        if naive { return d <= radius }
        return sigma.isFinite && radius - d >= deepInside * sigma + 1e-6
    }

    /// Bounds on P wider than P's rounding (1e-14) by far, from the same two regions as above:
    /// the disc holds the circle of radius R − d around the fix, so P ≥ 1 − e^{−(R − d)²/2σ²},
    /// and it lies in the half-plane and the strip, so P ≤ Φ((R − d)/σ) · (2Φ(R/σ) − 1).
    static let boundSlack = 1e-9

    /// A value on the same side of the threshold the step compares P with (exit when inside,
    /// enter when outside) as P itself, found from those bounds (one exp, or two erfc, instead
    /// of P's series); nil when they do not settle it. naive's step reads d, not P: any value.
    @inline(__always)
    func standIn(inside: Bool, _ d: Double, _ radius: Double, _ sigma: Double) -> Double? {
        if naive { return 0.5 }
        guard sigma > 0, sigma.isFinite, radius.isFinite, d.isFinite else { return nil }
        let slack = ActingRegion.boundSlack
        let t = (radius - d) / sigma
        if t > 0 {
            let lower = -expm1(-0.5 * t * t)
            // Inside: P ≥ exit, no contradiction. Outside: P > enter, a contradiction.
            if inside ? lower - slack >= exit : lower - slack > enter { return lower - slack }
        }
        let sqrtHalf = 0.5.squareRoot()
        let upper = 0.5 * erfc(-t * sqrtHalf) * erf(radius / sigma * sqrtHalf)
        // Inside: P < exit, a contradiction. Outside: P ≤ enter, none.
        if inside ? upper + slack < exit : upper + slack <= enter { return upper + slack }
        return nil
    }

    /// Φ⁻¹(q) for q in (0, 1), by bisection on Φ(z) = ½ erfc(−z/√2), kept on the side where
    /// Φ(z) ≤ q, so never above the true quantile.
    static func quantile(_ q: Double) -> Double {
        if q >= 1 { return .infinity }
        var lo = -40.0  // Φ(−40) ≈ 4e-350: below any q here
        var hi = 40.0
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if 0.5 * erfc(-mid / 2.0.squareRoot()) <= q { lo = mid } else { hi = mid }
        }
        return lo
    }
}
