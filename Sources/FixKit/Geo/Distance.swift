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
    /// Up to 50 km it uses the local radii of curvature at the mean latitude (meridional M and
    /// prime-vertical N, Bowring's form): the relative error is about (d / R)² and stays under
    /// 1e-5 at 10 km. Farther, Andoyer–Lambert's first-order correction of the great-circle
    /// distance on the ellipsoid's geometry, good to about 1e-4 for any distance. Zero for the
    /// same point; the antimeridian is handled (longitude differences wrap to ±180°).
    /// - Complexity: O(1), a handful of trigonometric calls.
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        var dLon = lon2 - lon1
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let dLat = lat2 - lat1
        let meanLat = (lat1 + lat2) / 2 * degrees
        let s = sin(meanLat)
        let w2 = 1 - WGS84.e2 * s * s
        let w = w2.squareRoot()
        let n = WGS84.a / w  // prime vertical radius of curvature
        let m = n * (1 - WGS84.e2) / w2  // meridional radius of curvature
        let north = dLat * degrees * m
        let east = dLon * degrees * n * cos(meanLat)
        let flat = (north * north + east * east).squareRoot()
        if flat < 50_000 { return flat }
        return andoyerLambert(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon1 + dLon)
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
        let x = (sigma - sin(sigma)) * pow(sin(p) * cos(q), 2) / pow(cos(sigma / 2), 2)
        let y = (sigma + sin(sigma)) * pow(cos(p) * sin(q), 2) / pow(sin(sigma / 2), 2)
        return WGS84.a * (sigma - f / 2 * (x + y))
    }
}
