#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scripted walks with known truth, for tests and demos: along waypoints at a speed, one fix
/// per 1/rate seconds, with seeded Gaussian position noise of σ per axis (independent per fix,
/// or a first-order Gauss–Markov error with time constant `noiseTau`), occasional outliers,
/// the `hacc` a receiver would report, a Doppler `speed` (far steadier than position, as
/// receivers measure it), the `course` of travel, and pauses at the waypoints.
public struct WalkScript: Sendable {
    /// The route, WGS 84 degrees; at least one point.
    public var waypoints: [(lat: Double, lon: Double)]
    public var speed = 1.4
    public var rate = 1.0
    /// Position noise, metres per axis (standard deviation).
    public var noise = 8.0
    /// The time constant of the position error, seconds: 0 is fresh noise every fix, above 0 a
    /// first-order Gauss–Markov (Ornstein–Uhlenbeck) error with the same stationary σ.
    public var noiseTau = 0.0
    /// The probability that a fix is replaced by an outlier, `outlierSize` metres from it.
    public var outliers = 0.0
    public var outlierSize = 100.0
    /// The reported hacc; nil means `noise` times `haccScale`.
    public var hacc: Double?
    public var haccScale = 1.0
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

/// One axis of a first-order Gauss–Markov error: stationary N(0, σ²), with correlation
/// e^{−Δt/τ} between values Δt apart. Each step is the exact discretisation of the
/// Ornstein–Uhlenbeck process, so uneven steps keep both properties:
///
///     x' = φ x + σ √(1 − φ²) n,   φ = e^{−Δt/τ},   n ~ N(0, 1)
///
/// and the first value is σ n, a draw from the stationary law. τ = 0 (or Δt = ∞) gives φ = 0:
/// independent draws, the same numbers as plain Gaussian noise from the same generator.
public struct GaussMarkov: Sendable {
    public let sigma: Double
    public let tau: Double
    public private(set) var value: Double?

    public init(sigma: Double, tau: Double) {
        self.sigma = sigma
        self.tau = tau
    }

    /// The error `dt` seconds after the previous one (ignored for the first).
    public mutating func next(dt: Double, _ random: inout SeededRandom) -> Double {
        let n = random.gaussian()
        guard let x = value, tau > 0 else {
            value = sigma * n
            return sigma * n
        }
        let phi = exp(-max(0, dt) / tau)
        // √(1 − φ²) as √(−expm1(−2Δt/τ)), exact for small steps too.
        let x1 = phi * x + sigma * (-expm1(-2 * max(0, dt) / tau)).squareRoot() * n
        value = x1
        return x1
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
        var legs:
            [(
                t0: Double, t1: Double, from: (east: Double, north: Double), to: (east: Double, north: Double),
                moving: Bool
            )] = []
        var clock = 0.0
        for k in 1..<points.count {
            let a = points[k - 1]
            let b = points[k]
            let length = ((b.east - a.east) * (b.east - a.east) + (b.north - a.north) * (b.north - a.north))
                .squareRoot()
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

    /// The fixes of one trace. The draws per fix are east, north, speed, as before there was a
    /// Gauss–Markov error (so τ = 0 writes the published walks); outliers draw from a generator
    /// of their own, so that adding them leaves every other fix as it was.
    public func fixes(trace: String?) -> [Fix] {
        var random = SeededRandom(seed: seed)
        var outlierRandom = SeededRandom(seed: seed ^ 0x6F75_746C_6965_7273)  // "outliers"
        var east = GaussMarkov(sigma: noise, tau: noiseTau)
        var north = GaussMarkov(sigma: noise, tau: noiseTau)
        var lastT = 0.0
        let frame = LocalFrame(lat: waypoints[0].lat, lon: waypoints[0].lon)
        return truth().map { p in
            let dt = p.t - lastT
            lastT = p.t
            var e = p.east + east.next(dt: dt, &random)
            var n = p.north + north.next(dt: dt, &random)
            if outliers > 0, outlierRandom.uniform() < outliers {
                // Multipath: this fix, not the error process, is thrown outlierSize metres.
                let theta = 2 * Double.pi * outlierRandom.uniform()
                e += outlierSize * sin(theta)
                n += outlierSize * cos(theta)
            }
            let (lat, lon) = frame.degrees(east: e, north: n)
            var fix = Fix(lat: lat, lon: lon)
            fix.time = Timestamp(milliseconds: start.milliseconds + Int64((p.t * 1000).rounded()))
            fix.hacc = hacc ?? noise * haccScale
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
        let phi = lat * .pi / 180
        self.init(lat: lat, lon: lon, sinLat: sin(phi), cosLat: cos(phi))
    }

    /// The same from the sine and cosine of the latitude, already worked out
    /// (`Geodesy.Centre`, whose Earth-centred point needs them too).
    init(lat: Double, lon: Double, sinLat s: Double, cosLat c: Double) {
        lat0 = lat
        lon0 = lon
        let w2 = 1 - WGS84.e2 * s * s
        let n = WGS84.a / w2.squareRoot()
        let m = n * (1 - WGS84.e2) / w2
        metresPerDegreeLat = m * .pi / 180
        metresPerDegreeLon = n * c * .pi / 180
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
