#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decimal numbers read from and written to bytes, exactly.
///
/// Reading is correctly rounded: numbers of up to 15 significant digits (up to 2^53) with a
/// small exponent take Clinger's fast path (an exact integer times or divided by an exact
/// power of ten is rounded once, so the result is the nearest double); up to 19 digits, within
/// 10^±19, are worked out exactly in 128-bit integers (`nearestDouble`); anything longer, such
/// as Garmin Connect's 30-digit coordinates, goes to the C library's `strtod`, which is
/// correctly rounded.
/// Writing gives the shortest digits that read back as the same double, and never an exponent,
/// because GPX's `xsd:decimal` has none and a coordinate of 0.000005 should read as one.
public enum DecimalNumber {
    /// Powers of ten exactly representable as doubles (10^22 is the last).
    /// A literal, so the compiler can lay it out statically instead of initializing it lazily
    /// behind a `swift_once` check on every number read or written.
    static let exactPowers: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]`, the grammar shared by JSON and
    /// `xsd:decimal` (plus exponents, which JSON allows). With `trimmingXMLSpace`, leading and
    /// trailing XML whitespace are ignored, as XML text content needs. No `nan`, `inf` or hex.
    // SAFETY: `text` is the caller's, read during this call only; no pointer to it is kept.
    @inline(__always)
    public static func parse(_ text: UnsafeBufferPointer<UInt8>, trimmingXMLSpace: Bool = false) -> Double? {
        // The plain form inline at every caller, the rest out of line.
        if let v = parsePlain(text) { return v }
        return parseGeneral(text, trimmingXMLSpace: trimmingXMLSpace)
    }

    // SAFETY: `text` is the caller's, read during this call only; every index is checked against
    // its count.
    static func parseGeneral(_ text: UnsafeBufferPointer<UInt8>, trimmingXMLSpace: Bool) -> Double? {
        var start = 0
        var end = text.count
        if trimmingXMLSpace {
            while start < end, isXMLSpace(text[start]) { start += 1 }
            while end > start, isXMLSpace(text[end - 1]) { end -= 1 }
        }
        var i = start
        var negative = false
        if i < end, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var significant = 0  // digits kept in mantissa
        var dropped = 0  // integer digits beyond the 19 that fit
        var intDigits = 0
        var fracDigits = 0
        var fracScale = 0  // fraction digits kept in mantissa
        while i < end, text[i] &- 48 < 10 {
            let d = UInt64(text[i] &- 48)
            if significant < 19 {
                if mantissa != 0 || d != 0 {
                    significant += 1
                }
                mantissa = mantissa &* 10 &+ d
            } else {
                dropped += 1
            }
            intDigits += 1
            i += 1
        }
        if i < end, text[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, text[i] &- 48 < 10 {
                let d = UInt64(text[i] &- 48)
                if significant < 19 {
                    if mantissa != 0 || d != 0 { significant += 1 }
                    mantissa = mantissa &* 10 &+ d
                    fracScale += 1
                } else if d != 0 {
                    significant = 20  // inexact: leave it to strtod
                }
                fracDigits += 1
                i += 1
            }
        }
        guard intDigits + fracDigits > 0 else { return nil }
        var exponent = 0
        if i < end, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < end, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
                expNegative = text[i] == UInt8(ascii: "-")
                i += 1
            }
            var n = 0
            while i < end, text[i] &- 48 < 10 {
                if exponent < 100_000 { exponent = exponent * 10 + Int(text[i] &- 48) }
                n += 1
                i += 1
            }
            guard n > 0 else { return nil }
            if expNegative { exponent = -exponent }
        }
        guard i == end else { return nil }

        let scale = exponent + dropped - fracScale
        if significant <= 19, mantissa <= (1 << 53), scale >= -22, scale <= 22 {
            var v = Double(mantissa)
            if scale < 0 { v /= exactPowers[-scale] } else { v *= exactPowers[scale] }
            return negative ? -v : v
        }
        if significant <= 19, dropped == 0, scale >= -19, scale <= 19 {
            // Every digit is in the mantissa, 16 to 19 of them or a larger power of ten: the
            // forms `parsePlain` leaves (an exponent, a '+', leading zeros past 19 digits).
            if mantissa == 0 { return negative ? -0.0 : 0.0 }
            let v = nearestDouble(mantissa, timesTenTo: scale)
            return negative ? -v : v
        }
        return slowParse(text, start: start, end: end)
    }

    /// The double nearest m · 10^scale, for m > 0 and −19 ≤ scale ≤ 19: the product, or the
    /// quotient with its remainder, in 128-bit integer arithmetic, then one rounding of its
    /// top 64 bits to 53 (half to even, the bits below and the remainder deciding a tie). What
    /// `strtod` gives, at a fraction of its cost: it works in arbitrary precision whenever the
    /// digits do not fit a double's 53 bits.
    static func nearestDouble(_ m: UInt64, timesTenTo scale: Int) -> Double {
        let power = integerPowers[scale < 0 ? -scale : scale]
        // value = (q + fraction) · 2^e, with q's top bit set; `inexact`: the fraction is not 0.
        let q: UInt64
        var e: Int
        let inexact: Bool
        if scale >= 0 {
            let (hi, lo) = m.multipliedFullWidth(by: power)
            if hi == 0 {
                let z = lo.leadingZeroBitCount
                (q, e, inexact) = (lo << z, -z, false)
            } else {
                let z = hi.leadingZeroBitCount
                let top = z == 0 ? hi : hi << z | lo >> (64 - z)
                (q, e, inexact) = (top, 64 - z, lo << z != 0)
            }
        } else {
            // Both normalised (top bit set); the numerator mn · 2^64, or mn · 2^63 when mn ≥ dn,
            // so that the quotient has exactly 64 bits.
            let zm = m.leadingZeroBitCount
            let zd = power.leadingZeroBitCount
            let mn = m << zm
            let dn = power << zd
            let (quotient, remainder) =
                mn < dn ? dn.dividingFullWidth((mn, 0)) : dn.dividingFullWidth((mn >> 1, mn << 63))
            (q, e, inexact) = (quotient, zd - zm - (mn < dn ? 64 : 63), remainder != 0)
        }
        var mantissa = q >> 11
        let rest = q & 0x7FF
        if rest > 0x400 || (rest == 0x400 && (inexact || mantissa & 1 == 1)) {
            mantissa += 1
            if mantissa == 1 << 53 {
                mantissa >>= 1
                e += 1
            }
        }
        return Double(sign: .plus, exponent: e + 11, significand: Double(mantissa))
    }

    /// The common case first: `[-]digits[.digits]` with at most 19 digits, read as one integer
    /// and, up to 15 digits, one exact division, beyond that `nearestDouble` (both correctly
    /// rounded). Nil for anything else, which `parse` reads.
    // SAFETY: `t` is the caller's, valid for the call; `p[k]` is read only for `k < n = t.count`.
    @inline(__always)
    static func parsePlain(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = t.count
        guard n > 0, n <= 21, let p = t.baseAddress else { return nil }
        var k = 0
        let negative = p[0] == UInt8(ascii: "-")
        if negative { k = 1 }
        var m: UInt64 = 0
        var digits = digitRun(p, at: &k, end: n, into: &m)
        var decimals = -1
        if k < n, p[k] == UInt8(ascii: ".") {
            k += 1
            decimals = digitRun(p, at: &k, end: n, into: &m)
            digits += decimals
        }
        guard k == n, digits > 0, digits <= 19, decimals != 0 else { return nil }
        return plainValue(m, digits: digits, decimals: max(decimals, 0), negative: negative)
    }

    /// The value of a plain number's digits: `m` (at most 19 digits, `digits` of them) over
    /// 10^`decimals`. Up to 15 digits one exact division, beyond that `nearestDouble`: both
    /// correctly rounded.
    @inline(__always)
    static func plainValue(_ m: UInt64, digits: Int, decimals: Int, negative: Bool) -> Double {
        // Converted as signed (m < 10^15 < 2^63 there): one instruction, where an unsigned
        // conversion is a sequence of five on x86-64; the same value, exactly.
        let v =
            digits <= 15
            ? Double(Int64(bitPattern: m)) / exactPowers[decimals]
            : m == 0 ? 0 : nearestDouble(m, timesTenTo: -decimals)
        return negative ? -v : v
    }

    /// A JSON number at `p[k...]` read in one pass, where it is plain: `-`?, a lone `0` or
    /// digits, and `.digits`, at most 19 digits in all, not followed by an exponent. Its
    /// digits are read eight at a time up to `end` (the line's, not the number's, which a
    /// reader must first find), and `k` is left after it. Nil, with `k` unmoved, for anything
    /// else (no digit, no digit after the point, an exponent, more digits): the caller's
    /// general reading, which gives the same value wherever this one gives one.
    // SAFETY: `p[k..<end]` is the caller's, valid for the call; read only below `end`.
    @inline(__always)
    static func plainJSON(_ p: UnsafePointer<UInt8>, at k: inout Int, end n: Int) -> Double? {
        var i = k
        let negative = i < n && p[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < n, p[i] &- 48 < 10 else { return nil }
        var m: UInt64 = 0
        var digits = 1
        if p[i] == UInt8(ascii: "0") {
            i += 1  // a leading zero stands alone (RFC 8259)
        } else {
            digits = digitRun(p, at: &i, end: n, into: &m)
        }
        var decimals = 0
        if i < n, p[i] == UInt8(ascii: ".") {
            i += 1
            decimals = digitRun(p, at: &i, end: n, into: &m)
            guard decimals > 0 else { return nil }
            digits += decimals
        }
        guard digits <= 19, i == n || p[i] | 0x20 != UInt8(ascii: "e") else { return nil }
        k = i
        return plainValue(m, digits: digits, decimals: decimals, negative: negative)
    }

    /// A JSON number at `p[k...]` of the short plain form, `-`?, one to seven integer digits
    /// (a lone `0` or no leading zero), and optionally `.` and one to seven decimals, not
    /// followed by an exponent: what coordinates and radii are written as. Each part's digits
    /// are found and converted in one eight-byte word (`digitRun`'s conversion), where
    /// `plainJSON` loops over runs of any length: a third of its instructions. Nil, with `k`
    /// unmoved, for anything else (including within sixteen bytes of `end`), which the caller
    /// reads with `plainJSON`: the value is the same wherever both give one (at most 14 digits,
    /// so one exact division, correctly rounded).
    // SAFETY: `p[k..<end]` is the caller's, valid for the call; each word is read only where
    // all its eight bytes are below `end`.
    @inline(__always)
    static func shortPlain(_ p: UnsafePointer<UInt8>, at k: inout Int, end n: Int) -> Double? {
        var i = k
        let negative = i < n && p[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i + 16 <= n else { return nil }
        let whole = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self).littleEndian
        let t = leadingDigits(whole)
        // No digit, eight or more, or a leading zero before another digit.
        guard t > 0, t < 8, t == 1 || p[i] != UInt8(ascii: "0") else { return nil }
        var m = eightDigits(whole, count: t)
        i += t
        var decimals = 0
        if p[i] == UInt8(ascii: ".") {
            i += 1
            let fraction = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self).littleEndian
            decimals = leadingDigits(fraction)
            guard decimals > 0, decimals < 8 else { return nil }
            m = m &* integerPowers[decimals] &+ eightDigits(fraction, count: decimals)
            i += decimals
        }
        // i is still within the sixteen bytes checked above, so p[i] can be read.
        guard p[i] | 0x20 != UInt8(ascii: "e") else { return nil }
        k = i
        // m < 10^15: converted as signed, as `plainValue` does.
        let v = Double(Int64(bitPattern: m)) / exactPowers[decimals]
        return negative ? -v : v
    }

    /// How many of a word's bytes, from its first, are ASCII digits (8 if all are).
    @inline(__always)
    static func leadingDigits(_ w: UInt64) -> Int {
        let v = w &- 0x3030_3030_3030_3030
        // A byte's high bit: set where its digit value is not below 10 (or it borrowed); a
        // borrow only reaches bytes after the first non-digit, which are not counted.
        let bad = (v | (v &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080
        return bad == 0 ? 8 : bad.trailingZeroBitCount >> 3
    }

    /// The value of a word's first `count` (1 to 8) bytes as decimal digits: Lemire's
    /// eight-digit conversion, the bytes after them shifted out and the missing leading digits
    /// read as zeros.
    @inline(__always)
    static func eightDigits(_ w: UInt64, count n: Int) -> UInt64 {
        let v = w &- 0x3030_3030_3030_3030
        return valueOfEight(n == 8 ? v : v << UInt64((8 - n) << 3))
    }

    /// The number whose eight decimal digits are the bytes of `x` (each 0 to 9), the first in
    /// the lowest byte: Lemire's conversion in three multiplications. Every word-at-a-time
    /// digit reader ends here (`eightDigits`, `digitRun`, NMEA's `shortNumber`).
    @inline(__always)
    static func valueOfEight(_ x: UInt64) -> UInt64 {
        let x = (x &* 10) &+ (x >> 8)
        return
            (((x & 0x0000_00FF_0000_00FF) &* 0x000F_4240_0000_0064)
            &+ (((x >> 16) & 0x0000_00FF_0000_00FF) &* 0x0000_2710_0000_0001)) >> 32
    }

    /// Reads the decimal digits at `p[k..<end]` into `m` (m·10 + digit each, wrapping past 19
    /// digits, which the callers refuse) and returns how many, leaving `k` after them: eight at a
    /// time where eight bytes remain before `end`. A word's digits are found from an exact test
    /// of its first non-digit (bytes after it may be misjudged by a borrow or carry, and are not
    /// used), and converted in three multiplications (Lemire's eight-digit SWAR conversion, the
    /// missing leading digits as zeros).
    // SAFETY: `p[k..<end]` is the caller's, valid for the call; words are read only where all
    // eight bytes are below `end`, single bytes below `end`.
    @inline(__always)
    static func digitRun(_ p: UnsafePointer<UInt8>, at k: inout Int, end: Int, into m: inout UInt64) -> Int {
        let zeros: UInt64 = 0x3030_3030_3030_3030
        var run = 0
        while k + 8 <= end {
            let v = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self).littleEndian &- zeros
            // A byte's high bit: set where its digit value is not below 10 (or it borrowed).
            let bad = (v | (v &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080
            let n = bad == 0 ? 8 : bad.trailingZeroBitCount >> 3
            if n == 0 { return run }
            m = m &* integerPowers[n] &+ valueOfEight(n == 8 ? v : v << UInt64((8 - n) << 3))
            k += n
            run += n
            if n < 8 { return run }
        }
        while k < end, p[k] &- 48 < 10 {
            m = m &* 10 &+ UInt64(p[k] &- 48)
            run += 1
            k += 1
        }
        return run
    }

    /// `strtod` on a NUL-terminated copy. The grammar was checked above, so `strtod`'s extra
    /// forms (hex, `inf`, locale decimal points) never reach it; Swift programs run in the C
    /// locale, whose decimal point is `.`.
    // SAFETY: `text` is the caller's, valid for the call, and `start..<end` lies inside it (the
    // grammar check above found it there).
    static func slowParse(_ text: UnsafeBufferPointer<UInt8>, start: Int, end: Int) -> Double? {
        let n = end - start
        // SAFETY: a stack buffer of `n + 1` C characters, alive for the closure only: the `n` bytes
        // and a NUL are written, and strtod reads up to the NUL.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buf -> Double? in
            guard let base = buf.baseAddress else { return nil }
            for k in 0..<n { buf[k] = CChar(bitPattern: text[start + k]) }
            buf[n] = 0
            let v = strtod(base, nil)
            return v.isFinite ? v : nil
        }
    }

    public static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { parse($0, trimmingXMLSpace: true) }
    }
}
