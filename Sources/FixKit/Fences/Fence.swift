/// A circular geofence.
public struct Fence: Equatable, Sendable {
    public var id: String
    /// WGS 84 degrees.
    public var lat: Double
    public var lon: Double
    /// Metres, >= 0.
    public var radius: Double

    public init(id: String, lat: Double, lon: Double, radius: Double) {
        self.id = id
        self.lat = lat
        self.lon = lon
        self.radius = radius
    }
}
