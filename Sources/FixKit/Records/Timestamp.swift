/// An instant in UTC, to the millisecond: what the fix record's `time` can say.
///
/// Parsed from and written to RFC 3339 by hand, from bytes: Foundation's
/// `ISO8601DateFormatter` costs about 44 µs a date, which is more than the rest of a record.
/// Civil dates use the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`),
/// so years 0000 to 9999 work, including the far past and future some files carry.
public struct Timestamp: Hashable, Comparable, Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z; negative before it.
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// Seconds since 1970, clamped to the times RFC 3339 can write (for computed times; input
    /// goes through `adding(seconds:)`, which says when it is out of range).
    public init(seconds: Double) {
        self = Timestamp(milliseconds: 0).adding(seconds: seconds) ?? (seconds < 0 ? .earliest : .latest)
    }

    public var seconds: Double { Double(milliseconds) / 1000 }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    /// 2000-01-01T00:00:00Z, fix2gpx's default start for fixes without time.
    public static let y2k = Timestamp(milliseconds: 946_684_800_000)

    /// 0000-01-01T00:00:00Z, the earliest time RFC 3339's four-digit year can write.
    public static let earliest = Timestamp(milliseconds: -62_167_219_200_000)
    /// 9999-12-31T23:59:59.999Z, the latest.
    public static let latest = Timestamp(milliseconds: 253_402_300_799_999)

    /// Whether RFC 3339 can write this time (years 0000 to 9999).
    public var isWritable: Bool { self >= .earliest && self <= .latest }

    /// This time plus `seconds`, or nil when the sum is not a time RFC 3339 can write (or
    /// not a number): for times computed from input, which must never trap on overflow.
    public func adding(seconds: Double) -> Timestamp? {
        let ms = Double(milliseconds) + (seconds * 1000).rounded()
        guard ms.isFinite, ms >= Double(Timestamp.earliest.milliseconds), ms <= Double(Timestamp.latest.milliseconds)
        else { return nil }
        return Timestamp(milliseconds: Int64(ms))
    }
}

extension Timestamp {
    /// Days from 1970-01-01 to the civil date `y-m-d` (proleptic Gregorian).
    @inline(__always)
    static func daysFromCivil(_ y: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y - 1 : y
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = m > 2 ? m - 3 : m + 9
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count from 1970-01-01; the inverse of `daysFromCivil`.
    @inline(__always)
    static func civilFromDays(_ z: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0)
    {
        guard (1...12).contains(month), day >= 1, day <= Int(Timestamp.daysInMonth(Int64(year), Int64(month))),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (0...999).contains(millisecond)
        else { return nil }
        let days = Timestamp.daysFromCivil(Int64(year), Int64(month), Int64(day))
        let secs = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.milliseconds = secs * 1000 + Int64(millisecond)
    }
}

// MARK: - Parsing

extension Timestamp {
    /// Parses an RFC 3339 / ISO 8601 date-time from bytes, as GPS files write them.
    ///
    /// Accepts `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any length (rounded to the
    /// millisecond), and a zone of `Z`, `±HH:MM`, `±HHMM` or `±HH`; no zone means UTC. `t`, `z`
    /// and a space for `T` are accepted too (RFC 3339 §5.6 allows them). Surrounding XML
    /// whitespace is ignored. A leap second (`:60`) counts as the first second of the next minute.
    /// Returns nil for anything else: a calendar date that does not exist, a missing field, a
    /// time that in UTC falls outside years 0000 to 9999.
    // SAFETY: `text` is the caller's, read during this call only; every index is checked against
    // its count.
    public static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var start = 0
        var end = text.count
        while start < end, isXMLSpace(text[start]) { start += 1 }
        while end > start, isXMLSpace(text[end - 1]) { end -= 1 }
        var i = start

        @inline(__always) func digits(_ n: Int) -> Int64? {
            guard i + n <= end else { return nil }
            var v: Int64 = 0
            for k in 0..<n {
                let c = text[i + k] &- 48
                guard c < 10 else { return nil }
                v = v * 10 + Int64(c)
            }
            i += n
            return v
        }
        @inline(__always) func expect(_ c: UInt8) -> Bool {
            guard i < end, text[i] == c else { return false }
            i += 1
            return true
        }

        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
            let day = digits(2)
        else { return nil }
        guard i < end, text[i] == UInt8(ascii: "T") || text[i] == UInt8(ascii: "t") || text[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }

        // Fraction: keep four digits, round to milliseconds.
        var tenthsOfMs: Int64 = 0
        if i < end, text[i] == UInt8(ascii: ".") || text[i] == UInt8(ascii: ",") {
            i += 1
            var n = 0
            while i < end, text[i] &- 48 < 10 {
                if n < 4 { tenthsOfMs = tenthsOfMs * 10 + Int64(text[i] - 48) }
                n += 1
                i += 1
            }
            guard n > 0 else { return nil }
            for _ in n..<max(n, 4) { tenthsOfMs *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if i < end {
            let c = text[i]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i += 1
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                i += 1
                guard let oh = digits(2), oh <= 23 else { return nil }
                var om: Int64 = 0
                if i < end {
                    _ = expect(UInt8(ascii: ":"))
                    guard let m = digits(2), m <= 59 else { return nil }
                    om = m
                }
                offsetSeconds = (oh * 3600 + om * 60) * (c == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return nil
            }
        }
        guard i == end else { return nil }
        let days = daysFromCivil(year, month, day)
        let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // A zone offset or a leap second can carry a time past 9999-12-31 (or before year
        // 0): a time RFC 3339 cannot write back is not one we read.
        let t = Timestamp(milliseconds: secs * 1000 + (tenthsOfMs + 5) / 10)
        return t.isWritable ? t : nil
    }

    public static func parse(_ text: String) -> Timestamp? {
        var text = text
        return text.withUTF8 { parse($0) }
    }
}

@inline(__always)
func isXMLSpace(_ c: UInt8) -> Bool {
    c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
}

// MARK: - Writing

extension Timestamp {
    /// Appends the SPEC form: `YYYY-MM-DDTHH:MM:SSZ`, or `.mmmZ` when the second is not whole.
    /// Years outside 0000...9999 cannot be written in RFC 3339; callers check `isWritable`
    /// (every reader does) and this clamps only as a last defence.
    public func write(into out: inout [UInt8]) {
        // Built on the stack and appended once: per-byte appends cost more than the arithmetic.
        // SAFETY: a stack buffer of `maxWidth` bytes, alive for the closure only; `write(to:)`
        // writes at most that many, copied into `out` before it ends.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Timestamp.maxWidth) { b in
            guard let p = b.baseAddress else { return }
            let n = write(to: p)
            out.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
        }
    }

    /// The most bytes `write(to:)` writes: `9999-12-31T23:59:59.999Z`.
    public static let maxWidth = 24

    /// Writes what `write(into:)` appends at `b`, which has room for `maxWidth` bytes, and
    /// returns how many bytes it wrote.
    // SAFETY: `b` has room for `maxWidth` bytes (the caller's buffer, for the call).
    @inline(__always)
    public func write(to b: UnsafeMutablePointer<UInt8>) -> Int {
        let (day, ms) = writtenDay
        Timestamp.writeDate(day, to: b)
        return 11 + Timestamp.writeTimeOfDay(ms, to: b + 11)
    }

    /// The day (since 1970-01-01) and the milliseconds into it that `write(to:)` writes: of
    /// this time clamped to the years 0000...9999.
    @inline(__always)
    var writtenDay: (day: Int64, milliseconds: Int64) {
        var ms = milliseconds
        let minMs = Timestamp.daysFromCivil(0, 1, 1) * 86_400_000
        let maxMs = Timestamp.daysFromCivil(10_000, 1, 1) * 86_400_000 - 1
        ms = min(max(ms, minMs), maxMs)
        var days = ms / 86_400_000
        var rem = ms % 86_400_000
        if rem < 0 {
            rem += 86_400_000
            days -= 1
        }
        return (days, rem)
    }

    /// Writes `YYYY-MM-DDT` for day `days` (of the years 0000...9999) at `b`: 11 bytes.
    // SAFETY: `b` has room for 11 bytes (the caller's buffer, for the call).
    @inline(__always)
    static func writeDate(_ days: Int64, to b: UnsafeMutablePointer<UInt8>) {
        let (y, m, d) = Timestamp.civilFromDays(days)
        let pairs = DecimalNumber.digitPairs
        @inline(__always) func two(_ at: Int, _ v: Int64) {
            b[at] = pairs[2 * Int(v)]
            b[at + 1] = pairs[2 * Int(v) + 1]
        }
        two(0, y / 100)
        two(2, y % 100)
        b[4] = UInt8(ascii: "-")
        two(5, m)
        b[7] = UInt8(ascii: "-")
        two(8, d)
        b[10] = UInt8(ascii: "T")
    }

    /// Writes `HH:MM:SSZ`, or `HH:MM:SS.mmmZ` when the second is not whole, for `ms` (in
    /// 0..<86,400,000) milliseconds into a day at `b`, and returns its length.
    // SAFETY: `b` has room for 13 bytes (the caller's buffer, for the call).
    @inline(__always)
    static func writeTimeOfDay(_ ms: Int64, to b: UnsafeMutablePointer<UInt8>) -> Int {
        let secOfDay = ms / 1000
        let frac = ms % 1000
        let pairs = DecimalNumber.digitPairs
        @inline(__always) func two(_ at: Int, _ v: Int64) {
            b[at] = pairs[2 * Int(v)]
            b[at + 1] = pairs[2 * Int(v) + 1]
        }
        two(0, secOfDay / 3600)
        b[2] = UInt8(ascii: ":")
        two(3, secOfDay / 60 % 60)
        b[5] = UInt8(ascii: ":")
        two(6, secOfDay % 60)
        var n = 8
        if frac != 0 {
            b[8] = UInt8(ascii: ".")
            b[9] = UInt8(48 + frac / 100)
            two(10, frac % 100)
            n = 12
        }
        b[n] = UInt8(ascii: "Z")
        return n + 1
    }

    /// The RFC 3339 text, as `write(into:)` writes it.
    public var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
