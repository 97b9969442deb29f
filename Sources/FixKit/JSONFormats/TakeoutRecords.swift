/// One element of Records.json's `locations` (Google Takeout location history, raw), read
/// from its bytes without building values: the hot path of a gigabyte file.
///
/// ```
/// {"latitudeE7": 525121303, "longitudeE7": 134309551, "accuracy": 25, "altitude": 48,
///  "verticalAccuracy": 3, "velocity": 2, "heading": 270, "source": "GPS",
///  "deviceTag": 335552189, "timestamp": "2013-04-15T06:31:26.860Z"}   (or "timestampMs": "1366007486860")
/// ```
///
/// | member | fix field | note |
/// |---|---|---|
/// | `latitudeE7`, `longitudeE7` | `lat`, `lon` | degrees x 10^7; values Google wrote past 2^31 wrapped (see `unwrapE7`) |
/// | `timestamp`, else `timestampMs` | `time` | RFC 3339; milliseconds since 1970 as a string |
/// | `accuracy` | `hacc` | metres |
/// | `altitude` | `alt` | metres |
/// | `verticalAccuracy` | `vacc` | metres |
/// | `velocity` | `speed` | metres per second; negative is absent |
/// | `heading` | `course` | degrees; negative is absent, 360 is 0 |
/// | `deviceTag` | `trace` | the first device's fixes take the file's name, any other's `NAME (device TAG)` |
///
/// Everything else (`activity`, `source`, `platformType`, ...) is not a fix field and is skipped.
struct RecordsLocationDecoder {
    enum Outcome {
        case fix(Fix, device: Int64?)
        /// A location without coordinates (Google writes some with only an activity).
        case noPosition
    }

    /// Google's exporter wrote E7 values above 2^31 - 1 as unsigned 32-bit numbers: a latitude
    /// above 90 degrees or a longitude above 180 degrees is 2^32 too large (documented by
    /// Google's own Takeout help and handled so by every reader of the format).
    @inline(__always)
    static func unwrapE7(_ v: Double, max: Double) -> Double {
        v > max ? v - 4_294_967_296 : v
    }

    // SAFETY: `bytes` is the stream reader's element, valid during this call only; what is kept is
    // copied out.
    func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> Outcome {
        var s = JSONScanner(bytes, endName: "the end of the element")
        var latE7: Double?
        var lonE7: Double?
        var fix = Fix(lat: 0, lon: 0)
        var timeMs: Timestamp?
        var device: Int64?
        var badTime: String?
        s.skipSpace()
        guard s.peek() == JSONByte.openBrace else {
            throw s.error("expected '{' (a location is a JSON object), found \(s.describeHere())")
        }
        var walk = JSONWalk()
        while let name = try s.nextMember(&walk) {
            switch Key(bytes, name.range) {
            case .latitudeE7: latE7 = try number(&s)
            case .longitudeE7: lonE7 = try number(&s)
            case .accuracy: fix.hacc = try number(&s)
            case .altitude: fix.alt = try number(&s)
            case .verticalAccuracy: fix.vacc = try number(&s)
            case .velocity: fix.speed = try number(&s)
            case .heading: fix.course = try number(&s)
            // Checked: a number past Int64 (fuzzing found 1e300) is no tag, not a trap.
            case .deviceTag: device = (try number(&s)).flatMap { Int64(exactly: $0.rounded(.towardZero)) }
            case .timestamp, .timestampMs:
                let isMs = Key(bytes, name.range) == .timestampMs
                if s.peek() == JSONByte.quote {
                    let (r, _) = try s.scanString()
                    // SAFETY: `r` is a string range the scanner found inside `bytes`.
                    let text = UnsafeBufferPointer(rebasing: bytes[r])
                    let t =
                        isMs
                        ? DecimalNumber.parse(text).flatMap(Self.time(milliseconds:)) : Timestamp.parse(text)
                    if let t {
                        if isMs { timeMs = t } else { fix.time = t }
                    } else {
                        badTime = String(decoding: text, as: UTF8.self)
                    }
                } else if let v = try number(&s), isMs {
                    timeMs = Self.time(milliseconds: v)
                    if timeMs == nil { badTime = DecimalNumber.text(v) }
                }
            case nil: try s.skipValue()
            }
        }
        s.skipSpace()
        guard s.atEnd else { throw s.error("expected the end of the location, found \(s.describeHere())") }
        guard let latE7, let lonE7 else { return .noPosition }
        fix.lat = RecordsLocationDecoder.unwrapE7(latE7, max: 900_000_000) / 1e7
        fix.lon = RecordsLocationDecoder.unwrapE7(lonE7, max: 1_800_000_000) / 1e7
        guard fix.hasValidCoordinates else {
            throw JSONSyntaxError(
                message:
                    "latitudeE7 \(DecimalNumber.text(latE7)), longitudeE7 \(DecimalNumber.text(lonE7)) are out of range: expected degrees x 10^7 in [-90, 90] and [-180, 180]",
                offset: nil)
        }
        if fix.time == nil { fix.time = timeMs }
        if fix.time == nil, let badTime {
            throw JSONSyntaxError(message: "timestamp \(badTime.debugDescription) is not an RFC 3339 time", offset: nil)
        }
        if let v = fix.speed, v < 0 { fix.speed = nil }
        if let c = fix.course { fix.course = c < 0 ? nil : c.truncatingRemainder(dividingBy: 360) }
        return .fix(fix, device: device)
    }

    /// A number, or nil for `null` or any other value (skipped).
    @inline(__always)
    /// A time in milliseconds since 1970, nil when RFC 3339 cannot write it (fuzzing found
    /// 1e300, which trapped in `Int64(_:)`): through `Timestamp.adding`, the checked way in.
    static func time(milliseconds v: Double) -> Timestamp? {
        Timestamp(milliseconds: 0).adding(seconds: v / 1000)
    }

    private func number(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Double? {
        guard let c = s.peek(), c == JSONByte.minus || c &- 48 < 10 else {
            try s.skipValue()
            return nil
        }
        return try s.scanNumberValue()
    }

    enum Key {
        case latitudeE7, longitudeE7, accuracy, altitude, verticalAccuracy, velocity, heading, deviceTag, timestamp,
            timestampMs

        /// Matches a member name's bytes without making a String.
        // SAFETY: `r` is a key range inside `bytes` (from the scanner), valid for the call; at most
        // `n = r.count` bytes from `b` are compared.
        @inline(__always)
        init?(_ bytes: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) {
            let n = r.count
            guard n >= 7, n <= 16, let base = bytes.baseAddress else { return nil }
            let b = base + r.lowerBound
            @inline(__always) func eq(_ word: StaticString) -> Bool {
                word.utf8CodeUnitCount == n && memcmpBytes(b, word.utf8Start, n)
            }
            switch b[0] {
            case UInt8(ascii: "l"):
                if eq("latitudeE7") {
                    self = .latitudeE7
                } else if eq("longitudeE7") {
                    self = .longitudeE7
                } else {
                    return nil
                }
            case UInt8(ascii: "a"):
                if eq("accuracy") { self = .accuracy } else if eq("altitude") { self = .altitude } else { return nil }
            case UInt8(ascii: "v"):
                if eq("velocity") {
                    self = .velocity
                } else if eq("verticalAccuracy") {
                    self = .verticalAccuracy
                } else {
                    return nil
                }
            case UInt8(ascii: "h"):
                if eq("heading") { self = .heading } else { return nil }
            case UInt8(ascii: "d"):
                if eq("deviceTag") { self = .deviceTag } else { return nil }
            case UInt8(ascii: "t"):
                if eq("timestamp") {
                    self = .timestamp
                } else if eq("timestampMs") {
                    self = .timestampMs
                } else {
                    return nil
                }
            default: return nil
            }
        }
    }
}
