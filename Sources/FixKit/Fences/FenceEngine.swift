#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// fencerule's state for one trace: the fences' states, and under a region budget the watched
/// set, the refresh circle and the fences entered while unwatched.
struct TraceFences {
    var states = FenceStates()
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
///
/// A class: the tool calls it from a closure for every fix, and as a struct of five class
/// references each call copied it (3.2 copies a fix, each retaining and releasing all five).
/// How a fix's fences are found is in `FenceEngine+Candidates.swift`.
final class FenceEngine {
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

    struct Candidate {
        var k: Int
        var d: Double
        var radius: Double
        var place: Int
    }

    /// Sorts the candidates by fence: a few as a rule, which an insertion sort orders in a
    /// fraction of the standard sort's instructions; many (--trace, or a huge σ) as words of
    /// their fence and place, the fence above, sorted (by the bits of the fence, in linear
    /// time, for thousands) and the candidates then gathered in that order. The standard sort
    /// of the 32-byte candidates with a closure took 7.5% of --trace among a million fences,
    /// and 14% where a fix with hacc 3,000 km makes every fence a candidate.
    static func sortByFence(_ list: ScratchBuffer<Candidate>) {
        let n = list.count
        if n > 32 {
            // A fence number is below 2^24 (`FenceIndex.capacity`), a place below 2^32.
            var keys = [UInt64](unsafeUninitializedCapacity: n) { keys, count in
                for i in 0..<n { keys[i] = UInt64(truncatingIfNeeded: list[i].k) << 32 | UInt64(i) }
                count = n
            }
            if n >= 4096 { FenceIndex.radixSort(&keys, fromBit: 32) } else { keys.sort() }
            // SAFETY: the buffer's `count` elements, copied, then each written once from the copy
            // (the places are a permutation of 0..<n); nothing appends meanwhile.
            let unsorted = Array(list.elements)
            for j in 0..<n { list[j] = unsorted[Int(truncatingIfNeeded: keys[j] & 0xFFFF_FFFF)] }
            return
        }
        for i in 1..<max(1, list.count) {
            let e = list[i]
            var j = i
            while j > 0, list[j - 1].k > e.k {
                list[j] = list[j - 1]
                j -= 1
            }
            list[j] = e
        }
    }

    /// Which side of the thresholds P is on, without P where a table settles it.
    let decisions: DecisionTable
    /// The fences near the trace the stream is on.
    let near = NearFences()
    /// A fix's candidates, and the states it adds: kept from fix to fix, whatever the trace
    /// (one fix is processed at a time).
    let candidates = ScratchBuffer<Candidate>()
    let added = ScratchBuffer<FenceStates.Entry>()
    /// The last far reselection (`nearestEdges`): where, for how many, what it found.
    private var farNearest: (lat: Double, lon: Double, count: Int, found: [(index: Int, edge: Double)])?
    /// The index's nearest-edges searches made, for the tests.
    private(set) var nearestSearches = 0
    /// A reselection whose farthest edge is past this (metres; the distance is no longer the
    /// chord) is kept for a fix at the same place.
    static let farEdge = 50_000.0

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
    func standIn(inside: Bool, _ d: Double, _ radius: Double, _ sigma: Double, perSigma: Double) -> Double? {
        if !acting.naive, sigma > 0, sigma.isFinite, radius.isFinite, d.isFinite,
            let contradicts = decisions.contradicts(inside: inside, d, radius, perSigma: perSigma)
        {
            // A value on the side the table found, far from the threshold by P's rounding.
            let slack = DecisionTable.slack
            if inside { return contradicts ? settings.exit - slack : settings.exit + slack }
            return contradicts ? settings.enter + slack : settings.enter - slack
        }
        return boundsStandIn(inside: inside, d, radius, sigma)
    }

    /// `ActingRegion.standIn`, out of line: the table settles most comparisons (all but 3% on
    /// noisy fixes), and with its exp and two erfc inlined at both of `evaluate`'s places,
    /// `standIn` itself was too large to be inlined there, and every call paid for a call. A
    /// method of the engine rather than `@inline(never)` on `ActingRegion.standIn`: a call
    /// passing the engine alone keeps the merge loop's call sites small, where passing the
    /// region's fields cost 17 more instructions a fix.
    @inline(never)
    func boundsStandIn(inside: Bool, _ d: Double, _ radius: Double, _ sigma: Double) -> Double? {
        acting.standIn(inside: inside, d, radius, sigma)
    }

    /// One fix. `fences` receives each fence worth reporting in --trace (index, p, distance,
    /// inside), in index order; the events come back in order.
    ///
    /// The fences to evaluate are the candidates (where a quiet fence may change, and for
    /// --trace all that may reach its threshold) and the fences whose state is kept, walked in
    /// one merge in fence order. The kept states are updated where they lie (most fixes change
    /// none, or only a dwell count), and the fences that gain a state are merged in after.
    /// Under the default rules most kept states are settled without their step: one held
    /// inside from the squared chord, one outside that is no candidate at once. What a fix
    /// rarely needs (a steady observation, --trace's widening, an event) is in functions of
    /// its own.
    func process(
        _ fix: FixPoint, trace state: inout TraceFences, fences report: ((Int, Double, Double, Bool) -> Void)? = nil
    ) -> [FenceEvent] {
        var events: [FenceEvent] = []
        process(fix, trace: &state, fences: report, into: &events)
        return events
    }

    /// The same, the events appended to `events`: a caller that empties one array and keeps it
    /// allocates nothing for a fix with events (a new array a fix allocated for each of them).
    func process(
        _ fix: FixPoint, trace state: inout TraceFences, fences report: ((Int, Double, Double, Bool) -> Void)?,
        into events: inout [FenceEvent]
    ) {
        if !state.initialized { start(&state) }
        let here = Geodesy.Point(lat: fix.lat, lon: fix.lon)
        if let limit { reselectIfNeeded(fix, at: here, limit: limit, state: &state, events: &events) }

        let steady =
            settings.kind == .steady ? settings.observe(fix, previous: state.previous, pool: &state.still) : nil
        var (margin, minRadius) = acting.region(sigma: fix.sigma)
        if report != nil || steady != nil {
            (margin, minRadius) = widened(margin, minRadius, fix, at: here, steady: steady, tracing: report != nil)
        }
        // Only a limit has a watched set (an optional: nil needs no reference counting).
        let watched = limit != nil ? state.watched : nil
        // The scratch buffers are used through `self`: a local copy of the reference, captured
        // by the closures, was retained and released for every fix.
        candidates.removeAll()
        gatherCandidates(here, margin: margin, minRadius: minRadius, serial: state.serial, watched: watched)
        if candidates.isEmpty, state.states.isEmpty {
            if limit != nil { findMissed(fix, at: here, state: &state, events: &events) }
            state.previous = fix
            return
        }
        if candidates.count > 1 { FenceEngine.sortByFence(candidates) }
        added.removeAll()
        let previous = state.previous
        let stillStretch = state.still.stretch
        let stillActive = state.still.active
        // The common case's shortcut for a fence held inside with no dwell under way (most of
        // the kept states): whether the step surely leaves it as it is, from the squared chord
        // alone, before a square root and a division are spent on its distance.
        let plain =
            report == nil && steady == nil && limit == nil && !acting.naive && fix.sigma > 0
            && fix.sigma.isFinite
        let deep = acting.deepInside * fix.sigma + 1e-6
        // The table's lookups multiply by it (see `DecisionTable.contradicts`).
        let perSigma = 1 / fix.sigma
        state.states.withEntries { kept in
            var c = 0
            var m = 0
            var w = 0
            let n = kept.count
            while c < candidates.count || m < n {
                if m == n || (c < candidates.count && candidates[c].k < kept[m].key) {
                    // A fence with no state: the quiet one, outside with no dwell.
                    let f = candidates[c]
                    c += 1
                    var s = FenceState(inside: false)
                    if evaluate(
                        &s, f.k, f.d, f.radius, f.place, fix, previous: previous, steady: steady,
                        still: (stillStretch, stillActive), perSigma: perSigma, report: report, events: &events)
                    {
                        added.append(FenceStates.Entry(key: f.k, place: f.place, state: s))
                    }
                    continue
                }
                let k = kept[m].key
                let place = kept[m].place
                let d: Double
                let radius: Double
                if c < candidates.count, candidates[c].k == k {
                    d = candidates[c].d
                    radius = candidates[c].radius
                    c += 1
                } else if plain, !kept[m].state.inside {
                    // Outside, and not a candidate: P > enter is out of reach (that is what the
                    // candidates are), so the step finds no contradiction and resets the dwell,
                    // which leaves the quiet state, forgotten. Half of a noisy fix's kept states
                    // are such dwells of one fix, begun by the fix before.
                    m += 1
                    continue
                } else {
                    assert(Int(index.originals[place]) == k, "a kept state's place is its fence's slot")
                    // SAFETY: a kept state's place is its fence's slot, below the index's count.
                    let slot = index.slots[place]
                    let squared = FenceIndex.chordSquared(here, slot.x, slot.y, slot.z)
                    if plain, kept[m].state.inside, kept[m].state.count == 0, squared < 2.5e9 {
                        // Surely inside (R − d ≥ deep, as `surelyInside`) or not contradicted by
                        // the table: count 0 means nothing of a dwell is left to reset, so the step
                        // would change nothing. Under 50 km the distance is the chord.
                        let t = slot.radius - deep
                        if (t >= 0 && squared <= t * t)
                            || decisions.holdsInside(squared: squared, slot.radius, fix.sigma, perSigma: perSigma)
                        {
                            if w != m { kept[w] = kept[m] }
                            w += 1
                            m += 1
                            continue
                        }
                    }
                    d = index.distance(here, k, chordSquared: squared)
                    radius = slot.radius
                }
                let i = m
                m += 1
                // Unwatched under a limit, or held inside with no dwell under way and surely not
                // contradicted: the step would leave it as it is, so P is not needed (unless
                // --trace prints it).
                let keep =
                    (watched.map { !$0.contains(k) } ?? false)
                    || (report == nil && steady == nil && kept[i].state.inside && kept[i].state.count == 0
                        && acting.surelyInside(d, radius, fix.sigma))
                    || evaluate(
                        &kept[i].state, k, d, radius, place, fix, previous: previous, steady: steady,
                        still: (stillStretch, stillActive), perSigma: perSigma, report: report, events: &events)
                if keep {
                    if w != i { kept[w] = kept[i] }
                    w += 1
                }
            }
            return w
        }
        if !added.isEmpty { state.states.insert(sorted: added) }
        if limit != nil { findMissed(fix, at: here, state: &state, events: &events) }
        state.previous = fix
    }

    /// A trace's first fix: its number for `NearFences`, and under `--assume inside` (without a
    /// limit) a state for every fence.
    @inline(never)
    private func start(_ state: inout TraceFences) {
        state.initialized = true
        state.serial = near.newSerial()
        if settings.assumeInside, limit == nil {
            // Every fence starts inside: all must be looked at until each has left.
            for k in index.table.indices {
                state.states.append(k, place: index.place(of: k), FenceState(inside: true))
            }
        }
    }

    /// The region to search under --trace (every fence P may reach its threshold in) and under
    /// the steady rule (as far as P can reach from the fix or the pooled position).
    @inline(never)
    private func widened(
        _ margin: Double, _ minRadius: Double, _ fix: FixPoint, at here: Geodesy.Point, steady: SteadyObservation?,
        tracing: Bool
    ) -> (margin: Double, minRadius: Double) {
        var margin = margin
        var minRadius = minRadius
        if tracing {
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
        return (margin, minRadius)
    }

    /// One fence's step for the fix: its state `s` (the quiet one for a fence without a kept
    /// state) advanced by the rule, an event appended if it changed, and --trace's report.
    /// Whether the state is to be kept: anything but the quiet one (outside, no dwell, nothing
    /// pooled) is.
    @inline(__always)
    private func evaluate(
        _ s: inout FenceState, _ k: Int, _ d: Double, _ radius: Double, _ place: Int, _ fix: FixPoint,
        previous: FixPoint?, steady: SteadyObservation?, still: (stretch: Int, active: Bool), perSigma: Double,
        report: ((Int, Double, Double, Bool) -> Void)?, events: inout [FenceEvent]
    ) -> Bool {
        let change: Bool?
        var p = 0.0
        if let steady {
            (change, p) = steadyStep(&s, k, d, radius, place, fix, previous: previous, steady: steady)
        } else if report == nil, let standIn = standIn(inside: s.inside, d, radius, fix.sigma, perSigma: perSigma) {
            // The step reads P only against its threshold, so where a table or cheap bounds on
            // P already settle that comparison, a value on the same side stands in; the exact P
            // is worked out only for an event, which prints it.
            change = settings.step(&s, p: standIn, distance: d, radius: radius, fix: fix, previous: previous)
            if change != nil { p = InsideProbability.p(distance: d, radius: radius, sigma: fix.sigma) }
        } else {
            p = InsideProbability.p(distance: d, radius: radius, sigma: fix.sigma)
            change = settings.step(&s, p: p, distance: d, radius: radius, fix: fix, previous: previous)
        }
        if let change { record(change, &s, k, d, p, fix, events: &events) }
        if let report, p >= FenceEngine.traceThreshold || s.inside { report(k, p, d, s.inside) }
        // Only the quiet state (outside, no dwell, nothing pooled) is forgotten: fences that
        // start inside under --assume are given their state when first seen.
        if s.inside || s.count != 0 || s.enteredAt != nil { return true }
        return s.settledStretch != nil && s.settledStretch == still.stretch && still.active
    }

    /// The steady rule's step: P from the fix, or from the pooled position of a user standing
    /// still.
    @inline(never)
    private func steadyStep(
        _ s: inout FenceState, _ k: Int, _ d: Double, _ radius: Double, _ place: Int, _ fix: FixPoint,
        previous: FixPoint?, steady: SteadyObservation
    ) -> (Bool?, Double) {
        var p = InsideProbability.p(distance: d, radius: radius, sigma: fix.sigma)
        if let pooled = steady.position {
            p = InsideProbability.p(
                distance: index.distance(pooled, index.slots[place], k), radius: radius, sigma: steady.sigma)
        }
        return (settings.steadyStep(&s, p: p, observation: steady, fix: fix, previous: previous), p)
    }

    /// An enter or exit: the event, and the time of the enter for the exit's duration.
    @inline(never)
    private func record(
        _ entered: Bool, _ s: inout FenceState, _ k: Int, _ d: Double, _ p: Double, _ fix: FixPoint,
        events: inout [FenceEvent]
    ) {
        if entered {
            s.enteredAt = fix.time
            events.append(.enter(k, distance: d, p: p))
        } else {
            let duration = fix.time.flatMap { t in s.enteredAt.map { t.seconds - $0.seconds } }
            s.enteredAt = nil
            events.append(.exit(k, distance: d, p: p, duration: duration))
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
        let nearest = nearestEdges(fix, count: limit + watched.count)
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

    /// `index.nearestEdges` for the fix, or the last far answer when the fix is at its place
    /// again: a receiver's glitch fix comes back at the same place (0,0, null island, is the
    /// usual one), and far from every fence the search measures the fences of a band as deep
    /// as its bound's slack (0.4% of the distance, `FenceIndex.leastDistance`): 0.07 s for a
    /// fix at 0,0 among a million fences over 100 km in Switzerland, every time it came. Near
    /// a fence the search is cheap, and its answer is not kept: the glitch's survives the
    /// fixes between glitches.
    private func nearestEdges(_ fix: FixPoint, count: Int) -> [(index: Int, edge: Double)] {
        var asked = count
        if let far = farNearest, far.lat == fix.lat, far.lon == fix.lon {
            // The answer is in order (nearest first, then file order), so a search for fewer
            // finds the first `count` of a search for more.
            if far.count >= count { return Array(far.found.prefix(count)) }
            // More are wanted here than last time (each fence the trace is held inside is
            // asked for on top of the limit): a few more still, for the next time.
            asked = count + 4
        }
        nearestSearches += 1
        let found = index.nearestEdges(lat: fix.lat, lon: fix.lon, count: asked)
        // The last edge found, not the first: a fence so large that it holds the fix does not
        // make the search for the others any cheaper.
        if let last = found.last, last.edge > FenceEngine.farEdge {
            farNearest = (fix.lat, fix.lon, asked, found)
        }
        return Array(found.prefix(count))
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
            let d = Geodesy.distance(here, index.centre(k))
            events.append(
                .missed(
                    k, distance: d, p: InsideProbability.p(distance: d, radius: index.table.radius[k], sigma: fix.sigma)
                ))
        }
        if state.missedInside.count > reported { state.missedInside.sort() }
    }
}
