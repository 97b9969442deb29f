/// What the sentences of one epoch (one UTC time) say, merged.
///
/// The first sentence to give a field wins, except that a void position (RMC or GLL status `V`,
/// GGA quality 0, GNS mode `N`) is never used.
struct NMEAEpoch {
    /// UTC milliseconds since midnight.
    var timeOfDay: Int64?
    /// A full date from RMC or ZDA: days since 1970-01-01.
    var day: Int64?
    var lat: Double?
    var lon: Double?
    /// Whether some sentence said the position is void.
    var sawVoid = false
    var alt: Double?
    var speed: Double?
    var course: Double?
    var hdop: Double?
    var vdop: Double?
    var pdop: Double?
    var sat: Int?
    /// GST's standard deviations of latitude, longitude and altitude error, metres.
    var sigmaLat: Double?
    var sigmaLon: Double?
    var sigmaAlt: Double?

    var hasPosition: Bool { lat != nil && lon != nil }

    mutating func setPosition(_ lat: Double?, _ lon: Double?) {
        guard self.lat == nil, let lat, let lon else { return }
        self.lat = lat
        self.lon = lon
    }

    mutating func set<T>(_ path: WritableKeyPath<NMEAEpoch, T?>, _ value: T?) {
        if self[keyPath: path] == nil, let value { self[keyPath: path] = value }
    }
}

/// How a sentence fills an epoch; each parser's doc comment draws its fields.
protocol NMEASentenceParser {
    /// The index of the field holding the epoch's UTC time, or nil when the sentence has none.
    static var timeField: Int? { get }
    /// Whether the sentence gives a position of its own (GLL, whose time is optional).
    static var givesPosition: Bool { get }
    /// Adds what the sentence says, or nothing and false when it is malformed: a field that
    /// is present must be what its place says.
    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> Bool
}

extension NMEASentenceParser {
    static var givesPosition: Bool { false }
}

/// Course over ground in [0, 360).
@inline(__always)
func normalizedCourse(_ c: Double) -> Double {
    let r = c.truncatingRemainder(dividingBy: 360)
    return r < 0 ? r + 360 : r
}
