/// One GPS position: the record every tool reads and writes (SPEC "The fix record").
///
/// Only `lat` and `lon` are required; every other field is nil when the source does not know
/// it. Members a tool does not know are kept in `extra` as their raw JSON bytes, in input
/// order, so that `fixfilter` passes on what a later tool or a user's script added.
public struct Fix: Equatable, Sendable {
    public var time: Timestamp?
    /// WGS 84 degrees, [-90, 90] and [-180, 180].
    public var lat: Double
    public var lon: Double
    /// Metres above mean sea level.
    public var alt: Double?
    /// Horizontal accuracy in metres (Core Location's `horizontalAccuracy`); negative is invalid.
    public var hacc: Double?
    /// Vertical accuracy in metres.
    public var vacc: Double?
    /// Metres per second.
    public var speed: Double?
    /// Degrees from true north, [0, 360).
    public var course: Double?
    /// Course accuracy in degrees.
    public var cacc: Double?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// Satellites used.
    public var sat: Int?
    /// A waypoint's name.
    public var name: String?
    /// Which trace (ride, device, GPX track) the fix belongs to.
    public var trace: String?
    /// Segment index within the trace (GPX `trkseg`), from 0.
    public var seg: Int?
    /// Unknown members, verbatim: `"key":value` items joined by `,`, in input order.
    public var extra: [UInt8]

    public init(
        time: Timestamp? = nil, lat: Double, lon: Double, alt: Double? = nil, hacc: Double? = nil,
        vacc: Double? = nil, speed: Double? = nil, course: Double? = nil, cacc: Double? = nil,
        hdop: Double? = nil, vdop: Double? = nil, pdop: Double? = nil, sat: Int? = nil, name: String? = nil,
        trace: String? = nil, seg: Int? = nil, extra: [UInt8] = []
    ) {
        self.time = time
        self.lat = lat
        self.lon = lon
        self.alt = alt
        self.hacc = hacc
        self.vacc = vacc
        self.speed = speed
        self.course = course
        self.cacc = cacc
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.sat = sat
        self.name = name
        self.trace = trace
        self.seg = seg
        self.extra = extra
    }

    /// Whether the coordinates are numbers within WGS 84's ranges.
    public var hasValidCoordinates: Bool {
        lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
    }

    /// Appends an unknown member, given as `"key":value` bytes, after those already kept.
    // SAFETY: `member` is the caller's, copied into `extra` during this call.
    public mutating func appendExtra(_ member: UnsafeBufferPointer<UInt8>) {
        if !extra.isEmpty { extra.append(UInt8(ascii: ",")) }
        extra.append(contentsOf: member)
    }
}

/// The members of the fix record, in SPEC's output order.
public enum FixField: String, CaseIterable, Sendable {
    case time, lat, lon, alt, hacc, vacc, speed, course, cacc, hdop, vdop, pdop, sat, name, trace, seg
}
