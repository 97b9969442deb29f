/// Decodes one NDJSON line into a `Fix`.
///
/// Known members are checked for type and range; members it does not know are kept verbatim,
/// in order, in `Fix.extra`. `null` for an optional member means absent (SPEC writes absent
/// fields as missing, but other programs write `null`). A value of the wrong type, a missing
/// or out-of-range coordinate, or broken JSON throws a `FixDecodingError` whose message says
/// what was wrong and what was expected.
///
/// The decoder is a value with a little memory: it reuses the last `trace` string, since a
/// stream repeats the same trace on every line.
public struct FixDecoder {
    private var trace = RepeatedString()
    /// Where the last decoded line's `course` member lies, so that fixfilter can strip it
    /// without scanning the line again.
    public private(set) var course = MemberSpan()

    public init() {}

    // SAFETY: `line` is the caller's (a line of the reader's buffer), read during this call only;
    // the fix copies what it keeps (numbers, strings, extra members).
    public mutating func decode(_ line: UnsafeBufferPointer<UInt8>) throws(FixDecodingError) -> Fix {
        var s = JSONScanner(line)
        do {
            return try decodeObject(&s)
        } catch let e {
            // Grammar errors say where; errors about a whole value or the record (no offset) do not.
            throw FixDecodingError(message: e.offset.map { e.message + " (at byte \($0 + 1))" } ?? e.message)
        }
    }

    private mutating func decodeObject(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Fix {
        var fix = Fix(lat: .nan, lon: .nan)
        s.skipSpace()
        guard s.peek() == JSONByte.openBrace else {
            throw s.error("a fix is a JSON object, but the line starts with \(s.describeHere())")
        }
        course = MemberSpan(afterBrace: s.position + 1)
        var previousEnd = s.position + 1  // where the separator before the next member starts
        var walk = JSONWalk()
        while let name = try s.nextMember(&walk) {
            if course.nextKey == -1 { course.nextKey = name.start }
            let field =
                name.escaped
                ? FixField(rawValue: s.stringValue(name.range, escaped: true)) : Self.field(s.bytes, name.range)
            if let field {
                try decodeField(field, &s, into: &fix)
                if field == .course, !name.escaped {
                    course.record(separator: previousEnd, key: name.start, end: s.position)
                }
            } else {
                try s.skipValue()
                // SAFETY: `name.start..<s.position` is what the scanner just passed, inside its
                // bytes; `appendExtra` copies it.
                fix.appendExtra(UnsafeBufferPointer(rebasing: s.bytes[name.start..<s.position]))
            }
            previousEnd = s.position
        }
        s.skipSpace()
        guard s.atEnd else { throw s.error("expected the end of the line after the object, found \(s.describeHere())") }
        let hasLat = !fix.lat.isNaN
        let hasLon = !fix.lon.isNaN
        guard hasLat, hasLon else {
            let missing = !hasLat && !hasLon ? "\"lat\" and \"lon\"" : !hasLat ? "\"lat\"" : "\"lon\""
            throw JSONSyntaxError(
                message: "a fix needs \(missing) (WGS 84 degrees) but this object has no \(missing)", offset: nil)
        }
        guard fix.lat >= -90, fix.lat <= 90 else {
            throw JSONSyntaxError(
                message: "lat \(DecimalNumber.text(fix.lat)) is out of range: expected degrees in [-90, 90]",
                offset: nil
            )
        }
        guard fix.lon >= -180, fix.lon <= 180 else {
            throw JSONSyntaxError(
                message: "lon \(DecimalNumber.text(fix.lon)) is out of range: expected degrees in [-180, 180]",
                offset: nil)
        }
        return fix
    }

    /// Matches a key's bytes against the known members without making a String.
    // SAFETY: `r` is a key range the scanner found inside `bytes` (valid for the call); `b` points
    // at its first byte and at most `n = r.count` bytes are compared.
    @inline(__always)
    static func field(_ bytes: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> FixField? {
        let n = r.count
        guard n >= 3, n <= 6, let base = bytes.baseAddress else { return nil }
        let b = base + r.lowerBound
        @inline(__always) func eq(_ word: StaticString) -> Bool {
            word.utf8CodeUnitCount == n && memcmpBytes(b, word.utf8Start, n)
        }
        switch b[0] {
        case UInt8(ascii: "l"): return eq("lat") ? .lat : eq("lon") ? .lon : nil
        case UInt8(ascii: "t"): return eq("time") ? .time : eq("trace") ? .trace : nil
        case UInt8(ascii: "a"): return eq("alt") ? .alt : nil
        case UInt8(ascii: "h"): return eq("hacc") ? .hacc : eq("hdop") ? .hdop : nil
        case UInt8(ascii: "v"): return eq("vacc") ? .vacc : eq("vdop") ? .vdop : nil
        case UInt8(ascii: "s"): return eq("speed") ? .speed : eq("sat") ? .sat : eq("seg") ? .seg : nil
        case UInt8(ascii: "c"): return eq("course") ? .course : eq("cacc") ? .cacc : nil
        case UInt8(ascii: "p"): return eq("pdop") ? .pdop : nil
        case UInt8(ascii: "n"): return eq("name") ? .name : nil
        default: return nil
        }
    }

    private mutating func decodeField(_ field: FixField, _ s: inout JSONScanner, into fix: inout Fix)
        throws(JSONSyntaxError)
    {
        if s.skipNull() {
            switch field {
            case .lat, .lon: throw s.error("\"\(field.rawValue)\" is null: expected a number of degrees")
            default: return
            }
        }
        switch field {
        case .time:
            let at = s.position
            let (r, escaped) = try s.scanString()
            let parsed: Timestamp?
            if escaped {
                parsed = Timestamp.parse(s.stringValue(r, escaped: true))
            } else {
                // SAFETY: `r` is a string range inside the scanner's bytes; the parse reads it
                // during the call.
                parsed = Timestamp.parse(UnsafeBufferPointer(rebasing: s.bytes[r]))
            }
            guard let parsed else {
                throw JSONSyntaxError(
                    message:
                        // SAFETY: as above; the String copies the bytes.
                        "\"time\" \(String(decoding: UnsafeBufferPointer(rebasing: s.bytes[r]), as: UTF8.self).debugDescription) is not an RFC 3339 time such as 2026-01-01T09:00:00Z",
                    offset: at)
            }
            fix.time = parsed
        case .name:
            let (r, escaped) = try stringMember(field, &s)
            fix.name = s.stringValue(r, escaped: escaped)
        case .trace:
            let (r, escaped) = try stringMember(field, &s)
            fix.trace =
                escaped ? s.stringValue(r, escaped: true) : trace.string(UnsafeBufferPointer(rebasing: s.bytes[r]))
        case .sat, .seg:
            let v = try number(field, &s)
            guard v >= 0, v == v.rounded(), v < 1e15 else {
                throw s.error("\"\(field.rawValue)\" must be a whole number >= 0, not \(DecimalNumber.text(v))")
            }
            if field == .sat { fix.sat = Int(v) } else { fix.seg = Int(v) }
        case .lat: fix.lat = try number(field, &s)
        case .lon: fix.lon = try number(field, &s)
        case .alt: fix.alt = try number(field, &s)
        case .hacc: fix.hacc = try number(field, &s)
        case .vacc: fix.vacc = try number(field, &s)
        case .speed: fix.speed = try number(field, &s)
        case .course: fix.course = try number(field, &s)
        case .cacc: fix.cacc = try number(field, &s)
        case .hdop: fix.hdop = try number(field, &s)
        case .vdop: fix.vdop = try number(field, &s)
        case .pdop: fix.pdop = try number(field, &s)
        }
    }

    private func number(_ field: FixField, _ s: inout JSONScanner) throws(JSONSyntaxError) -> Double {
        guard let c = s.peek(), c == JSONByte.minus || c &- 48 < 10 else {
            throw s.error("\"\(field.rawValue)\" must be a number, found \(s.describeHere())")
        }
        guard let v = try s.scanNumberValue() else {
            throw s.error("\"\(field.rawValue)\" is too large for a double")
        }
        return v
    }

    private func stringMember(_ field: FixField, _ s: inout JSONScanner) throws(JSONSyntaxError) -> (Range<Int>, Bool) {
        guard s.peek() == JSONByte.quote else {
            throw s.error("\"\(field.rawValue)\" must be a string, found \(s.describeHere())")
        }
        return try s.scanString()
    }
}

/// Where one member lies in a line's bytes, as offsets: what `RawRecord` needs to remove it.
/// Only members whose key has no escapes are recorded, as `RawRecord.removingMember` matches.
public struct MemberSpan: Sendable, Equatable {
    /// How many members of that name the line has (with unescaped keys).
    public internal(set) var count = 0
    /// Just after the object's `{`.
    public internal(set) var afterBrace = 0
    /// Where the previous member's value ends (`afterBrace` for the first member).
    public internal(set) var separator = 0
    /// Where the member's key starts, and where its value ends.
    public internal(set) var key = 0
    public internal(set) var end = 0
    /// Where the next member's key starts; -1 while it is to come, -2 when not wanted.
    public internal(set) var nextKey = -2
    /// Whether it is the object's first member.
    public var isFirst: Bool { separator == afterBrace }

    init() {}
    init(afterBrace: Int) { self.afterBrace = afterBrace }

    mutating func record(separator: Int, key: Int, end: Int) {
        count += 1
        self.separator = separator
        self.key = key
        self.end = end
        nextKey = -1
    }
}

// SAFETY: `a` and `b` must each point at `n` readable bytes for the call.
@inline(__always)
func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    for k in 0..<n where a[k] != b[k] { return false }
    return true
}

/// A line that is not a usable fix, with words a user can act on.
public struct FixDecodingError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension FixDecoder {
    /// Appends the members of a JSON object, verbatim, to `fix.extra`: how gpx2fix restores the
    /// members fix2gpx kept in its `json` extension.
    // SAFETY: `bytes` is the caller's, read during this call only; the members are copied into
    // `fix.extra`.
    public static func appendMembers(ofObject bytes: UnsafeBufferPointer<UInt8>, to fix: inout Fix)
        throws(JSONSyntaxError)
    {
        var s = JSONScanner(bytes, endName: "the end")
        s.skipSpace()
        guard s.peek() == JSONByte.openBrace else { throw s.error("expected '{', found \(s.describeHere())") }
        try s.forEachMember { s, name throws(JSONSyntaxError) in
            try s.skipValue()
            // SAFETY: `name.start..<s.position` is what the scanner just passed, inside `bytes`;
            // copied.
            fix.appendExtra(UnsafeBufferPointer(rebasing: s.bytes[name.start..<s.position]))
        }
        s.skipSpace()
        guard s.atEnd else { throw s.error("unexpected text after the object") }
    }
}
