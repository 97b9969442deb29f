/// One NMEA 0183 sentence, split into its comma-separated fields, checksum already checked.
///
/// `$TTSSS,f1,f2,...*hh`: TT is the talker (GP, GN, GL, GA, GB, BD, GQ, QZ...), SSS the
/// sentence type. Fields are numbered from 1 after the address, as in every sentence's
/// diagram (`$--GGA,hhmmss.ss,...`: field 1 is the time). They are byte ranges into the
/// sentence's bytes; an empty field is absent.
///
/// SAFETY: `base` and `bounds` point into the reader's line buffer and its `FieldBounds`
/// scratch table. Both live only until the next sentence is framed (the reader reuses the
/// table and may move the buffer when it reads more), so a sentence is used at once and never
/// stored: a parser copies out the numbers it reads.
struct NMEASentence {
    // SAFETY: `base` and `bounds` point into the reader's line buffer and its `FieldBounds`; both
    // are valid only until the next sentence is framed (the buffer may move when more is read, and
    // `bounds` is rewritten), so a sentence is used at once and never stored. `base[..<length]` is
    // the sentence, from its `$` to the line's end; every field is inside it (`frame` ends each
    // field inside the sentence) and starts after the address, `$TTSSS,` (7 bytes or more), so a
    // field that is not empty ends 8 bytes or more into it.
    let base: UnsafePointer<UInt8>
    let length: Int
    /// Where each field ends: `bounds[0]` is the comma after the address, `bounds[n]` the
    /// comma (or the end of the last field) that ends field n. Field n runs from just after
    /// `bounds[n - 1]` to `bounds[n]`.
    let bounds: UnsafePointer<Int32>
    /// The number of fields (the last one is field `count`).
    let count: Int
    /// The sentence type, such as `RMC`, as three bytes packed into an integer.
    let type: UInt32

    /// The sentence's bytes, from its `$` to the line's end.
    // SAFETY: `base[..<length]`, valid as long as the sentence is (see above).
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: length) }

    /// Field n's byte range (n from 1 to `count`).
    @inline(__always)
    func range(_ n: Int) -> Range<Int> { Int(bounds[n - 1]) + 1..<Int(bounds[n]) }

    static func code(_ s: StaticString) -> UInt32 {
        let p = s.utf8Start
        return UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
    }

    /// Whether field n is empty or missing (a sentence cut short).
    @inline(__always)
    func isEmpty(_ n: Int) -> Bool { n > count || bounds[n - 1] + 1 >= bounds[n] }

    /// Field n's bytes; empty when the sentence has fewer fields.
    // SAFETY: the returned buffer is a part of the sentence (or empty at its start) and lives as
    // long as the sentence does.
    @inline(__always)
    func field(_ n: Int) -> UnsafeBufferPointer<UInt8> {
        guard n <= count else { return UnsafeBufferPointer(start: base, count: 0) }
        let r = range(n)
        // SAFETY: a sub-range of the sentence (see above), valid as long as the sentence is.
        return UnsafeBufferPointer(start: base + r.lowerBound, count: r.count)
    }

    /// The first byte of field n, or nil when it is empty.
    @inline(__always)
    func char(_ n: Int) -> UInt8? {
        guard n <= count else { return nil }
        let start = Int(bounds[n - 1]) + 1
        return start < Int(bounds[n]) ? base[start] : nil
    }

    /// Field n as a number, read once: nil when it is empty (or the sentence has fewer
    /// fields); a field that is present but not a number makes the whole sentence malformed.
    /// One copy, called from every parser: inlined into each, the parsers' code outgrew the
    /// instruction cache (callgrind's cache simulation: 18 misses an epoch more).
    @inline(never)
    func optionalNumber(_ n: Int) throws(NMEARefusal) -> Double? {
        guard n <= count else { return nil }
        let start = Int(bounds[n - 1]) + 1
        let end = Int(bounds[n])
        guard start < end else { return nil }
        if let v = shortNumber(start, end) { return v }
        guard let v = number(start, end) else { throw .number(field: n) }
        return v
    }

    /// Bytes `start..<end` of a field as a number (`DecimalNumber`'s grammar), out of line:
    /// the forms `shortNumber` leaves (a sign, more than eight bytes, an exponent, no number).
    @inline(never)
    func number(_ start: Int, _ end: Int) -> Double? {
        // SAFETY: a part of a field, inside the sentence, valid for the call.
        DecimalNumber.parse(UnsafeBufferPointer(start: base + start, count: end - start))
    }

    /// The eight bytes that end at `end`, a non-empty field's end or a place in one, as one
    /// word, the last byte on top.
    @inline(__always)
    func word(endingAt end: Int) -> UInt64 {
        // SAFETY: `base[(end - 8)..<end]` is inside the sentence: a non-empty field ends 8 bytes
        // or more into it, and at most at its end (see above).
        UnsafeRawPointer(base + end - 8).loadUnaligned(as: UInt64.self).littleEndian
    }

    /// Bytes `start..<end` of a non-empty field as a number when they are one to eight digits
    /// with at most one point, which a digit follows (`0.80`, `170.8`, `10`, `.5`: what NMEA's
    /// numbers are), else nil (a sign, an exponent, a longer field: `number` reads those). The
    /// value is `DecimalNumber.parse`'s: the same integer over the same exact power of ten,
    /// one correctly rounded division. The bytes are checked and converted as one word, with
    /// no branch on each byte.
    @inline(__always)
    func shortNumber(_ start: Int, _ end: Int) -> Double? {
        let length = end - start
        guard length <= 8 else { return nil }
        let highs: UInt64 = 0x8080_8080_8080_8080
        // The field's bytes in the low `length` bytes of x, the first lowest.
        let x = word(endingAt: end) &>> UInt64(64 - 8 * length)
        let inField: UInt64 = length == 8 ? ~0 : (1 &<< UInt64(8 * length)) &- 1
        // Digits become 0...9, and a byte's high bit is set in `bad` where it is anything else
        // (a byte of 0x8A or more may carry into the next and mark it too: then a digit is
        // left to `number`, never a non-digit taken for one).
        let d = x ^ 0x3030_3030_3030_3030
        let bad = (d | (d &+ 0x7676_7676_7676_7676)) & highs & inField
        var digits = d & inField
        var count = length
        var decimals = 0
        if bad != 0 {
            // One byte that is not a digit: a point, with a digit after it.
            guard bad & (bad &- 1) == 0 else { return nil }
            let point = bad.trailingZeroBitCount >> 3
            guard point <= length - 2, UInt8(truncatingIfNeeded: x &>> UInt64(8 * point)) == UInt8(ascii: ".")
            else { return nil }
            // The digits after the point move down over it.
            let below: UInt64 = (1 &<< UInt64(8 * point)) &- 1
            count = length - 1
            digits = d & below | d &>> 8 & ~below & ((1 &<< UInt64(8 * count)) &- 1)
            decimals = count - point
        }
        // As eight digits with leading zeros, the first in the lowest byte.
        let v = DecimalNumber.valueOfEight(digits &<< UInt64(8 * (8 - count)))
        return Double(v) / DecimalNumber.exactPowers[decimals]
    }

    /// The high bit of each byte of `word(endingAt: end)` that is a `.` of the non-empty field
    /// `start..<end` (bytes before the field left out).
    @inline(__always)
    func points(_ start: Int, _ end: Int) -> UInt64 {
        let highs: UInt64 = 0x8080_8080_8080_8080
        // Where x has a zero byte: (x & 0x7F) + 0x7F sets a byte's high bit unless its low
        // seven bits are 0, without a carry, and x's own high bit joins.
        let x = word(endingAt: end) ^ 0x2E2E_2E2E_2E2E_2E2E
        let found = ~((x & ~highs &+ ~highs) | x) & highs
        let length = end - start
        return length >= 8 ? found : found & ~0 &<< UInt64(8 * (8 - length))
    }

    /// Decimal places in field n (`4807.038` has 3): how precise a coordinate is.
    func decimals(_ n: Int) -> Int {
        guard n <= count else { return 0 }
        let r = range(n)
        guard !r.isEmpty else { return 0 }
        // From the end, where the fraction's point is: most often in the last eight bytes.
        let found = points(r.lowerBound, r.upperBound)
        if found != 0 { return 7 - (63 - found.leadingZeroBitCount) >> 3 }
        var k = r.upperBound - 8
        while k > r.lowerBound {
            k -= 1
            if base[k] == UInt8(ascii: ".") { return r.upperBound - k - 1 }
        }
        return 0
    }

    /// A latitude or longitude: `ddmm.mmmm` (or `dddmm.mmmm`) in field n, hemisphere letter in
    /// field n + 1 (N/S or E/W). Nil when empty, malformed or out of range. Adds the field's
    /// decimal places to `decimals`.
    func coordinate(_ n: Int, limit: Double, decimals: inout Int) -> Double? {
        guard n <= count else { return nil }
        let start = Int(bounds[n - 1]) + 1
        let end = Int(bounds[n])
        guard start < end, let hemisphere = char(n + 1) else { return nil }
        // Degrees are the digits before the last two in front of the decimal point: the first
        // point, looked for in the last eight bytes, then before them (none: the field's end).
        // A point found there that is not the first leaves one in the degrees or two in the
        // minutes, and the field is refused either way, as it is when the first is taken.
        var dot = end
        let found = points(start, end)
        if found != 0 {
            dot = end - 8 + found.trailingZeroBitCount >> 3
        } else if end - start > 8 {
            dot = start
            while dot < end - 8, base[dot] != UInt8(ascii: ".") { dot += 1 }
            if dot == end - 8 { dot = end }
        }
        guard dot - start >= 3 else { return nil }
        var degrees = 0.0
        for k in start..<(dot - 2) {
            let d = base[k] &- 48
            guard d < 10 else { return nil }
            degrees = degrees * 10 + Double(d)
        }
        guard let minutes = shortNumber(dot - 2, end) ?? number(dot - 2, end), minutes >= 0, minutes < 60 else {
            return nil
        }
        var value = degrees + minutes / 60
        switch hemisphere {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): break
        case UInt8(ascii: "S"), UInt8(ascii: "W"): value = -value
        default: return nil
        }
        guard abs(value) <= limit else { return nil }
        if dot < end { decimals += end - dot - 1 }
        return value
    }

    /// Bytes `start..<start + 6`, inside the sentence, as three numbers of two digits (`hhmmss`,
    /// `ddmmyy`); nil unless all six are digits.
    @inline(__always)
    func digitPairs(_ start: Int) -> (Int64, Int64, Int64)? {
        if start + 8 <= length {
            // The six as one word (the sentence goes on past them), checked and paired at
            // once: byte 2k becomes 10 · digit 2k + digit 2k + 1.
            // SAFETY: `start..<start + 8` is inside the sentence, checked just above.
            let d = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self).littleEndian ^ 0x3030_3030_3030_3030
            // A byte of 0x8A or more may carry a mark into the next: there is a non-digit
            // among the six either way.
            guard (d | (d &+ 0x7676_7676_7676_7676)) & 0x0000_8080_8080_8080 == 0 else { return nil }
            let pairs = (d &* 10) &+ (d &>> 8)
            return (Int64(pairs & 0xFF), Int64(pairs &>> 16 & 0xFF), Int64(pairs &>> 32 & 0xFF))
        }
        @inline(__always) func pair(_ k: Int) -> Int64? {
            let a = base[start + k] &- 48
            let b = base[start + k + 1] &- 48
            guard a < 10, b < 10 else { return nil }
            return Int64(a) * 10 + Int64(b)
        }
        guard let a = pair(0), let b = pair(2), let c = pair(4) else { return nil }
        return (a, b, c)
    }

    /// A UTC time of day `hhmmss[.sss]` in field n, in milliseconds since midnight. Seconds 60
    /// are read only at 23:59 (a leap second), as 23:59:59.999.
    func timeOfDay(_ n: Int) -> Int64? {
        let t = field(n)
        guard t.count >= 6, let (h, m, s) = digitPairs(Int(bounds[n - 1]) + 1) else { return nil }
        guard h < 24, m < 60, s < 60 || (s == 60 && h == 23 && m == 59) else { return nil }
        // The fraction is digits only (`hhmmss.sss`): a number parser would also take an
        // exponent (`123519.5e300`), whose milliseconds no integer holds.
        var ms: Int64 = 0
        if t.count > 6 {
            guard t[6] == UInt8(ascii: "."), t.count > 7 else { return nil }
            var scale: Int64 = 100
            var rest = 0
            for k in 7..<t.count {
                let d = t[k] &- 48
                guard d < 10 else { return nil }
                if scale > 0 {
                    ms += Int64(d) * scale
                    scale /= 10
                } else if k == 10 {
                    rest = Int(d)
                }
            }
            // Rounded to the millisecond, but never up into the next second (whose epoch is
            // another one).
            if rest >= 5, ms < 999 { ms += 1 }
        }
        // A leap second, 23:59:60.x, is not the first second of the next day (which another
        // epoch has): its epochs are one epoch at the day's last millisecond, 23:59:59.999, so
        // that its fix keeps a time of its own, after every earlier one and before the next.
        if s == 60 { return 86_399_999 }
        return (h * 3600 + m * 60 + s) * 1000 + ms
    }
}

/// NMEA's units.
enum NMEAUnits {
    /// One international knot: 1852 m per hour.
    static let knot = 1852.0 / 3600.0
    /// One kilometre per hour.
    static let kmh = 1000.0 / 3600.0
}
