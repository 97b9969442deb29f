/// gpsd's JSON reports (`gpspipe -w`): TPV records become fixes; every other class (VERSION,
/// DEVICES, WATCH, SKY, ...) is skipped.
///
/// | TPV member | fix field | note |
/// |---|---|---|
/// | `time` | `time` | ISO 8601 UTC |
/// | `lat`, `lon` | `lat`, `lon` | required, with `mode` >= 2 |
/// | `altMSL` (gpsd 3.20+), else `alt` | `alt` | metres above mean sea level |
/// | `speed` | `speed` | m/s |
/// | `track` | `course` | degrees true |
/// | `eph` | `hacc` | gpsd's horizontal position error estimate, metres |
/// | `epv` | `vacc` | vertical error estimate, metres |
/// | `epd` | `cacc` | track (course) error estimate, degrees |
/// | `device` | `trace` | else the input file's name |
struct GPSDReader {
    var fileName: String?
    private var device = RepeatedString()

    init(fileName: String?) {
        self.fileName = fileName
    }

    enum Outcome {
        case fix(Fix)
        /// A report of another class, or a TPV without a 2D fix.
        case skipped
        /// A JSON object without `class`: no gpsd report at all.
        case unclassed
        case invalid(String)
    }

    // SAFETY: `line` is a line of the NMEA reader's buffer, valid during this call only; every
    // range the scanner returns is inside it, and what is kept (the time, the device name) is
    // copied out.
    mutating func report(_ line: UnsafeBufferPointer<UInt8>) -> Outcome {
        var s = JSONScanner(line)
        var isTPV = false
        var hasClass = false
        var mode: Double?
        var lat: Double?
        var lon: Double?
        var fix = Fix(lat: 0, lon: 0)
        var altMSL: Double?
        var alt: Double?
        var badTime: String?
        do throws(JSONSyntaxError) {
            s.skipSpace()
            guard s.peek() == JSONByte.openBrace else { throw s.error("expected '{', found \(s.describeHere())") }
            try s.forEachMember { s, key throws(JSONSyntaxError) in
                // SAFETY: `key` is a range inside `line` (from the scanner), read during this call.
                let name = String(decoding: UnsafeBufferPointer(rebasing: line[key.range]), as: UTF8.self)
                switch name {
                case "class":
                    hasClass = true
                    let (r, _) = try s.scanString()
                    // SAFETY: `r` is inside `line`, read during this call.
                    isTPV = UnsafeBufferPointer(rebasing: line[r]).elementsEqual("TPV".utf8)
                case "time":
                    if s.peek() == JSONByte.quote {
                        let (r, _) = try s.scanString()
                        // SAFETY: `r` is inside `line`; the parse and the String copy it during
                        // this call.
                        fix.time = Timestamp.parse(UnsafeBufferPointer(rebasing: line[r]))
                        if fix.time == nil {
                            badTime = String(decoding: UnsafeBufferPointer(rebasing: line[r]), as: UTF8.self)
                        }
                    } else {
                        try s.skipValue()
                    }
                case "device":
                    if s.peek() == JSONByte.quote {
                        let (r, escaped) = try s.scanString()
                        // SAFETY: `r` is inside `line`; `device.string` copies the bytes (or reuses
                        // an equal copy).
                        fix.trace =
                            escaped
                            ? s.stringValue(r, escaped: true) : device.string(UnsafeBufferPointer(rebasing: line[r]))
                    } else {
                        try s.skipValue()
                    }
                case "mode": mode = try number(&s)
                case "lat": lat = try number(&s)
                case "lon": lon = try number(&s)
                case "altMSL": altMSL = try number(&s)
                case "alt": alt = try number(&s)
                case "speed": fix.speed = try number(&s)
                case "track": fix.course = try number(&s)
                case "eph": fix.hacc = try number(&s)
                case "epv": fix.vacc = try number(&s)
                case "epd": fix.cacc = try number(&s)
                default: try s.skipValue()
                }
            }
        } catch {
            return .invalid(error.message)
        }
        guard hasClass else { return .unclassed }
        guard isTPV, (mode ?? 0) >= 2, let lat, let lon else { return .skipped }
        guard abs(lat) <= 90, abs(lon) <= 180 else {
            return .invalid(
                "TPV lat \(DecimalNumber.text(lat)), lon \(DecimalNumber.text(lon)) out of range (expected [-90, 90] and [-180, 180])"
            )
        }
        if let badTime { return .invalid("TPV time \(badTime.debugDescription) is not an ISO 8601 time") }
        fix.lat = lat
        fix.lon = lon
        fix.alt = altMSL ?? alt
        if fix.trace == nil { fix.trace = fileName }
        if let s = fix.speed, s < 0 { fix.speed = nil }
        if let c = fix.course, c < 0 || c >= 360 { fix.course = c < 0 ? nil : c.truncatingRemainder(dividingBy: 360) }
        return .fix(fix)
    }

    /// A number, or nil for `null` or any other value.
    private func number(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Double? {
        guard let c = s.peek(), c == JSONByte.minus || c &- 48 < 10 else {
            try s.skipValue()
            return nil
        }
        return try s.scanNumberValue()
    }
}
