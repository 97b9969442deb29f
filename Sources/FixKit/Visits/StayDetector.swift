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
    /// The hacc taken for fixes without one, metres.
    public var defaultHacc = 20.0

    public init() {}
}

/// Finds stays in one trace's fixes, streaming: a visit is handed over as soon as it is over,
/// and memory holds one stay's fixes, never the log's.
///
/// Each fix is measured against the stay's running centre, the weighted median of its fixes
/// (weighted by the time each stands for over its hacc², so outliers, vague indoor fixes and
/// a brisk walk in do not drag it; see `weights`); it belongs to the stay
/// when it lies within `radius` plus its own hacc. The stay ends only after `exitFixes` fixes in
/// a row outside it spanning `exitSpan` seconds, so a jump or a short excursion does not end
/// it; those fixes then seed the next candidate stay (two places a few hundred metres apart,
/// back to back). A gap longer than `maxGap` ends the stay at its last fix; a shorter one is
/// bridged when the next fix is back inside. A stay is a visit when it lasted `minStay`.
/// Arrival and departure are the first and last fixes inside; an end at the log's edge is
/// open (nil).
public struct StayDetector {
    let settings: StaySettings
    let trace: String?
    private var stay: [StayPoint] = []
    private var outside: [StayPoint] = []
    private var centre: (lat: Double, lon: Double)?
    private var centredAt = 0
    private var beganAtTraceStart = false
    private var seenAny = false
    private var lastTime: Timestamp?

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

    public mutating func add(lat: Double, lon: Double, hacc: Double?, time: Timestamp, emit: (Visit) throws -> Void) rethrows {
        let p = StayPoint(lat: lat, lon: lon, hacc: max(0, hacc ?? settings.defaultHacc), time: time)
        defer { lastTime = time }
        guard seenAny else {
            seenAny = true
            begin([p], atTraceStart: true)
            return
        }
        if let last = lastTime, time.seconds - last.seconds > settings.maxGap {
            // The phone slept too long to call it one stay: end it at its last fix.
            try close(departed: true, emit: emit)
            begin([p], atTraceStart: false)
            return
        }
        guard let c = centre else {
            begin([p], atTraceStart: false)
            return
        }
        let d = Geodesy.distance(lat1: c.lat, lon1: c.lon, lat2: p.lat, lon2: p.lon)
        if d <= settings.radius + p.hacc {
            outside.removeAll()  // a jump or an excursion that came back: not part of the stay
            stay.append(p)
            recentreIfDue()
            return
        }
        outside.append(p)
        if outside.count >= settings.exitFixes, outside.last!.time.seconds - outside.first!.time.seconds >= settings.exitSpan {
            let next = outside
            // A first candidate of a fix or two (an outlier as the log's first fix) does not take
            // the log's open start away from the stay that follows; a moving start does.
            let carryStart = beganAtTraceStart && stay.count < settings.exitFixes
            try close(departed: true, emit: emit)
            begin(next, atTraceStart: carryStart)
        }
    }

    /// The end of the trace: the stay in progress is a visit whose departure is unknown, unless
    /// the last fixes already show the user leaving.
    public mutating func finish(emit: (Visit) throws -> Void) rethrows {
        let leaving = !outside.isEmpty && outside.count >= settings.exitFixes
            && outside.last!.time.seconds - outside.first!.time.seconds >= settings.exitSpan
        try close(departed: leaving, emit: emit)
    }

    private mutating func begin(_ points: [StayPoint], atTraceStart: Bool) {
        stay = points
        outside = []
        beganAtTraceStart = atTraceStart
        centre = nil
        centredAt = 0
        recentreIfDue()
    }

    /// Recomputes the centre for every new fix while the stay is young, then after every
    /// sixteenth growth: O(n log n) over a stay rather than O(n² log n).
    private mutating func recentreIfDue() {
        guard !stay.isEmpty else { return }
        if centre == nil || stay.count <= 32 || stay.count - centredAt >= max(1, centredAt / 16) {
            centre = Self.centre(of: stay)
            centredAt = stay.count
        }
    }

    /// Each fix's weight: the time it stands for (half the time to each neighbour, at most a
    /// minute) over its hacc² (hacc at least 30 m). Time, so that a walk in at 1 Hz does not
    /// outweigh an hour indoors at a fix a minute; the hacc floor, so that a few crisp fixes on
    /// the way in do not either.
    static func weights(_ points: [StayPoint]) -> [Double] {
        points.indices.map { i in
            let before = i > 0 ? points[i].time.seconds - points[i - 1].time.seconds : 0
            let after = i + 1 < points.count ? points[i + 1].time.seconds - points[i].time.seconds : 0
            let share = min(60, max(0, before) / 2 + max(0, after) / 2)
            let h = max(30, points[i].hacc)
            return max(share, 0.5) / (h * h)
        }
    }

    static func centre(of points: [StayPoint]) -> (lat: Double, lon: Double) {
        let weights = weights(points)
        let lat = WeightedMedian.of(points.map(\.lat), weights: weights)!
        // Longitudes about the first point, so a stay on the antimeridian is not split.
        let lon0 = points[0].lon
        let lons = points.map { p -> Double in
            var d = p.lon - lon0
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            return d
        }
        var lon = lon0 + WeightedMedian.of(lons, weights: weights)!
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (lat, lon)
    }

    private mutating func close(departed: Bool, emit: (Visit) throws -> Void) rethrows {
        defer {
            stay = []
            outside = []
            centre = nil
        }
        guard let first = stay.first, let last = stay.last, last.time.seconds - first.time.seconds >= settings.minStay else {
            return
        }
        let c = Self.centre(of: stay)
        let weights = Self.weights(stay)
        let distances = stay.map { Geodesy.distance(lat1: c.lat, lon1: c.lon, lat2: $0.lat, lon2: $0.lon) }
        let spread = WeightedMedian.quantile(distances, weights: weights, 0.68) ?? 0
        try emit(
            Visit(
                lat: c.lat, lon: c.lon, hacc: spread, arrival: beganAtTraceStart ? nil : first.time,
                departure: departed ? last.time : nil, fixes: stay.count, trace: trace))
    }
}
