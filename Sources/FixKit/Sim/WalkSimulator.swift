#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scripted walks with known truth, for tests and demos: along waypoints at a speed, one fix
/// per 1/rate seconds, with seeded Gaussian position noise of σ per axis, the `hacc` a receiver
/// would report, a Doppler `speed` (far steadier than position, as receivers measure it), the
/// `course` of travel, and pauses at the waypoints.
public struct WalkScript: Sendable {
    /// The route, WGS 84 degrees; at least one point.
    public var waypoints: [(lat: Double, lon: Double)]
    public var speed = 1.4
    public var rate = 1.0
    /// Position noise, metres per axis (standard deviation).
    public var noise = 8.0
    /// The reported hacc; nil means `noise`.
    public var hacc: Double?
    /// Standard deviation of the reported speed, m/s.
    public var speedNoise = 0.1
    /// Seconds standing still at each waypoint between the first and the last.
    public var pause = 0.0
    public var start = Timestamp(milliseconds: 1_767_258_000_000)  // 2026-01-01T09:00:00Z
    public var seed: UInt64 = 1

    public init(waypoints: [(lat: Double, lon: Double)]) {
        self.waypoints = waypoints
    }
}

/// A small seeded generator (xorshift64*) with Gaussian draws (Box–Muller): the same seed gives
/// the same walk on every platform.
public struct SeededRandom: Sendable {
    var state: UInt64
    var spare: Double?

    public init(seed: UInt64) {
        state = (seed &+ 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9 | 1
    }

    public mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// Uniform in (0, 1).
    public mutating func uniform() -> Double { (Double(next() >> 11) + 0.5) / Double(1 << 53) }

    public mutating func gaussian() -> Double {
        if let s = spare {
            spare = nil
            return s
        }
        let r = (-2 * log(uniform())).squareRoot()
        let theta = 2 * Double.pi * uniform()
        spare = r * sin(theta)
        return r * cos(theta)
    }
}

extension WalkScript {
    /// Seconds from the first fix to the last: the legs at `speed` and the pauses between.
    public var duration: Double {
        let frame = LocalFrame(lat: waypoints[0].lat, lon: waypoints[0].lon)
        let points = waypoints.map { frame.metres(lat: $0.lat, lon: $0.lon) }
        guard points.count > 1 else { return max(pause, 1 / rate) }
        var total = Double(points.count - 2) * pause
        for k in 1..<points.count {
            let dx = points[k].east - points[k - 1].east
            let dy = points[k].north - points[k - 1].north
            total += (dx * dx + dy * dy).squareRoot() / speed
        }
        return total
    }

    /// The true positions, as (seconds from start, east, north, speed, course) in metres in a
    /// local frame at the first waypoint; then noise and the trace are added by `fixes`.
    func truth() -> [(t: Double, east: Double, north: Double, speed: Double, course: Double)] {
        let frame = LocalFrame(lat: waypoints[0].lat, lon: waypoints[0].lon)
        let points = waypoints.map { frame.metres(lat: $0.lat, lon: $0.lon) }
        var out: [(t: Double, east: Double, north: Double, speed: Double, course: Double)] = []
        let dt = 1 / rate
        var t = 0.0
        var course = 0.0
        if points.count == 1 {
            let end = max(pause, dt)
            while t <= end + 1e-9 {
                out.append((t, points[0].east, points[0].north, 0, course))
                t += dt
            }
            return out
        }
        // Sample at t = k·dt along the timeline of legs and pauses.
        var legs: [(t0: Double, t1: Double, from: (east: Double, north: Double), to: (east: Double, north: Double), moving: Bool)] = []
        var clock = 0.0
        for k in 1..<points.count {
            let a = points[k - 1]
            let b = points[k]
            let length = ((b.east - a.east) * (b.east - a.east) + (b.north - a.north) * (b.north - a.north)).squareRoot()
            let duration = length / speed
            legs.append((clock, clock + duration, a, b, true))
            clock += duration
            if k < points.count - 1, pause > 0 {
                legs.append((clock, clock + pause, b, b, false))
                clock += pause
            }
        }
        var leg = 0
        while t <= clock + 1e-9 {
            while leg < legs.count - 1, t > legs[leg].t1 { leg += 1 }
            let l = legs[leg]
            let f = l.t1 > l.t0 ? min(1, max(0, (t - l.t0) / (l.t1 - l.t0))) : 1
            let e = l.from.east + (l.to.east - l.from.east) * f
            let n = l.from.north + (l.to.north - l.from.north) * f
            if l.moving, l.t1 > l.t0 {
                course = atan2(l.to.east - l.from.east, l.to.north - l.from.north) * 180 / .pi
                if course < 0 { course += 360 }
            }
            out.append((t, e, n, l.moving ? speed : 0, course))
            t += dt
        }
        return out
    }

    /// The fixes of one trace.
    public func fixes(trace: String?) -> [Fix] {
        var random = SeededRandom(seed: seed)
        let frame = LocalFrame(lat: waypoints[0].lat, lon: waypoints[0].lon)
        return truth().map { p in
            let (lat, lon) = frame.degrees(east: p.east + noise * random.gaussian(), north: p.north + noise * random.gaussian())
            var fix = Fix(lat: lat, lon: lon)
            fix.time = Timestamp(milliseconds: start.milliseconds + Int64((p.t * 1000).rounded()))
            fix.hacc = hacc ?? noise
            fix.speed = max(0, p.speed + speedNoise * random.gaussian())
            if p.speed > 0 { fix.course = p.course }
            fix.trace = trace
            return fix
        }
    }
}

/// A local east/north frame in metres at a point, with the WGS 84 radii of curvature there:
/// exact at the origin, good to a few parts in a million within 10 km.
public struct LocalFrame: Sendable {
    public let lat0: Double
    public let lon0: Double
    let metresPerDegreeLat: Double
    let metresPerDegreeLon: Double

    public init(lat: Double, lon: Double) {
        lat0 = lat
        lon0 = lon
        let phi = lat * .pi / 180
        let s = sin(phi)
        let w2 = 1 - WGS84.e2 * s * s
        let n = WGS84.a / w2.squareRoot()
        let m = n * (1 - WGS84.e2) / w2
        metresPerDegreeLat = m * .pi / 180
        metresPerDegreeLon = n * cos(phi) * .pi / 180
    }

    public func metres(lat: Double, lon: Double) -> (east: Double, north: Double) {
        var dLon = lon - lon0
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (dLon * metresPerDegreeLon, (lat - lat0) * metresPerDegreeLat)
    }

    /// The point `east`, `north` metres from the origin. Latitude is clamped to the poles and
    /// longitude wrapped into [-180, 180] (noise near a pole or the antimeridian must not
    /// leave the record's range); at a pole, where east has no direction, it is the origin's.
    public func degrees(east: Double, north: Double) -> (lat: Double, lon: Double) {
        var lon = lon0 + east / metresPerDegreeLon
        if !lon.isFinite { lon = lon0 }
        if lon > 180 || lon < -180 { lon = remainder(lon, 360) }
        return (min(90, max(-90, lat0 + north / metresPerDegreeLat)), lon)
    }

    /// Whether `east`, `north` lies on the map the frame draws: within the poles and less than
    /// half the way round the parallel. Beyond that, a flat frame says nothing true.
    public func contains(east: Double, north: Double) -> Bool {
        let lat = lat0 + north / metresPerDegreeLat
        let dLon = east / metresPerDegreeLon
        return lat.isFinite && abs(lat) <= 90 && (east == 0 || (dLon.isFinite && abs(dLon) <= 180))
    }
}
