#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The map's projection: a local equirectangular (plate carrée) projection about the
/// picture's centre, scaled by the WGS 84 ellipsoid's radii of curvature there, so that one
/// metre east and one metre north are the same number of pixels at the centre and a fence is
/// a circle of its true radius.
///
///     x = Δλ · N(φ0) · cos φ0        y = Δφ · M(φ0)        (Δ in radians)
///
/// with N the prime-vertical and M the meridional radius of curvature at the centre's
/// latitude φ0 (M = a(1-e²)/W³, N = a/W, W = √(1-e² sin² φ0)). Δλ is taken the short way round,
/// so a picture across the antimeridian is not torn.
///
/// At the centre the scale is exact on both axes. Away from it the east-west scale drifts as
/// cos φ / cos φ0 (and the tangent plane leaves the ellipsoid): about 1.6e-4 × tan φ0 per
/// kilometre north or south, so under a tenth of a pixel across a city picture and about 1%
/// at 100 km from the centre at London's latitude. Near a pole (|φ0| > 89.9°) cos φ0 is held
/// at its value there.
public struct LocalProjection: Sendable, Equatable {
    public let lat0: Double
    public let lon0: Double
    /// Metres per degree of longitude and of latitude at the centre.
    public let metresPerDegreeLon: Double
    public let metresPerDegreeLat: Double

    public init(lat0: Double, lon0: Double) {
        self.lat0 = lat0
        self.lon0 = lon0
        let phi = min(max(lat0, -89.9), 89.9) * Double.pi / 180
        let s = sin(phi)
        let w = (1 - WGS84.e2 * s * s).squareRoot()
        let n = WGS84.a / w
        let m = WGS84.a * (1 - WGS84.e2) / (w * w * w)
        metresPerDegreeLon = n * cos(phi) * Double.pi / 180
        metresPerDegreeLat = m * Double.pi / 180
    }

    /// Metres east and north of the centre.
    @inline(__always)
    public func project(lat: Double, lon: Double) -> (east: Double, north: Double) {
        (LocalProjection.wrap(lon - lon0) * metresPerDegreeLon, (lat - lat0) * metresPerDegreeLat)
    }

    /// The inverse of `project`.
    public func unproject(east: Double, north: Double) -> (lat: Double, lon: Double) {
        (lat0 + north / metresPerDegreeLat, LocalProjection.wrap(lon0 + east / metresPerDegreeLon))
    }

    /// A longitude difference in (-180, 180].
    @inline(__always)
    static func wrap(_ d: Double) -> Double {
        var d = d
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }
}

/// Where the map sits in the picture: projected metres to pixels, y down, north up.
public struct Viewport: Sendable, Equatable {
    public let projection: LocalProjection
    /// Pixels per metre, the same on both axes.
    public let scale: Double
    /// The pixel of the projection's centre.
    public let originX: Double
    public let originY: Double
    /// The map's rectangle in the picture.
    public let left: Double, top: Double, width: Double, height: Double

    /// Fits a box of projected metres (`minEast...maxEast`, `minNorth...maxNorth`) into the
    /// rectangle with `margin` pixels on every side, centred. The rectangle's smaller side
    /// never shows less than `minimumSpan` metres, so that one point still gets a sensible scale.
    public init(
        projection: LocalProjection, minEast: Double, maxEast: Double, minNorth: Double, maxNorth: Double,
        left: Double, top: Double, width: Double, height: Double, margin: Double, minimumSpan: Double = 100
    ) {
        self.projection = projection
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        let usableW = max(width - 2 * margin, 1)
        let usableH = max(height - 2 * margin, 1)
        let spanE = max(maxEast - minEast, 1e-6)
        let spanN = max(maxNorth - minNorth, 1e-6)
        scale = min(usableW / spanE, usableH / spanN, min(usableW, usableH) / minimumSpan)
        let midE = (minEast + maxEast) / 2
        let midN = (minNorth + maxNorth) / 2
        originX = left + width / 2 - midE * scale
        originY = top + height / 2 + midN * scale
    }

    /// The pixel of a WGS 84 position.
    @inline(__always)
    public func pixel(lat: Double, lon: Double) -> (x: Double, y: Double) {
        let (e, n) = projection.project(lat: lat, lon: lon)
        return (originX + e * scale, originY - n * scale)
    }

    /// Whether a circle of `radius` pixels about (x, y) reaches into the map's rectangle.
    public func touches(x: Double, y: Double, radius: Double) -> Bool {
        x + radius >= left && x - radius <= left + width && y + radius >= top && y - radius <= top + height
    }
}
