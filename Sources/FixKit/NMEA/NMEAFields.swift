/// One NMEA 0183 sentence, split into its comma-separated fields, checksum already checked.
///
/// `$TTSSS,f1,f2,...*hh`: TT is the talker (GP, GN, GL, GA, GB, BD, GQ, QZ...), SSS the
/// sentence type. Fields are numbered from 1 after the address, as in every sentence's
/// diagram (`$--GGA,hhmmss.ss,...`: field 1 is the time). They are byte ranges into the
/// sentence's bytes; an empty field is absent.
///
/// SAFETY: `bytes` and `bounds` point into the reader's line buffer and its `FieldBounds`
/// scratch table. Both live only until the next sentence is framed (the reader reuses the
/// table and may move the buffer when it reads more), so a sentence is used at once and never
/// stored: a parser copies out the numbers it reads.
struct NMEASentence {
    // SAFETY: `bytes` and `bounds` point into the reader's line buffer and its `FieldBounds`; both
    // are valid only until the next sentence is framed (the buffer may move when more is read, and
    // `bounds` is rewritten), so a sentence is used at once and never stored. Every field range is
    // inside `bytes` (`frame` ends each field inside the sentence).
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where each field ends: `bounds[0]` is the comma after the address, `bounds[n]` the
    /// comma (or the end of the last field) that ends field n. Field n runs from just after
    /// `bounds[n - 1]` to `bounds[n]`.
    let bounds: UnsafePointer<Int32>
    /// The number of fields (the last one is field `count`).
    let count: Int
    /// The sentence type, such as `RMC`, as three bytes packed into an integer.
    let type: UInt32

    /// Field n's byte range (n from 1 to `count`).
    @inline(__always)
    func range(_ n: Int) -> Range<Int> { Int(bounds[n - 1]) + 1..<Int(bounds[n]) }

    static func code(_ s: StaticString) -> UInt32 {
        let p = s.utf8Start
        return UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
    }

    /// Whether field n is empty or missing (a sentence cut short).
    func isEmpty(_ n: Int) -> Bool { n > count || range(n).isEmpty }

    /// Field n's bytes; empty when the sentence has fewer fields.
    // SAFETY: the returned buffer is a part of `bytes` (or empty at its start) and lives as long as
    // the sentence does.
    func field(_ n: Int) -> UnsafeBufferPointer<UInt8> {
        guard n <= count else { return UnsafeBufferPointer(start: bytes.baseAddress, count: 0) }
        let r = range(n)
        // SAFETY: a sub-range of `bytes` (`frame` ends every field inside the sentence), valid
        // as long as the sentence is.
        return UnsafeBufferPointer(start: bytes.baseAddress?.advanced(by: r.lowerBound), count: r.count)
    }

    /// The first byte of field n, or nil when it is empty.
    func char(_ n: Int) -> UInt8? {
        guard n <= count else { return nil }
        let r = range(n)
        return r.isEmpty ? nil : bytes[r.lowerBound]
    }

    func number(_ n: Int) -> Double? {
        guard !isEmpty(n) else { return nil }
        return DecimalNumber.parse(field(n))
    }

    /// Field n as a number, read once: nil when it is empty (or the sentence has fewer
    /// fields); a field that is present but not a number makes the whole sentence malformed.
    @inline(__always)
    func optionalNumber(_ n: Int) throws(NMEARefusal) -> Double? {
        guard !isEmpty(n) else { return nil }
        guard let v = DecimalNumber.parse(field(n)) else { throw .number(field: n) }
        return v
    }

    /// Decimal places in field n (`4807.038` has 3): how precise a coordinate is.
    func decimals(_ n: Int) -> Int {
        guard n <= count else { return 0 }
        let r = range(n)
        // From the end: the fraction is short, the whole part of a coordinate is not.
        var k = r.upperBound
        while k > r.lowerBound {
            k -= 1
            if bytes[k] == UInt8(ascii: ".") { return r.upperBound - k - 1 }
        }
        return 0
    }

    /// A latitude or longitude: `ddmm.mmmm` (or `dddmm.mmmm`) in field n, hemisphere letter in
    /// field n + 1 (N/S or E/W). Nil when empty, malformed or out of range. Adds the field's
    /// decimal places to `decimals`.
    func coordinate(_ n: Int, limit: Double, decimals: inout Int) -> Double? {
        let text = field(n)
        guard !text.isEmpty, let hemisphere = char(n + 1) else { return nil }
        // Degrees are the digits before the last two in front of the decimal point.
        var dot = 0
        while dot < text.count, text[dot] != UInt8(ascii: ".") { dot += 1 }
        guard dot >= 3 else { return nil }
        var degrees = 0.0
        for k in 0..<(dot - 2) {
            let d = text[k] &- 48
            guard d < 10 else { return nil }
            degrees = degrees * 10 + Double(d)
        }
        // SAFETY: `text[(dot - 2)...]` is a part of the field, which is a part of the sentence's
        // bytes, valid for this call; `dot >= 2` was checked above.
        guard let minutes = DecimalNumber.parse(UnsafeBufferPointer(rebasing: text[(dot - 2)...])), minutes >= 0,
            minutes < 60
        else { return nil }
        var value = degrees + minutes / 60
        switch hemisphere {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): break
        case UInt8(ascii: "S"), UInt8(ascii: "W"): value = -value
        default: return nil
        }
        guard abs(value) <= limit else { return nil }
        if dot < text.count { decimals += text.count - dot - 1 }
        return value
    }

    /// A UTC time of day `hhmmss[.sss]` in field n, in milliseconds since midnight. Seconds 60
    /// are read only at 23:59 (a leap second), as 23:59:59.999.
    func timeOfDay(_ n: Int) -> Int64? {
        let t = field(n)
        guard t.count >= 6 else { return nil }
        @inline(__always) func pair(_ k: Int) -> Int64? {
            let a = t[k] &- 48
            let b = t[k + 1] &- 48
            guard a < 10, b < 10 else { return nil }
            return Int64(a) * 10 + Int64(b)
        }
        guard let h = pair(0), let m = pair(2), let s = pair(4), h < 24, m < 60,
            s < 60 || (s == 60 && h == 23 && m == 59)
        else { return nil }
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

/// Framing: checksum and fields of one sentence candidate.
enum NMEAFraming {
    enum Outcome {
        case sentence(NMEASentence)
        case badChecksum
        /// Proprietary (`$P...`), AIS (`!`), or too short to be a sentence: skipped quietly.
        case ignored
    }

    /// Frames the sentence that starts at `bytes[0]` (a `$`) and runs to the next `$` or `!` or
    /// the end of `bytes` (a line, without its line end), in one pass: the checksum (XOR of
    /// everything between `$` and `*`, two hex digits after `*`) and the field commas. Returns
    /// where the sentence ended. Trailing blanks and NULs are not part of the last field.
    static func frame(_ bytes: UnsafeBufferPointer<UInt8>, bounds: FieldBounds) -> (Outcome, end: Int) {
        // SAFETY: `bytes` is the caller's line, alive for this call; every index below is < n.
        guard let p = bytes.baseAddress else { return (.ignored, 0) }
        let n = bytes.count
        // table[0] is the address field's comma, table[n] the end of field n (numbered from 1,
        // as in the sentence diagrams).
        let table = bounds.storage
        var fieldCount = -1
        var sum: UInt8 = 0
        var k = 1
        var star = -1
        // Eight bytes at a time up to the first `$`, `!` or `*`: before the star every byte
        // joins the checksum, so whole words are XORed and folded at the end. The commas come
        // from an exact mask and are written out a set bit at a time; only a word with another
        // byte at or below ',' ($ ! * and line noise) is looked at byte by byte.
        var words: UInt64 = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let commaBytes: UInt64 = 0x2C2C_2C2C_2C2C_2C2C
        words: while k + 8 <= n {
            let w = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self).littleEndian
            // A byte's high bit is set where it is at most ',' (0x2C): (b & 0x7F) + 0x53 reaches
            // 0x80 exactly when b & 0x7F > 0x2C, never carries into the next byte, and a byte
            // with its own high bit set is above ','.
            let low = ~(((w & ~highs) &+ 0x53 &* ones) | w) & highs
            if low != 0 {
                // Where x = w ^ ',,,,,,,,' has a zero byte: (x & 0x7F) + 0x7F sets a byte's high
                // bit unless its low seven bits are 0, without a carry, and x's own high bit
                // joins, so the high bit is clear exactly where the byte is ','.
                let x = w ^ commaBytes
                var commas = ~(((x & ~highs) &+ ~highs) | x) & highs
                var others = low & ~commas
                var stop = -1
                while others != 0 {
                    let j = others.trailingZeroBitCount >> 3
                    let c = UInt8(truncatingIfNeeded: w >> UInt64(j << 3))
                    if c == UInt8(ascii: "$") || c == UInt8(ascii: "!") || c == UInt8(ascii: "*") {
                        stop = j
                        break
                    }
                    others &= others &- 1
                }
                // Only the commas before a stop are this word's.
                if stop >= 0 { commas &= (1 << UInt64(stop << 3)) &- 1 }
                // Near a full table (a word holds at most eight commas) only as many count as it
                // has room for, the rest of the sentence then being its last field: the lowest
                // ones, kept bit by bit.
                let room = FieldBounds.capacity - 2 - fieldCount
                if room < 8 {
                    var kept: UInt64 = 0
                    for _ in 0..<max(room, 0) {
                        kept |= commas & (0 &- commas)
                        commas &= commas &- 1
                    }
                    commas = kept
                }
                // A line is at most `NMEAReader.maxLine` (1 MiB) long: its places fit 32 bits.
                while commas != 0 {
                    fieldCount += 1
                    table[fieldCount] = Int32(truncatingIfNeeded: k &+ commas.trailingZeroBitCount >> 3)
                    commas &= commas &- 1
                }
                if stop >= 0 {
                    // The bytes before it join the checksum; the byte-wise loop goes on from it.
                    words ^= w & ((1 << UInt64(stop << 3)) &- 1)
                    k += stop
                    break words
                }
            }
            words ^= w
            k += 8
        }
        words ^= words >> 32
        words ^= words >> 16
        words ^= words >> 8
        sum = UInt8(truncatingIfNeeded: words)
        while k < n {
            let c = p[k]
            // Every byte that matters ($ ! * , and line noise) is at or below ','; letters and
            // digits only join the checksum.
            if c > UInt8(ascii: ",") {
                sum ^= c
                k += 1
                continue
            }
            if c == UInt8(ascii: "$") || c == UInt8(ascii: "!") { break }
            if star < 0 {
                if c == UInt8(ascii: "*") {
                    star = k
                } else {
                    sum ^= c
                    if c == UInt8(ascii: ","), fieldCount < FieldBounds.capacity - 2 {
                        fieldCount += 1
                        table[fieldCount] = Int32(k)
                    }
                }
            }
            k += 1
        }
        let end = k
        guard end >= 7 else { return (.ignored, end) }
        var last = star >= 0 ? star : end
        if star >= 0 {
            // `*hh`: two hex digits; anything after them (a stray NUL) is ignored. The bytes after
            // the star were XORed in above; take them out again.
            for j in (star + 1)..<end where p[j] > UInt8(ascii: ",") { sum ^= p[j] }
            guard star + 3 <= end, let expected = hexByte(p[star + 1], p[star + 2]), expected == sum else {
                return (.badChecksum, end)
            }
        } else {
            while last > 0, p[last - 1] <= 0x20 { last -= 1 }
        }
        if p[1] == UInt8(ascii: "P") { return (.ignored, end) }
        // Address: two talker letters and three type letters (ignore anything else).
        // Unicore writes high-precision variants as four letters ending in H (GGAH, RMCH).
        guard fieldCount >= 0, table[0] == 6 || (table[0] == 7 && p[6] == UInt8(ascii: "H")),
            Int(table[fieldCount]) < last
        else { return (.ignored, end) }
        fieldCount += 1
        table[fieldCount] = Int32(last)
        let type = UInt32(p[3]) << 16 | UInt32(p[4]) << 8 | UInt32(p[5])
        // SAFETY: the sentence points into `bytes` and `bounds`, which the caller keeps alive
        // and unchanged until it has used the sentence (see `NMEASentence`).
        return (.sentence(NMEASentence(bytes: bytes, bounds: UnsafePointer(table), count: fieldCount, type: type)), end)
    }

    static func hexByte(_ a: UInt8, _ b: UInt8) -> UInt8? {
        func v(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - 48
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - 55
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - 87
            default: return nil
            }
        }
        guard let x = v(a), let y = v(b) else { return nil }
        return x << 4 | y
    }
}

/// Scratch space for one sentence's field boundaries, allocated once per reader so that no
/// sentence allocates.
final class FieldBounds {
    static let capacity = 128
    // SAFETY: allocated here for `capacity` fields, initialised, and freed in `deinit`: valid as
    // long as the reader that owns this object; `frame` writes at most `capacity` entries.
    let storage: UnsafeMutablePointer<Int32>

    init() {
        storage = .allocate(capacity: FieldBounds.capacity)
        storage.initialize(repeating: 0, count: FieldBounds.capacity)
    }

    deinit { storage.deallocate() }
}
