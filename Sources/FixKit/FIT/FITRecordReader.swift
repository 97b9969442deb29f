/// Turns FIT `record` messages into fixes and `event` messages into segments (FIT profile,
/// messages 20 and 21):
///
///     record field         number  type    fix member
///     timestamp            253     uint32  time: seconds since 1989-12-31T00:00:00Z
///     position_lat         0       sint32  lat: semicircles x 180 / 2^31 degrees
///     position_long        1       sint32  lon: likewise
///     altitude             2       uint16  alt: value / 5 - 500 metres, as (value - 2500) / 5
///     enhanced_altitude    78      uint32  alt, preferred: likewise
///     speed                6       uint16  speed: value / 1000 metres a second
///     enhanced_speed       73      uint32  speed, preferred: value / 1000
///     gps_accuracy         31      uint8   hacc: metres
///
///     event: event (0) = 0 (timer) with event_type (1) = 1 (stop), 4 (stop_all),
///     8 (stop_disable) or 9 (stop_disable_all): the next fix starts a new seg.
///
/// A field at its base type's invalid value is absent; a record without both coordinates
/// gives no fix. Timestamps below 0x10000000 count seconds since the device started, not
/// UTC (FIT profile, `date_time`): such fixes are written without time, and counted.
struct FITRecordReader: FITMessageHandler {
    let sink: FixSink
    let trace: String?

    /// FIT's epoch, 1989-12-31T00:00:00Z, in seconds since 1970.
    static let epoch: Int64 = 631_065_600
    /// Smaller `date_time` values are device time (FIT profile: `min` 0x10000000).
    static let minimumUTC: UInt32 = 0x1000_0000
    /// Degrees per semicircle: 180 / 2^31.
    static let semicircle = 180.0 / 2_147_483_648.0

    private(set) var records = 0
    private(set) var fixes = 0
    private(set) var deviceTime = 0
    private var seg = 0
    private var segHasFix = false
    private var newSegPending = false

    init(sink: FixSink, trace: String?) {
        self.sink = sink
        self.trace = trace
    }

    /// A field's value as a message shows it: whole when it is one that an `Int64` holds (a
    /// sint32 position always is), else as it is (a field a file declares as float64 may be
    /// anything, infinity and NaN included, and `Int64(_:)` traps on those).
    static func whole(_ v: Double) -> String {
        v == v.rounded() && v.magnitude < 0x1p63 ? String(Int64(v)) : String(v)
    }

    mutating func beginFile(_ index: Int) {
        // A chained file is another recording: its fixes start a new seg.
        if segHasFix { newSegPending = true }
    }

    // SAFETY: `p` is the message in the decoder's buffer, valid during this call only; the numbers
    // read from it are copied into the fix.
    mutating func message(_ plan: FITPlan, _ p: UnsafePointer<UInt8>, time: UInt32?, offset: Int) throws {
        if plan.global == FITPlan.eventMessage {
            if plan.event.bits(p) == 0, let type = plan.eventType.bits(p),
                type == 1 || type == 4 || type == 8 || type == 9,
                segHasFix
            {
                newSegPending = true
            }
            return
        }
        records += 1
        guard let la = plan.positionLat.value(p), let lo = plan.positionLong.value(p) else { return }
        let lat = la * Self.semicircle
        let lon = lo * Self.semicircle
        guard lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 else {
            try sink.problem(
                line: nil,
                "byte \(offset): a record's position_lat \(Self.whole(la)) and position_long \(Self.whole(lo)) semicircles are \(lat), \(lon) degrees, out of range (expected -90 to 90 and -180 to 180); no fix"
            )
            return
        }
        var stamp: Timestamp?
        if let time {
            if time >= Self.minimumUTC {
                stamp = Timestamp(milliseconds: (Int64(time) + Self.epoch) * 1000)
            } else {
                deviceTime += 1
            }
        }
        // (value - 2500) / 5 is value / 5 - 500 rounded once instead of twice: 188.8, not
        // 188.79999999999995 (the subtraction of two whole numbers is exact).
        var alt: Double?
        if let a = plan.enhancedAltitude.value(p) ?? plan.altitude.value(p) { alt = (a - 2500) / 5 }
        var speed: Double?
        if let s = plan.enhancedSpeed.value(p) ?? plan.speed.value(p), s >= 0 { speed = s / 1000 }
        var hacc: Double?
        if let h = plan.gpsAccuracy.value(p), h >= 0 { hacc = h }
        if newSegPending {
            seg += 1
            newSegPending = false
        }
        segHasFix = true
        fixes += 1
        // Made whole in one initializer: filling in a `Fix(lat:lon:)` member by member
        // made the compiler copy the 248-byte struct once a record.
        var fix = Fix(time: stamp, lat: lat, lon: lon, alt: alt, hacc: hacc, speed: speed, trace: trace, seg: seg)
        try sink.emit(&fix)
    }
}
