/// A visit: where the user stayed, from when to when (Core Location's `CLVisit`).
public struct Visit: Equatable, Sendable {
    public var lat: Double
    public var lon: Double
    /// The radius around the coordinate within which the stay's fixes lie (their weighted 68th
    /// percentile distance), metres.
    public var hacc: Double
    /// Nil when the trace begins inside the visit (CLVisit's `distantPast`).
    public var arrival: Timestamp?
    /// Nil when the trace ends inside the visit (CLVisit's `distantFuture`).
    public var departure: Timestamp?
    public var fixes: Int
    public var trace: String?
}

public struct StaySettings: Sendable {
    /// How far a fix may be from the stay's centre, beyond its own hacc, metres.
    public var radius = 50.0
    /// The shortest stay that is a visit, seconds.
    public var minStay = 300.0
    /// The longest stretch without fixes inside a stay, seconds; longer ends it.
    public var maxGap = 3600.0
    /// A stay ends only after this many fixes in a row outside it...
    public var exitFixes = 3
    /// ...spanning at least this many seconds.
    public var exitSpan = 60.0
    /// The hacc taken for fixes without one, metres (the same as fencerule's).
    public var defaultHacc = DefaultHacc.metres
    /// A stay whose fixes drift along a line this much (`DriftFit.movement`) is slow movement,
    /// not a visit.
    public var maxMovement = 0.75

    public init() {}
}

/// Finds stays in one trace's fixes, streaming: a visit is handed over as soon as it is over,
/// and memory holds one stay's summary (`StaySummary`: its fixes while it is short, bounded
/// summaries past that), never the log's.
///
/// Each fix is measured against the stay's running centre, the weighted median of its fixes
/// (weighted by the time each stands for over its hacc², so outliers, vague indoor fixes and
/// a brisk walk in do not drag it; see `weights`); it belongs to the stay
/// when it lies within `radius` plus its own hacc. The stay ends only after `exitFixes` fixes in
/// a row outside it spanning `exitSpan` seconds, so a jump or a short excursion does not end
/// it; those fixes then seed the next candidate stay (two places a few hundred metres apart,
/// back to back). A gap longer than `maxGap` ends the stay at its last fix; a shorter one is
/// bridged when the next fix is back inside. A stay is a visit when it lasted `minStay` and
/// its fixes do not drift along a line (`DriftFit`, `maxMovement`): a slow walk drags a stay
/// along until the walker outruns it. Arrival and departure are the first and last fixes
/// inside; an end at the log's edge is open (nil).
///
/// A visit that ended by the exit rule is held, not handed over, until a fix comes `minStay`
/// after its departure: if the user is back within `radius` plus the fix's hacc of its centre
/// before that, the stay goes on (the fixes in between are an excursion, as a shorter one
/// is) and back-to-back visits become one. Memory: at most two stays' summaries, or, once
/// `park`ed (a trace gone quiet, `StaySpool`), their fixed-size part.
public struct StayDetector {
    let settings: StaySettings
    let trace: String?
    private var stay = StaySummary()
    private var fit = DriftFit()
    private var held: Held?
    /// The fixes in a row back inside the held visit (fewer than `exitFixes`).
    private var returning: [StayPoint] = []
    private var outside: [StayPoint] = []
    /// The stay's centre, prepared for the distance test of each fix.
    private var centre: Geodesy.Centre?
    private var centredAt = 0
    private var beganAtTraceStart = false
    private var seenAny = false
    /// The time of the last fix added, which the next must not precede.
    public private(set) var lastTime: Timestamp?
    /// Whether the arrays are in a `StaySpool` (`park`): nothing but `unpark` may be asked.
    public private(set) var isParked = false
    /// This detector's region of the spool, reused by its next park when that fits.
    private var region: StaySpool.Region?

    /// A visit over by the exit rule, kept while the user may still come back to it.
    private struct Held {
        var stay: StaySummary
        var fit: DriftFit
        var centre: Geodesy.Centre
        var centredAt: Int
        var beganAtTraceStart: Bool
        var visit: Visit
        /// The time of its last fix, seconds.
        var departure: Double
    }

    struct StayPoint {
        var lat: Double
        var lon: Double
        var hacc: Double
        var time: Timestamp
    }

    public init(settings: StaySettings, trace: String?) {
        self.settings = settings
        self.trace = trace
    }

    public mutating func add(lat: Double, lon: Double, hacc: Double?, time: Timestamp, emit: (Visit) throws -> Void)
        rethrows
    {
        let p = StayPoint(lat: lat, lon: lon, hacc: max(0, hacc ?? settings.defaultHacc), time: time)
        assert(!isParked, "unpark before add")
        defer { lastTime = time }
        // Asked first: binding `held` copies its few hundred bytes, even to find it empty.
        if held != nil, let h = held {
            let gap = lastTime.map { time.seconds - $0.seconds } ?? 0
            if p.time.seconds - h.departure >= settings.minStay || gap > settings.maxGap {
                held = nil
                try emit(h.visit)
            } else if !h.centre.isWithin(settings.radius + p.hacc, lat: p.lat, lon: p.lon) {
                returning = []
            } else if returning.count + 1 < settings.exitFixes {
                returning.append(p)
            } else {
                // Back before min-stay, `exitFixes` fixes in a row (so that one vague fix does not
                // bring it back): the visit goes on, and what came between was an excursion.
                held = nil
                stay = h.stay
                fit = h.fit
                centre = h.centre
                centredAt = h.centredAt
                beganAtTraceStart = h.beganAtTraceStart
                outside = []
                for q in returning { include(q) }
                returning = []
                include(p)
                return
            }
        }
        guard seenAny else {
            seenAny = true
            begin([p], atTraceStart: true)
            return
        }
        if let last = lastTime, time.seconds - last.seconds > settings.maxGap {
            // The phone slept too long to call it one stay: end it at its last fix.
            try close(departed: true, hold: false, emit: emit)
            begin([p], atTraceStart: false)
            return
        }
        guard let c = centre else {
            begin([p], atTraceStart: false)
            return
        }
        if c.isWithin(settings.radius + p.hacc, lat: p.lat, lon: p.lon) {
            outside.removeAll()  // a jump or an excursion that came back: not part of the stay
            include(p)
            return
        }
        outside.append(p)
        if outside.count >= settings.exitFixes,
            (outside.last?.time.seconds ?? 0) - (outside.first?.time.seconds ?? 0) >= settings.exitSpan
        {
            let next = outside
            // A first candidate of a fix or two (an outlier as the log's first fix) does not take
            // the log's open start away from the stay that follows; a moving start does.
            let carryStart = beganAtTraceStart && stay.count < settings.exitFixes
            try close(departed: true, hold: true, emit: emit)
            begin(next, atTraceStart: carryStart)
        }
    }

    /// The end of the trace: the stay in progress is a visit whose departure is unknown, unless
    /// the last fixes already show the user leaving.
    public mutating func finish(emit: (Visit) throws -> Void) rethrows {
        assert(!isParked, "unpark before finish")
        let leaving = self.leaving
        if let h = held {
            held = nil
            try emit(h.visit)
        }
        try close(departed: leaving, hold: false, emit: emit)
    }

    /// Whether the last fixes already show the user leaving: the exit rule's fixes outside.
    private var leaving: Bool {
        guard let first = outside.first, let last = outside.last else { return false }
        return outside.count >= settings.exitFixes && last.time.seconds - first.time.seconds >= settings.exitSpan
    }

    /// About how many bytes `park` would move out of memory.
    var parkableBytes: Int {
        stay.parkableBytes + (held?.stay.parkableBytes ?? 0)
            + (returning.count + outside.count) * MemoryLayout<StayPoint>.stride
    }

    /// Moves the detector's arrays (its stays' fixes and heaps, held visit's included) into
    /// `spool`, for a trace that has gone quiet; `unpark` puts them back exactly, so parking
    /// changes no visit. Memory left: the fixed-size part.
    mutating func park(in spool: StaySpool) throws {
        guard !isParked else { return }
        var out = ParkedBytes()
        stay.park(into: &out)
        held?.stay.park(into: &out)
        out.put(returning)
        out.put(outside)
        region = try spool.store(out.bytes, reusing: region)
        returning = []
        outside = []
        isParked = true
    }

    mutating func unpark(from spool: StaySpool) throws {
        guard isParked, let region else { return }
        var parked = ParkedBytes(try spool.load(region))
        try stay.unpark(from: &parked)
        try held?.stay.unpark(from: &parked)
        returning = try parked.take(StayPoint.self)
        outside = try parked.take(StayPoint.self)
        guard parked.isAtEnd else { throw StaySpool.cutShort }
        isParked = false
    }

    private mutating func include(_ p: StayPoint) {
        stay.append(p)
        fit.add(lat: p.lat, lon: p.lon, hacc: p.hacc, time: p.time.seconds)
        recentreIfDue()
    }

    private mutating func begin(_ points: [StayPoint], atTraceStart: Bool) {
        stay = StaySummary(points)
        fit = DriftFit()
        for p in points { fit.add(lat: p.lat, lon: p.lon, hacc: p.hacc, time: p.time.seconds) }
        outside = []
        beganAtTraceStart = atTraceStart
        centre = nil
        centredAt = 0
        recentreIfDue()
    }

    /// Recomputes the centre for every new fix while the stay is young, then after every
    /// sixteenth growth. While the stay is short a centre costs a few heap steps; past
    /// `StaySummary.exactLimit` it is a selection over the summary's bins, so the schedule keeps
    /// a long stay O(n) rather than O(n²). The schedule decides which fixes are measured
    /// against which centre, so it is part of what visits outputs.
    private mutating func recentreIfDue() {
        guard !stay.isEmpty else { return }
        if centre == nil || stay.count <= 32 || stay.count - centredAt >= max(1, centredAt / 16) {
            centre = stay.centre().map { Geodesy.Centre(lat: $0.lat, lon: $0.lon) }
            centredAt = stay.count
        }
    }

    /// Ends the stay; a visit is handed over, or held (`hold`) while the user may come back.
    private mutating func close(departed: Bool, hold: Bool, emit: (Visit) throws -> Void) rethrows {
        defer {
            stay = StaySummary()
            fit = DriftFit()
            outside = []
            centre = nil
        }
        guard let visit = closingVisit(departed: departed) else { return }
        guard hold else { return try emit(visit) }
        guard let last = stay.last else { return }
        returning = []
        held = Held(
            stay: stay, fit: fit, centre: Geodesy.Centre(lat: visit.lat, lon: visit.lon), centredAt: stay.count,
            beganAtTraceStart: beganAtTraceStart,
            visit: visit, departure: last.time.seconds)
    }

    /// The visit the stay in progress is if it ends now, if it is one.
    private mutating func closingVisit(departed: Bool) -> Visit? {
        guard let first = stay.first, let last = stay.last, last.time.seconds - first.time.seconds >= settings.minStay,
            fit.movement(radius: settings.radius) < settings.maxMovement
        else {
            return nil
        }
        // On the stay itself: the centre's running medians balance their heaps and walk them
        // (putting back what they took), which changes no answer, and a copy would copy every
        // heap to do it.
        guard let c = stay.centre() else { return nil }
        let spread = stay.spread(around: c)
        return Visit(
            lat: c.lat, lon: c.lon, hacc: spread, arrival: beganAtTraceStart ? nil : first.time,
            departure: departed ? last.time : nil, fixes: stay.count, trace: trace)
    }
}
