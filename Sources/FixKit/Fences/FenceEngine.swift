/// fencerule's state for one trace: the fences' states, and under a region budget the watched
/// set, the refresh circle and the fences entered while unwatched.
struct TraceFences {
    var states: [Int: FenceState] = [:]
    var previous: FixPoint?
    var initialized = false
    /// steady: the pooled position of the user standing still.
    var still = StillPool()
    // Region budget (--limit).
    var watched: Set<Int> = []
    var refresh: (lat: Double, lon: Double, radius: Double)?
    var selected = false
    var missedInside: Set<Int> = []
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
struct FenceEngine {
    let index: FenceIndex
    let settings: FenceRuleSettings
    /// --limit: the number of monitored conditions (N−1 fences and the refresh circle).
    let limit: Int?
    /// Fences whose P(inside) is at least this appear in --trace output.
    static let traceThreshold = 1e-12
    /// Beyond 8σ past its edge a fence's P(inside) is below 1e-12 (½ erfc(8/√2) ≈ 6e-16).
    static let searchSigmas = 8.0
    /// The refresh circle's smallest radius, as Core Location's.
    static let minimumRefreshRadius = 50.0

    /// One fix. `fences` receives each fence worth reporting in --trace (index, p, distance,
    /// inside), in index order; the events come back in order.
    func process(
        _ fix: FixPoint, trace state: inout TraceFences, fences report: ((Int, Double, Double, Bool) -> Void)? = nil
    ) -> [FenceEvent] {
        var events: [FenceEvent] = []
        if !state.initialized {
            state.initialized = true
            if settings.assumeInside, limit == nil {
                // Every fence starts inside: all must be looked at until each has left.
                for k in index.fences.indices { state.states[k] = FenceState(inside: true) }
            }
        }
        if let limit { reselectIfNeeded(fix, limit: limit, state: &state, events: &events) }

        // Fences to evaluate: those near enough to matter, and those not in the assumed state.
        var candidates: [Int] = []
        index.forEachCandidate(lat: fix.lat, lon: fix.lon, margin: FenceEngine.searchSigmas * fix.sigma + 1) { k in
            candidates.append(k)
        }
        // Usually no fence or a handful is held: a linear check beats building a set per fix.
        let near = candidates.count
        for k in state.states.keys where !candidates[..<near].contains(k) { candidates.append(k) }
        if candidates.count > 1 { candidates.sort() }
        let here = Geodesy.Point(lat: fix.lat, lon: fix.lon)
        let steady =
            settings.kind == .steady ? settings.observe(fix, previous: state.previous, pool: &state.still) : nil
        for k in candidates {
            if limit != nil, !state.watched.contains(k) { continue }
            let f = index.fences[k]
            let d = Geodesy.distance(here, index.centres[k])
            var p = InsideProbability.p(distance: d, radius: f.radius, sigma: fix.sigma)
            var s = state.states[k] ?? FenceState(inside: settings.assumeInside)
            let change: Bool?
            if let steady {
                if let pooled = steady.position {
                    p = InsideProbability.p(
                        distance: Geodesy.distance(pooled, index.centres[k]), radius: f.radius, sigma: steady.sigma)
                }
                change = settings.steadyStep(&s, p: p, observation: steady, fix: fix, previous: state.previous)
            } else {
                change = settings.step(&s, p: p, distance: d, radius: f.radius, fix: fix, previous: state.previous)
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
            let settled = s.settledStretch != nil && s.settledStretch == state.still.stretch && state.still.active
            if s.inside == settings.assumeInside && s.count == 0 && !settled && s.enteredAt == nil {
                state.states[k] = nil
            } else {
                state.states[k] = s
            }
            if let report, p >= FenceEngine.traceThreshold || s.inside { report(k, p, d, s.inside) }
        }
        if limit != nil { findMissed(fix, state: &state, events: &events) }
        state.previous = fix
        return events
    }

    /// Core Location's budget: the N−1 fences with the nearest edges, and a refresh circle on
    /// the user reaching just short of the N-th (never below 50 m); leaving it reselects, before
    /// the fix is evaluated. Fences the user is held inside keep their place.
    private func reselectIfNeeded(_ fix: FixPoint, limit: Int, state: inout TraceFences, events: inout [FenceEvent]) {
        if state.selected {
            guard let r = state.refresh else { return }  // every fence is watched
            let d = Geodesy.distance(lat1: fix.lat, lon1: fix.lon, lat2: r.lat, lon2: r.lon)
            if d <= r.radius { return }
        }
        state.selected = true
        // Fences the rule holds the user inside stay watched, nearest or not, so that their exit
        // is still seen (an app keeps the regions it believes it is in); the nearest fill the rest.
        let held = state.states.filter { $0.value.inside && !settings.assumeInside }.map(\.key).sorted()
        var watched = Array(held.prefix(limit - 1))
        let nearest = index.nearestEdges(lat: fix.lat, lon: fix.lon, count: limit + watched.count)
        for n in nearest where watched.count < limit - 1 && !watched.contains(n.index) { watched.append(n.index) }
        // The refresh circle reaches the edge of the nearest fence left unwatched.
        let nextUnwatched = nearest.first { !watched.contains($0.index) }
        let newSet = Set(watched)
        // Fences no longer watched lose their state; newly watched ones start as assumed.
        for k in state.states.keys where !newSet.contains(k) { state.states[k] = nil }
        if settings.assumeInside {
            for k in watched where !state.watched.contains(k) { state.states[k] = FenceState(inside: true) }
        }
        state.watched = newSet
        if let next = nextUnwatched {
            let radius = max(FenceEngine.minimumRefreshRadius, next.edge)
            state.refresh = (fix.lat, fix.lon, radius)
        } else {
            state.refresh = nil
        }
        events.append(.reselect(watched.sorted(), radius: state.refresh?.radius))
    }

    /// A fix inside a fence (d ≤ R) that is not watched: what the budget cost the app, said
    /// once until the fix is outside that fence again.
    private func findMissed(_ fix: FixPoint, state: inout TraceFences, events: inout [FenceEvent]) {
        var inside: [Int] = []
        let here = Geodesy.Point(lat: fix.lat, lon: fix.lon)
        index.forEachCandidate(lat: fix.lat, lon: fix.lon, margin: 0) { k in
            if Geodesy.distance(here, index.centres[k]) <= index.fences[k].radius { inside.append(k) }
        }
        let now = Set(inside)
        state.missedInside = state.missedInside.filter { now.contains($0) }
        for k in inside.sorted() where !state.watched.contains(k) && !state.missedInside.contains(k) {
            state.missedInside.insert(k)
            let f = index.fences[k]
            let d = Geodesy.distance(here, index.centres[k])
            events.append(
                .missed(k, distance: d, p: InsideProbability.p(distance: d, radius: f.radius, sigma: fix.sigma)))
        }
    }
}
