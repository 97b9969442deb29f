/// The settings of fixstats' figures (SPEC "fixstats").
public struct StatsSettings: Sendable, Equatable {
    /// The longest interval between consecutive fixes that can count as moving, seconds; nil
    /// for no limit (`--max-gap off`).
    public var maxGap: Double? = 60
    /// The slowest distance over time that counts as moving, m/s.
    public var movingSpeed = 0.5
    /// Reversals of altitude smaller than this are ignored, metres.
    public var climbThreshold = 5.0

    public init() {}
}

/// The summary figures of one trace, built one fix at a time in input order.
///
/// - `distance`: the sum of the WGS 84 distances (`Geodesy.distance`) between consecutive
///   fixes with the same `seg` (a fix without `seg` follows one without), in metres.
/// - `start`, `end`: the earliest and the latest `time`; `duration` is `end - start`, seconds.
/// - `movingTime`: the sum of the intervals between consecutive fixes of a segment, both
///   with a time, that last more than 0 and at most `maxGap` seconds, and whose distance
///   over time is at least `movingSpeed`.
/// - `ascent`, `descent`: `ClimbCounter` over the trace's altitudes in input order, across
///   its segments (the altitude of a place does not change while a recording is paused).
/// - `maxSpeed`: the largest reported `speed`.
/// - the bounding box: the least and greatest `lat` and `lon` (a trace across the
///   antimeridian spans the whole range of longitudes).
/// A figure whose inputs no fix had is nil: no times, no moving time; no altitudes, no climb.
/// - Complexity: O(1) per fix, constant memory per trace.
public struct TraceStats: Sendable {
    public let settings: StatsSettings
    public private(set) var fixes = 0
    public private(set) var distance = 0.0
    public private(set) var start: Timestamp?
    public private(set) var end: Timestamp?
    /// Milliseconds, summed as integers so that the sum does not depend on the order of adding.
    private var movingMilliseconds: Int64 = 0
    private var climb: ClimbCounter
    public private(set) var maxSpeed: Double?
    public private(set) var minLat = Double.infinity
    public private(set) var maxLat = -Double.infinity
    public private(set) var minLon = Double.infinity
    public private(set) var maxLon = -Double.infinity
    private var last: (point: Geodesy.Point, time: Timestamp?, seg: Int?)?

    public init(settings: StatsSettings) {
        self.settings = settings
        climb = ClimbCounter(threshold: settings.climbThreshold)
    }

    public mutating func add(_ fix: Fix) {
        fixes += 1
        let here = Geodesy.Point(lat: fix.lat, lon: fix.lon)
        if let last, last.seg == fix.seg {
            let d = Geodesy.distance(last.point, here)
            distance += d
            if let t0 = last.time, let t1 = fix.time {
                let ms = t1.milliseconds - t0.milliseconds
                let withinGap = settings.maxGap.map { Double(ms) <= $0 * 1000 } ?? true
                if ms > 0, withinGap, d / (Double(ms) / 1000) >= settings.movingSpeed { movingMilliseconds += ms }
            }
        }
        last = (here, fix.time, fix.seg)
        if let t = fix.time {
            if start.map({ t < $0 }) ?? true { start = t }
            if end.map({ t > $0 }) ?? true { end = t }
        }
        if let a = fix.alt { climb.add(a) }
        if let v = fix.speed, maxSpeed.map({ v > $0 }) ?? true { maxSpeed = v }
        minLat = min(minLat, fix.lat)
        maxLat = max(maxLat, fix.lat)
        minLon = min(minLon, fix.lon)
        maxLon = max(maxLon, fix.lon)
    }

    /// Seconds from the earliest to the latest time.
    public var duration: Double? {
        guard let start, let end else { return nil }
        return Double(end.milliseconds - start.milliseconds) / 1000
    }

    public var movingTime: Double? { start == nil ? nil : Double(movingMilliseconds) / 1000 }
    public var ascent: Double? { climb.hasAltitude ? climb.ascent : nil }
    public var descent: Double? { climb.hasAltitude ? climb.descent : nil }
}

/// The figures of one fixstats record: a trace's, or the sum over all of them (`--total`).
public struct StatsRecord: Sendable, Equatable {
    public var start: Timestamp?
    public var end: Timestamp?
    public var duration: Double?
    public var movingTime: Double?
    public var distance = 0.0
    public var ascent: Double?
    public var descent: Double?
    public var maxSpeed: Double?
    public var fixes = 0
    public var minLat: Double?
    public var minLon: Double?
    public var maxLat: Double?
    public var maxLon: Double?

    public init() {}

    public init(_ s: TraceStats) {
        start = s.start
        end = s.end
        duration = s.duration
        movingTime = s.movingTime
        distance = s.distance
        ascent = s.ascent
        descent = s.descent
        maxSpeed = s.maxSpeed
        fixes = s.fixes
        if s.fixes > 0 {
            minLat = s.minLat
            minLon = s.minLon
            maxLat = s.maxLat
            maxLon = s.maxLon
        }
    }

    /// Adds a trace to a total: sums of distance, duration, moving time, climb and fixes; the
    /// earliest start, the latest end, the largest speed, the box around both boxes. A figure
    /// is in the total when any trace has it.
    public mutating func add(_ r: StatsRecord) {
        func sum(_ a: Double?, _ b: Double?) -> Double? { a.map { $0 + (b ?? 0) } ?? b }
        func pick<T>(_ a: T?, _ b: T?, _ better: (T, T) -> Bool) -> T? {
            guard let a else { return b }
            guard let b else { return a }
            return better(b, a) ? b : a
        }
        start = pick(start, r.start, <)
        end = pick(end, r.end, >)
        duration = sum(duration, r.duration)
        movingTime = sum(movingTime, r.movingTime)
        distance += r.distance
        ascent = sum(ascent, r.ascent)
        descent = sum(descent, r.descent)
        maxSpeed = pick(maxSpeed, r.maxSpeed, >)
        fixes += r.fixes
        minLat = pick(minLat, r.minLat, <)
        minLon = pick(minLon, r.minLon, <)
        maxLat = pick(maxLat, r.maxLat, >)
        maxLon = pick(maxLon, r.maxLon, >)
    }

    public enum TraceMember: Sendable, Equatable {
        /// A trace's record: `"trace":"NAME"`.
        case name(String)
        /// Fixes without a trace: no `trace` member.
        case none
        /// The total: `"trace":null`.
        case total
    }

    /// One NDJSON line, members in SPEC's order: trace, start, end, duration, moving_time,
    /// distance, ascent, descent, max_speed, fixes, min_lat, min_lon, max_lat, max_lon.
    public func write(trace: TraceMember, into out: inout [UInt8]) {
        var first = true
        func key(_ k: String) {
            out.append(contentsOf: (first ? "{\"" : ",\"").utf8)
            out.append(contentsOf: k.utf8)
            out.append(contentsOf: "\":".utf8)
            first = false
        }
        func number(_ k: String, _ v: Double?) {
            guard let v else { return }
            key(k)
            DecimalNumber.write(v, into: &out)
        }
        func time(_ k: String, _ t: Timestamp?) {
            guard let t else { return }
            key(k)
            out.append(UInt8(ascii: "\""))
            t.write(into: &out)
            out.append(UInt8(ascii: "\""))
        }
        switch trace {
        case .name(let s):
            key("trace")
            writeString(s, into: &out)
        case .total:
            key("trace")
            out.append(contentsOf: "null".utf8)
        case .none: break
        }
        time("start", start)
        time("end", end)
        number("duration", duration)
        number("moving_time", movingTime)
        number("distance", distance)
        number("ascent", ascent)
        number("descent", descent)
        number("max_speed", maxSpeed)
        key("fixes")
        writeInteger(fixes, into: &out)
        number("min_lat", minLat)
        number("min_lon", minLon)
        number("max_lat", maxLat)
        number("max_lon", maxLon)
        out.append(contentsOf: "}\n".utf8)
    }
}
