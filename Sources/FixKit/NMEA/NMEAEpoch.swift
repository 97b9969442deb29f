/// What the sentences of one epoch (one UTC time) say, merged.
///
/// The first sentence to give a field wins, except for the position: the most precise one
/// (the most decimal places in its latitude and longitude together) wins, and on a tie the
/// first. A void position (RMC or GLL status `V`, GGA quality 0, GNS mode `N`) and one that is
/// not a measurement (GGA quality 7, manual, or 8, simulator) is never used. gpx2fix(1),
/// "NMEA 0183", lists the precedence for every fix member.
struct NMEAEpoch {
    /// UTC milliseconds since midnight.
    var timeOfDay: Int64?
    /// A full date from RMC or ZDA: days since 1970-01-01.
    var day: Int64?
    var lat: Double?
    var lon: Double?
    /// The decimal places of the position's latitude and longitude fields together.
    var positionDecimals = 0
    /// Whether some sentence said the position is void (or not measured).
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

    /// Whether a position with `decimals` decimal places would replace the epoch's.
    @inline(__always)
    func wantsPosition(decimals: Int) -> Bool { lat == nil || decimals > positionDecimals }

    /// Offers a position read with `decimals` decimal places: taken when the epoch has none or
    /// a less precise one.
    mutating func offerPosition(_ lat: Double, _ lon: Double, decimals: Int) {
        guard wantsPosition(decimals: decimals) else { return }
        self.lat = lat
        self.lon = lon
        positionDecimals = decimals
    }

    /// Empties the epoch for the next one: out of line, so that each slot is cleared by
    /// plain stores (inlined, the two slots' stores were merged into one sequence of stores to
    /// addresses picked by conditional moves, three times the instructions).
    @inline(never)
    mutating func clear() { self = NMEAEpoch() }

    mutating func set<T>(_ path: WritableKeyPath<NMEAEpoch, T?>, _ value: T?) {
        if self[keyPath: path] == nil, let value { self[keyPath: path] = value }
    }
}

/// What a sentence parser made of a sentence.
enum NMEAVerdict: Equatable, Sendable {
    /// What it says was added to the epoch.
    case used
    /// It says it has no valid position (RMC or GLL status `V`, GGA quality 0, ...); what it
    /// still says (a void RMC's date) was added.
    case void
    /// GGA quality 7 (manual input) or 8 (simulator): not a measurement, so nothing is taken
    /// from it.
    case notMeasured
    /// Malformed: nothing was taken from it.
    case refused(NMEARefusal)
}

/// Why a sentence parser refused a sentence (field numbers as in the sentence's diagram,
/// from 1 after the address).
enum NMEARefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// Fewer fields than the sentence needs (this many).
    case tooFewFields(needs: Int)
    /// The field is not a UTC time `hhmmss[.sss]` of a real time of day.
    case time(field: Int)
    /// A status other than `A` or `V`.
    case status(field: Int)
    /// A latitude or longitude that cannot be read (with its hemisphere letter in the next
    /// field) or is out of range.
    case coordinate(field: Int)
    /// A field that must be a number when present is not one.
    case number(field: Int)
    /// A date that does not exist, or a year before 1980.
    case date(field: Int)
    /// More satellites than any receiver can use (past 999).
    case satellites(field: Int)

    var description: String {
        switch self {
        case .tooFewFields(let n): return "fewer than \(n) fields"
        case .time(let f): return "field \(f) is not a time of day hhmmss[.sss]"
        case .status(let f): return "field \(f) is a status other than A or V"
        case .coordinate(let f): return "field \(f) is not a coordinate in range"
        case .number(let f): return "field \(f) is not a number"
        case .date(let f): return "field \(f) is not a date that exists"
        case .satellites(let f): return "field \(f) counts more than 999 satellites"
        }
    }
}

/// How a sentence fills an epoch; each parser's doc comment draws its fields, and the field
/// numbers in its code are the diagram's.
protocol NMEASentenceParser {
    /// The field holding the epoch's UTC time, or nil when the sentence has none.
    static var timeField: Int? { get }
    /// Whether the sentence gives a position of its own (GLL, whose time is optional).
    static var givesPosition: Bool { get }
    /// Adds what the sentence says, or nothing when it is malformed (then says why): a field
    /// that is present must be what its place says.
    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict
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
