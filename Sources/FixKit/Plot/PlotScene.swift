/// What fixplot's first pass learns from the input: the traces, the extent of everything that
/// has a position, the P(inside) series, the events and visits (kept: they are few), and two
/// spools that hold the fixes and the samples for the second pass.
final class PlotScene {
    /// Trace names in order of first appearance; index 0 is the fixes without a `trace`.
    var traceNames: [String] = [""]
    var traceIndex: [String: Int32] = [:]
    var fixCounts: [Int] = [0]
    let fixes: PlotSpool<SpooledFix>
    let samples: PlotSpool<SpooledSample>
    var events: [PlotEvent] = []
    var visits: [PlotVisit] = []
    var reasons: [String] = []
    var reasonIndex: [String: Int32] = [:]
    var reasonCounts: [Int] = []
    /// P(inside) series, one per trace and fence, in order of first appearance.
    var series: [Series] = []
    var seriesIndex: [SeriesKey: Int32] = [:]
    var extent = DegreeBox()
    /// Times of fixes (any kind), and of --trace records, in seconds.
    var timeRange = TimeRange()
    var sampleTimes = TimeRange()
    var tracedWithoutTime = 0
    /// Each trace's colour, given once the first pass is over (`assignColours`).
    var colours: [String] = []

    /// Okabe–Ito colours in order of first appearance, among the traces that have something
    /// to draw (fixes without a trace first, when there are any).
    func assignColours() {
        var next = 0
        colours = traceNames.indices.map { k in
            if k == 0, fixCounts[0] == 0 { return Palette.black }
            defer { next += 1 }
            return Palette.trace(next)
        }
    }

    struct SeriesKey: Hashable {
        var trace: Int32
        var fence: String
    }

    struct Series {
        var trace: Int32
        var fence: String
        var maxP = 0.0
        var everInside = false
    }

    init() throws(ToolFailure) {
        fixes = try PlotSpool()
        samples = try PlotSpool()
    }

    private var lastName: String?
    private var lastIndex: Int32 = 0

    func trace(_ name: String?) -> Int32 {
        guard let name else { return 0 }
        // A stream repeats one trace line after line: the decoder hands the same string back.
        if name == lastName { return lastIndex }
        lastName = name
        if let k = traceIndex[name] {
            lastIndex = k
            return k
        }
        let k = Int32(traceNames.count)
        traceNames.append(name)
        fixCounts.append(0)
        traceIndex[name] = k
        lastIndex = k
        return k
    }

    func reason(_ r: String) -> Int32 {
        if let k = reasonIndex[r] {
            reasonCounts[Int(k)] += 1
            return k
        }
        let k = Int32(reasons.count)
        reasons.append(r)
        reasonCounts.append(1)
        reasonIndex[r] = k
        return k
    }

    /// Adds a record from the first pass.
    func add(_ record: PlotRecord) throws(ToolFailure) {
        switch record {
        case .fix(let f):
            try spool(f, reason: -1)
        case .reject(let f, let reason):
            try spool(f, reason: self.reason(reason))
        case .traced(let f, let fences):
            try spool(f, reason: -1)
            guard let t = f.time else {
                tracedWithoutTime += 1
                return
            }
            let k = trace(f.trace)
            sampleTimes.add(t.seconds)
            for s in fences {
                let key = SeriesKey(trace: k, fence: s.fence)
                let index: Int32
                if let i = seriesIndex[key] {
                    index = i
                } else {
                    index = Int32(series.count)
                    series.append(Series(trace: k, fence: s.fence))
                    seriesIndex[key] = index
                }
                series[Int(index)].maxP = max(series[Int(index)].maxP, s.p)
                if s.inside { series[Int(index)].everInside = true }
                try samples.append(SpooledSample(time: t.seconds, p: s.p, series: index, inside: s.inside ? 1 : 0))
            }
            try samples.append(SpooledSample(time: t.seconds, p: 0, series: -1 - k, inside: 0))
        case .event(let e):
            events.append(e)
            extent.add(lat: e.lat, lon: e.lon)
            if let t = e.time { timeRange.add(t.seconds) }
        case .visit(let v):
            _ = trace(v.trace)
            visits.append(v)
            extent.add(lat: v.lat, lon: v.lon, radius: v.hacc)
            if let t = v.arrival { timeRange.add(t.seconds) }
            if let t = v.departure { timeRange.add(t.seconds) }
        }
    }

    @inline(__always)
    private func spool(_ f: Fix, reason: Int32) throws(ToolFailure) {
        let k = trace(f.trace)
        if reason < 0 { fixCounts[Int(k)] += 1 }
        extent.add(lat: f.lat, lon: f.lon)
        let t = f.time.map(\.seconds) ?? .nan
        if !t.isNaN { timeRange.add(t) }
        try fixes.append(
            SpooledFix(
                lat: f.lat, lon: f.lon, time: t, hacc: f.hacc ?? .nan, speed: f.speed ?? .nan, trace: k,
                seg: Int32(clamping: f.seg ?? 0), reason: reason))
    }

    /// Whether the record belongs to `--only NAME`.
    static func belongs(_ record: PlotRecord, to only: String) -> Bool {
        switch record {
        case .fix(let f), .reject(let f, _), .traced(let f, _): return f.trace == only
        case .event(let e): return e.trace == only
        case .visit(let v): return v.trace == only
        }
    }
}

/// A box in degrees: latitudes, and longitudes as offsets from the first one seen (taken the
/// short way round), so that a box across the antimeridian stays small.
struct DegreeBox {
    var refLon = 0.0
    var minLat = Double.infinity, maxLat = -Double.infinity
    var minDLon = Double.infinity, maxDLon = -Double.infinity
    var isEmpty: Bool { minLat > maxLat }

    /// Adds a point, or a circle of `radius` metres about it (its box, at the point's latitude).
    @inline(__always)
    mutating func add(lat: Double, lon: Double, radius: Double = 0) {
        if isEmpty { refLon = lon }
        let d = LocalProjection.wrap(lon - refLon)
        var rLat = 0.0
        var rLon = 0.0
        if radius > 0 {
            let p = LocalProjection(lat0: lat, lon0: lon)
            rLat = radius / p.metresPerDegreeLat
            rLon = min(radius / p.metresPerDegreeLon, 180)
        }
        minLat = min(minLat, max(lat - rLat, -90))
        maxLat = max(maxLat, min(lat + rLat, 90))
        minDLon = min(minDLon, d - rLon)
        maxDLon = max(maxDLon, d + rLon)
    }

    mutating func add(_ other: DegreeBox) {
        guard !other.isEmpty else { return }
        let shift = LocalProjection.wrap(other.refLon - refLon)
        if isEmpty {
            self = other
            return
        }
        minLat = min(minLat, other.minLat)
        maxLat = max(maxLat, other.maxLat)
        minDLon = min(minDLon, other.minDLon + shift)
        maxDLon = max(maxDLon, other.maxDLon + shift)
    }

    /// Whether a circle of `radius` metres about the point reaches into the box.
    func touches(lat: Double, lon: Double, radius: Double) -> Bool {
        guard !isEmpty else { return false }
        var circle = DegreeBox()
        circle.add(lat: lat, lon: lon, radius: radius)
        let shift = LocalProjection.wrap(circle.refLon - refLon)
        return circle.maxLat >= minLat && circle.minLat <= maxLat && circle.maxDLon + shift >= minDLon
            && circle.minDLon + shift <= maxDLon
    }

    /// The box widened by `fraction` of its size on each side (at least `metres`).
    func widened(fraction: Double, metres: Double) -> DegreeBox {
        var b = self
        let p = LocalProjection(lat0: (minLat + maxLat) / 2, lon0: refLon)
        let dLat = max((maxLat - minLat) * fraction, metres / p.metresPerDegreeLat)
        let dLon = max((maxDLon - minDLon) * fraction, metres / p.metresPerDegreeLon)
        b.minLat -= dLat
        b.maxLat += dLat
        b.minDLon -= dLon
        b.maxDLon += dLon
        return b
    }

    /// The projection about the box's centre, and the box in its metres.
    func projection() -> (LocalProjection, minE: Double, maxE: Double, minN: Double, maxN: Double) {
        let lat0 = (minLat + maxLat) / 2
        let lon0 = LocalProjection.wrap(refLon + (minDLon + maxDLon) / 2)
        let p = LocalProjection(lat0: lat0, lon0: lon0)
        let halfE = (maxDLon - minDLon) / 2 * p.metresPerDegreeLon
        let halfN = (maxLat - minLat) / 2 * p.metresPerDegreeLat
        return (p, -halfE, halfE, -halfN, halfN)
    }
}

struct TimeRange {
    var min = Double.infinity
    var max = -Double.infinity
    var isEmpty: Bool { min > max }

    @inline(__always)
    mutating func add(_ t: Double) {
        if t < min { min = t }
        if t > max { max = t }
    }
}
