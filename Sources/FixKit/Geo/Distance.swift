internal import CFixMath

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The WGS 84 ellipsoid (NIMA TR8350.2, table 3.1).
public enum WGS84 {
    /// Semi-major axis, metres.
    public static let a = 6_378_137.0
    /// Flattening.
    public static let f = 1 / 298.257_223_563
    /// Semi-minor axis, metres.
    public static let b = a * (1 - f)
    /// First eccentricity squared.
    public static let e2 = f * (2 - f)
}

/// Distances between two points on the WGS 84 ellipsoid.
public enum Geodesy {
    static let degrees = Double.pi / 180

    /// Metres between two points on the ellipsoid.
    ///
    /// Up to 50 km it is the chord between the two points in Earth-centred coordinates: the
    /// geodesic is longer by about c³/(24ρ²), under 3e-6 relative at 50 km and 1e-7 at 10 km,
    /// and the chord has no trouble at the poles or across the antimeridian, where a local
    /// east/north approximation breaks down. Farther, Andoyer–Lambert's first-order correction
    /// of the great-circle distance on the ellipsoid's geometry: better than 5e-4 up to
    /// 20,000 km against geographiclib, 2e-3 near antipodes. Zero for the same point.
    /// - Complexity: O(1), a handful of trigonometric calls.
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        distance(Point(lat: lat1, lon: lon1), Point(lat: lat2, lon: lon2))
    }

    /// Past 50 km: Andoyer–Lambert, the longitudes taken the short way round.
    static func far(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        var dLon = lon2 - lon1
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return andoyerLambert(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon1 + dLon)
    }

    /// A point with its Earth-centred coordinates worked out once, for code that measures
    /// from the same point many times (a fence's centre, the last fix passed).
    public struct Point: Sendable {
        public let lat: Double
        public let lon: Double
        let x: Double, y: Double, z: Double

        public init(lat: Double, lon: Double) {
            let (sp, cp) = Geodesy.sinCos(lat * degrees)
            self.init(lat: lat, lon: lon, sinLat: sp, cosLat: cp)
        }

        /// The same from the sine and cosine of `lat · degrees`, already worked out.
        @inline(__always)
        init(lat: Double, lon: Double, sinLat sp: Double, cosLat cp: Double) {
            self.lat = lat
            self.lon = lon
            (x, y, z) = Geodesy.ecef(sp, cp, lon)
        }
    }

    /// `distance(lat1:lon1:lat2:lon2:)` between two prepared points: no trigonometry under
    /// 50 km.
    @inline(__always)
    public static func distance(_ a: Point, _ b: Point) -> Double {
        let dx = a.x - b.x
        let dy = a.y - b.y
        let dz = a.z - b.z
        return distance(chordSquared: dx * dx + dy * dy + dz * dz, lat1: a.lat, lon1: a.lon, lat2: b.lat, lon2: b.lon)
    }

    /// The same from the squared chord between the points, already found (the fence index
    /// keeps centres as Earth-centred coordinates and their latitudes and longitudes apart):
    /// the chord under 50 km, the far formula beyond. The one place that threshold is applied.
    @inline(__always)
    static func distance(chordSquared: Double, lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        distance(chordSquared: chordSquared) { far(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2) }
    }

    /// The same with the far formula's coordinates fetched only when needed.
    @inline(__always)
    static func distance(chordSquared: Double, far: () -> Double) -> Double {
        let chord = chordSquared.squareRoot()
        if chord < 50_000 { return chord }
        return far()
    }

    /// From a point whose Earth-centred coordinates are already worked out (a stay's centre,
    /// measured against many fixes): `distance(lat1: a.lat, lon1: a.lon, lat2: lat, lon2: lon)`.
    @inline(__always)
    public static func distance(_ a: Point, lat: Double, lon: Double) -> Double {
        distance(a, Point(lat: lat, lon: lon))
    }

    /// A point many fixes are tested against (a stay's centre): whether `distance(point, lat:
    /// lon:)` is at most a limit, the same answer as that comparison, mostly without its four
    /// trigonometric calls.
    ///
    /// The chord from the point P(φ, λ) is, to first order, the length of J·h, h = (Δφ, Δλ) in
    /// radians, J's columns the meridian and parallel tangents: orthogonal, of lengths M(φ)
    /// and N(φ)·cos φ. Taylor's remainder bounds the difference by ½ sup |D²P[h, h]|, and every
    /// second derivative of P has length at most M + |dM/dφ| ≤ 1.02·a on WGS 84 (N, M ≤
    /// a/√(1 − e²) = 1.0034·a, |dM/dφ| ≤ 0.0102·a), so |chord − |J·h|| ≤ 0.51·a·(|Δφ| + |Δλ|)².
    /// `isWithin` answers from |J·h| when it clears the limit by twice that, plus a millimetre
    /// and 1e-9 relative for the rounding of either side, and only where the chord is surely
    /// under 40 km (the distance is then the chord); otherwise it measures.
    public struct Centre: Sendable {
        public let point: Point
        /// The tangent plane at the point: its metres per degree along the meridian (M) and
        /// along the parallel (N cos φ).
        let frame: LocalFrame

        /// 2 · 0.51 · a metres per squared radian, in degrees: twice the remainder's bound.
        static let remainder = 1.02 * WGS84.a * degrees * degrees

        /// The point and its tangent plane from one sine and cosine of the latitude.
        public init(lat: Double, lon: Double) {
            let (sp, cp) = Geodesy.sinCos(lat * degrees)
            point = Point(lat: lat, lon: lon, sinLat: sp, cosLat: cp)
            frame = LocalFrame(lat: lat, lon: lon, sinLat: sp, cosLat: cp)
        }

        /// `Geodesy.distance(point, lat: lat, lon: lon) <= limit`.
        @inline(__always)
        public func isWithin(_ limit: Double, lat: Double, lon: Double) -> Bool {
            settles(limit, lat: lat, lon: lon) ?? (Geodesy.distance(point, lat: lat, lon: lon) <= limit)
        }

        /// `Geodesy.distance(point, lat: lat, lon: lon) < limit` (fixfilter's move rule: a
        /// fix closer than `--min-move` to the last one passed).
        @inline(__always)
        public func isCloser(than limit: Double, lat: Double, lon: Double) -> Bool {
            settles(limit, lat: lat, lon: lon) ?? (Geodesy.distance(point, lat: lat, lon: lon) < limit)
        }

        /// Whether the distance is below `limit` (true) or above it (false), where the tangent
        /// plane settles it; nil where only a measurement can.
        @inline(__always)
        func settles(_ limit: Double, lat: Double, lon: Double) -> Bool? {
            let dLat = lat - point.lat
            var dLon = lon - point.lon
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let spread = abs(dLat) + abs(dLon)
            guard spread < 0.25 else { return nil }
            let u = frame.metresPerDegreeLat * dLat
            let v = frame.metresPerDegreeLon * dLon
            let linear = (u * u + v * v).squareRoot()
            let error = Centre.remainder * spread * spread + 1e-9 * (linear + abs(limit)) + 1e-3
            guard linear + error < 40_000 else { return nil }
            if linear + error < limit { return true }
            if linear - error > limit { return false }
            return nil
        }
    }

    /// Earth-centred, Earth-fixed coordinates of a point on the ellipsoid, metres, from the
    /// sine and cosine of its latitude.
    @inline(__always)
    static func ecef(_ sp: Double, _ cp: Double, _ lon: Double) -> (x: Double, y: Double, z: Double) {
        let (sl, cl) = sinCos(lon * degrees)
        let n = WGS84.a / (1 - WGS84.e2 * sp * sp).squareRoot()
        return (n * cp * cl, n * cp * sl, n * (1 - WGS84.e2) * sp)
    }

    /// sin(x) and cos(x), the same values, from one call where the C library has `sincos`
    /// (shim.h of CFixMath): a million fence centres and fixes each take two.
    @inline(__always)
    static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        var s = 0.0
        var c = 0.0
        fixkit_sincos(x, &s, &c)
        return (s, c)
    }

    static func andoyerLambert(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let f = WGS84.f
        // Reduced latitudes.
        let b1 = atan((1 - f) * tan(lat1 * degrees))
        let b2 = atan((1 - f) * tan(lat2 * degrees))
        let dl = (lon2 - lon1) * degrees
        let h = sin((b2 - b1) / 2)
        let k = sin(dl / 2)
        let hav = h * h + cos(b1) * cos(b2) * k * k
        let sigma = 2 * asin(min(1, hav.squareRoot()))
        if sigma == 0 { return 0 }
        let p = (b1 + b2) / 2
        let q = (b2 - b1) / 2
        let c2 = cos(sigma / 2)
        guard c2 > 1e-9 else { return WGS84.a * sigma }  // antipodal: no correction to make
        let x = (sigma - sin(sigma)) * pow(sin(p) * cos(q), 2) / (c2 * c2)
        let y = (sigma + sin(sigma)) * pow(cos(p) * sin(q), 2) / pow(sin(sigma / 2), 2)
        return WGS84.a * (sigma - f / 2 * (x + y))
    }
}
