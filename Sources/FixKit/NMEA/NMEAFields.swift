/// One NMEA 0183 sentence, split into its comma-separated fields, checksum already checked.
///
/// `$TTSSS,f1,f2,...*hh`: TT is the talker (GP, GN, GL, GA, GB, BD, GQ, QZ...), SSS the
/// sentence type. Fields are byte ranges into the sentence's bytes; an empty field is absent.
struct NMEASentence {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Ranges of the fields after the address field: fields[0] is f1.
    var fields: [Range<Int>]
    /// The sentence type, such as `RMC`, as three bytes packed into an integer.
    let type: UInt32

    static func code(_ s: StaticString) -> UInt32 {
        let p = s.utf8Start
        return UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
    }

    var count: Int { fields.count }

    func isEmpty(_ i: Int) -> Bool { i >= fields.count || fields[i].isEmpty }

    func field(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        guard i < fields.count else { return UnsafeBufferPointer(start: bytes.baseAddress, count: 0) }
        return UnsafeBufferPointer(rebasing: bytes[fields[i]])
    }

    /// The first byte of a field, or nil when it is empty.
    func char(_ i: Int) -> UInt8? {
        guard i < fields.count, !fields[i].isEmpty else { return nil }
        return bytes[fields[i].lowerBound]
    }

    func number(_ i: Int) -> Double? {
        guard !isEmpty(i) else { return nil }
        return DecimalNumber.parse(field(i))
    }

    /// A latitude or longitude: `ddmm.mmmm` (or `dddmm.mmmm`) in field `i`, hemisphere letter in
    /// field `i + 1` (N/S or E/W). Nil when empty, malformed or out of range.
    func coordinate(_ i: Int, limit: Double) -> Double? {
        let text = field(i)
        guard !text.isEmpty, let hemisphere = char(i + 1) else { return nil }
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
        guard let minutes = DecimalNumber.parse(UnsafeBufferPointer(rebasing: text[(dot - 2)...])), minutes >= 0, minutes < 60
        else { return nil }
        var value = degrees + minutes / 60
        switch hemisphere {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): break
        case UInt8(ascii: "S"), UInt8(ascii: "W"): value = -value
        default: return nil
        }
        guard abs(value) <= limit else { return nil }
        return value
    }

    /// A UTC time of day `hhmmss[.sss]` in milliseconds since midnight.
    func timeOfDay(_ i: Int) -> Int64? {
        let t = field(i)
        guard t.count >= 6 else { return nil }
        @inline(__always) func pair(_ k: Int) -> Int64? {
            let a = t[k] &- 48
            let b = t[k + 1] &- 48
            guard a < 10, b < 10 else { return nil }
            return Int64(a) * 10 + Int64(b)
        }
        guard let h = pair(0), let m = pair(2), let s = pair(4), h < 24, m < 60, s <= 60 else { return nil }
        var ms: Int64 = 0
        if t.count > 6 {
            guard t[6] == UInt8(ascii: "."), let frac = DecimalNumber.parse(UnsafeBufferPointer(rebasing: t[6...])) else {
                return nil
            }
            ms = Int64((frac * 1000).rounded())
        }
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

    /// `bytes` runs from a `$` or `!` to the end of the sentence (line end or the next `$`),
    /// line-end bytes excluded.
    static func frame(_ bytes: UnsafeBufferPointer<UInt8>, fields: inout [Range<Int>]) -> Outcome {
        guard bytes.count >= 7, bytes[0] == UInt8(ascii: "$") else { return .ignored }
        let p = bytes.baseAddress!
        // One pass: the checksum (XOR of everything between `$` and `*`) and the field commas.
        fields.removeAll(keepingCapacity: true)
        var sum: UInt8 = 0
        var k = 1
        var fieldStart = -1  // after the address field's comma
        var addressEnd = -1
        let n = bytes.count
        while k < n {
            let c = p[k]
            if c == UInt8(ascii: "*") { break }
            sum ^= c
            if c == UInt8(ascii: ",") {
                if addressEnd < 0 {
                    addressEnd = k
                } else {
                    fields.append(fieldStart..<k)
                }
                fieldStart = k + 1
            }
            k += 1
        }
        let end = k
        if k < n {
            // `*hh`: two hex digits; anything after them (a stray NUL) is ignored.
            guard k + 3 <= n, let expected = hexByte(p[k + 1], p[k + 2]), expected == sum else { return .badChecksum }
        }
        if p[1] == UInt8(ascii: "P") { return .ignored }
        // Address: two talker letters and three type letters (ignore anything else).
        guard addressEnd == 6 else { return .ignored }
        fields.append(fieldStart..<end)
        let type = UInt32(p[3]) << 16 | UInt32(p[4]) << 8 | UInt32(p[5])
        return .sentence(NMEASentence(bytes: bytes, fields: fields, type: type))
    }

    static func lastStar(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var k = bytes.count - 1
        while k > 0, bytes.count - k <= 4 {
            if bytes[k] == UInt8(ascii: "*") { return k }
            k -= 1
        }
        return nil
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
