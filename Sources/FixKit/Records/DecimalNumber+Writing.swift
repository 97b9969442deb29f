#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing numbers: the shortest text that reads back as the same double (see
/// `DecimalNumber`, whose reading half is `DecimalNumber.swift`).
extension DecimalNumber {
    /// The most bytes `write(_:to:)` writes for `value`: 26 in the range the fast paths cover
    /// (a sign, "0.", six zeros and 17 digits for 1.2345678901234567e-7), and room for the
    /// 309 digits of the largest double or the 343 places of the smallest subnormal otherwise.
    @inline(__always)
    public static func maxWidth(_ value: Double) -> Int {
        let magnitude = abs(value)
        return magnitude < 1e16 && magnitude >= 1e-7 || value == 0 ? 26 : 352
    }

    /// Appends the shortest decimal text that reads back as `value`, without an exponent.
    /// Whole numbers are written without a fraction (`5`), `-0.0` as `-0`. Not for NaN or
    /// infinities, which no record field can hold.
    public static func write(_ value: Double, into out: inout [UInt8]) {
        // SAFETY: a stack buffer of 352 bytes, the widest number written (see `write(_:to:)`),
        // alive for the closure only; the bytes written are copied into `out` before it ends.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 352) { b in
            guard let p = b.baseAddress else { return }
            let n = write(value, to: p)
            out.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
        }
    }

    /// Writes what `write(_:into:)` appends at `p`, which has room for `maxWidth(value)` bytes,
    /// and returns how many bytes it wrote.
    // SAFETY: `p` has room for 352 bytes (the caller's buffer, for the call): no double is written
    // longer.
    @inline(__always)
    public static func write(_ value: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if value == 0 {
            if value.sign == .minus {
                p[0] = UInt8(ascii: "-")
                p[1] = UInt8(ascii: "0")
                return 2
            }
            p[0] = UInt8(ascii: "0")
            return 1
        }
        let negative = value < 0
        if negative { p[0] = UInt8(ascii: "-") }
        let sign = negative ? 1 : 0
        let magnitude = abs(value)
        guard magnitude < 1e16, magnitude >= 1e-7 else { return sign + slowWrite(magnitude, to: p + sign) }
        return sign + writePositive(magnitude, to: p + sign)
    }

    /// The shortest digits of `magnitude`, in [1e-7, 1e16), out of line (the callers inline
    /// only the sign and range checks).
    // SAFETY: `p` has room for 352 bytes (the caller's buffer, for the call).
    static func writePositive(_ magnitude: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
        // Scale to 15 significant digits at once: if any decimal of 15 digits or fewer reads as
        // this double, this one does (the same value, with trailing zeros: the product is
        // within 0.12 of that integer), and dropping the trailing zeros gives the shortest. Any
        // two decimals of 15 or fewer significant digits read as different doubles (DBL_DIG),
        // and the division is exact-then-rounded, so the check is exact.
        if magnitude < 1e15, let m = exactlyScaled(magnitude, 14 - decimalExponent(magnitude)) {
            let (digits, decimals) = withoutTrailingZeros(m.digits, decimals: m.decimals)
            return writeScaled(digits, decimals: decimals, to: p)
        }
        let (digits, exponent) = shortest(magnitude)
        if exponent >= 0 {
            // A whole number below 1e16: digits · 10^exponent fits.
            return writeScaled(digits &* integerPower(exponent), decimals: 0, to: p)
        }
        let (m, decimals) = withoutTrailingZeros(digits, decimals: -exponent)
        return writeScaled(m, decimals: decimals, to: p)
    }

    /// The shortest decimal d · 10^e that reads back as `x` (a normal double in [1e-11, 1e16)),
    /// the nearest to `x` of those: Raffaello Giulietti's Schubfach ("The Schubfach way to
    /// render doubles", 2020), after Alexander Bolz's C++ (Drachennest, Boost licence), for
    /// this range only. With c the significand and q the binary exponent, it takes
    /// k = ⌊log10 2^q⌋ (of ¾·2^q at a power of two, whose lower neighbour is closer), scales
    /// the rounding interval's ends and middle, 4c ∓ 2 and 4c, by 10^−k rounded to odd, and
    /// picks among the one or two decimals a digit shorter, or the two nearest, the one
    /// inside. Here −k is 0 to 27 (x ≥ 1e-11 > 2^−37 makes q ≥ −89): 10^−k = 5^−k · 2^−k with
    /// 5^−k below 2^64, so the 128-bit factor is 5^−k shifted to its top bit with a low half
    /// of 0, and each scaling one 64 × 64-bit multiplication. Checked against Swift's own
    /// shortest form: `writesDescriptionDigitsForEveryPath` from 1e-7 up, `ProbabilityFormTests`
    /// from 1e-12 to 1e-7.
    @inline(__always)
    static func shortest(_ x: Double) -> (digits: UInt64, exponent: Int) {
        let bits = x.bitPattern
        let fraction = bits & ((1 << 52) - 1)
        let c = fraction | (1 << 52)
        let q = Int((bits >> 52) & 0x7FF) - 1075
        // A whole number: c · 2^q with the low −q bits clear.
        if q <= 0, q > -53, c & ((1 << UInt64(-q)) &- 1) == 0 { return (c >> UInt64(-q), 0) }
        let even = c & 1 == 0
        let lowerCloser = fraction == 0
        let cbl = 4 * c - 2 + (lowerCloser ? 1 : 0)
        let cb = 4 * c
        let cbr = 4 * c + 2
        // ⌊log10 2^q⌋, or ⌊log10 ¾·2^q⌋ (an arithmetic shift: the floor for negative q too).
        let k = (q * 1_262_611 - (lowerCloser ? 524_031 : 0)) >> 22
        // h in 1...4: the scaled values keep two bits below the unit.
        let h = UInt64(q + ((-k * 1_741_647) >> 19) + 1)
        // SAFETY: −k is 0...27 for x in [1e-11, 1e16) (see above), the table's 28 entries.
        assert(k <= 0 && -k < schubfachPowers.count, "shortest: x out of its range")
        let g = schubfachPowers.withUnsafeBufferPointer { $0[-k] }
        @inline(__always) func roundToOdd(_ cp: UInt64) -> UInt64 {
            let (high, low) = g.multipliedFullWidth(by: cp)
            return high | (low > 1 ? 1 : 0)
        }
        let vbl = roundToOdd(cbl << h)
        let vb = roundToOdd(cb << h)
        let vbr = roundToOdd(cbr << h)
        let lower = vbl + (even ? 0 : 1)
        let upper = vbr - (even ? 0 : 1)
        let s = vb / 4
        if s >= 10 {
            // A digit shorter: s' = ⌊s / 10⌋ or s' + 1, if exactly one of them is inside.
            let sp = s / 10
            let upInside = lower <= 40 * sp
            let wpInside = 40 * sp + 40 <= upper
            if upInside != wpInside { return (sp + (wpInside ? 1 : 0), k + 1) }
        }
        let uInside = lower <= 4 * s
        let wInside = 4 * s + 4 <= upper
        if uInside != wInside { return (s + (wInside ? 1 : 0), k) }
        // Both inside: the nearer, an exact tie to the even one.
        let mid = 4 * s + 2
        let up = vb > mid || (vb == mid && s & 1 != 0)
        return (s + (up ? 1 : 0), k)
    }

    /// 10^e for e in 0...27 as Schubfach's factor, ⌈10^e · 2^−r⌉ with 2^127 ≤ it < 2^128: its
    /// low 64 bits are 0 while 5^e fits in 64 bits, as up to 5^27 it does, so this is its high
    /// half, 5^e shifted to bit 63 (`DecimalNumberTests` recomputes them). 0...24 serve
    /// `write`'s range, [1e-7, 1e16); up to 27, `writeCompact`'s exponent form down to 1e-11.
    static let schubfachPowers: [UInt64] = [
        0x8000_0000_0000_0000, 0xA000_0000_0000_0000, 0xC800_0000_0000_0000, 0xFA00_0000_0000_0000,
        0x9C40_0000_0000_0000, 0xC350_0000_0000_0000, 0xF424_0000_0000_0000, 0x9896_8000_0000_0000,
        0xBEBC_2000_0000_0000, 0xEE6B_2800_0000_0000, 0x9502_F900_0000_0000, 0xBA43_B740_0000_0000,
        0xE8D4_A510_0000_0000, 0x9184_E72A_0000_0000, 0xB5E6_20F4_8000_0000, 0xE35F_A931_A000_0000,
        0x8E1B_C9BF_0400_0000, 0xB1A2_BC2E_C500_0000, 0xDE0B_6B3A_7640_0000, 0x8AC7_2304_89E8_0000,
        0xAD78_EBC5_AC62_0000, 0xD8D7_26B7_177A_8000, 0x8786_7832_6EAC_9000, 0xA968_163F_0A57_B400,
        0xD3C2_1BCE_CCED_A100, 0x8459_5161_4014_84A0, 0xA56F_A5B9_9019_A5C8, 0xCECB_8F27_F420_0F3A,
    ]

    /// m and p when `magnitude` is exactly the decimal m / 10^p with m below 10^15 (p in
    /// 0...22): the division of two exact doubles is rounded once, so the check is exact.
    @inline(__always)
    static func exactlyScaled(_ magnitude: Double, _ p: Int) -> (digits: UInt64, decimals: Int)? {
        let scaled = magnitude * exactPowers[p]
        guard scaled < 1e15 else { return nil }
        // Rounded to the nearest integer by adding 2^52, where a double's unit is 1: its low 52
        // bits are then that integer, with no conversion to an integer and back (two waits of
        // a few cycles each before the division). A decimal that reads as `magnitude` is within
        // 0.18 of `scaled` (half an ulp of it scaled, below 10^15 · 2^-53, and the product's own
        // rounding, 2^-4), so this is the integer that rounding half up found before, whenever
        // there is one to find.
        let big = scaled + 0x1p52
        guard (big - 0x1p52) / exactPowers[p] == magnitude else { return nil }
        return (big.bitPattern & ((1 << 52) - 1), p)
    }

    /// floor(log10(x)) for x in [1e-7, 1e16], from the exact powers of ten: a loop of
    /// comparisons whose exit the branch predictor learns (a field's values keep their
    /// magnitude from one fix to the next). Worked out from the binary exponent and a table
    /// instead, without a branch, it put a multiplication and a load before the scaling that
    /// waits on it: the writer alone, on the numbers of bench's NMEA log, took 9% longer.
    @inline(__always)
    static func decimalExponent(_ x: Double) -> Int {
        var e10 = 0
        if x >= 1 {
            while e10 < 16, x >= exactPowers[e10 + 1] { e10 += 1 }
        } else {
            while e10 > -8, x * exactPowers[-e10 + 1] < 1 { e10 -= 1 }
            e10 -= 1
        }
        return e10
    }

    /// `digits / 10^decimals` with its trailing zeros dropped: one, then by halving steps (16,
    /// 8, 4, 2, 1).
    @inline(__always)
    static func withoutTrailingZeros(_ digits: UInt64, decimals: Int) -> (UInt64, Int) {
        // Each step is a test of divisibility by 10^k without a division (Granlund and
        // Montgomery's, as in Dragonbox): n · 5^-k mod 2^64 is n / 5^k when 5^k divides n, and
        // above (2^64 - 1) / 5^k when not; rotated right by k, it is n / 10^k when 2^k divides
        // that too, and above (2^64 - 1) / 10^k otherwise (a low bit set comes out on top).
        // One multiplication and a rotation: the quotient is the test's own result.
        var digits = digits
        var decimals = decimals
        @inline(__always) func drop(_ step: Int, inverse: UInt64, limit: UInt64) -> Bool {
            guard decimals >= step else { return false }
            let r = digits &* inverse
            let q = r &>> UInt64(step) | r &<< UInt64(64 - step)
            guard q <= limit else { return false }
            digits = q
            decimals -= step
            return true
        }
        // Nine times in ten the last digit is not 0 (the 17-digit forms of converted
        // positions always): then nothing else is tried.
        guard drop(1, inverse: 0xCCCC_CCCC_CCCC_CCCD, limit: 1_844_674_407_370_955_161) else {
            return (digits, decimals)
        }
        // One zero is gone; up to 31 more go in these steps (a UInt64 has at most 19).
        _ = drop(16, inverse: 0xE4A4_D141_7CD9_A041, limit: 1844)
        _ = drop(8, inverse: 0xC767_074B_22E9_0E21, limit: 184_467_440_737)
        _ = drop(4, inverse: 0xD288_CE70_3AFB_7E91, limit: 1_844_674_407_370_955)
        _ = drop(2, inverse: 0x8F5C_28F5_C28F_5C29, limit: 184_467_440_737_095_516)
        _ = drop(1, inverse: 0xCCCC_CCCC_CCCC_CCCD, limit: 1_844_674_407_370_955_161)
        return (digits, decimals)
    }

    /// 10^0 to 10^19 as integers, all a `UInt64` holds (reading takes 10^19 too).
    static let integerPowers: [UInt64] = [
        1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000,
        10_000_000_000_000_000_000,
    ]

    @inline(__always)
    static func integerPower(_ p: Int) -> UInt64 { integerPowers[p] }

    /// "00" to "99": two digits at a time halve the divisions.
    // SAFETY: a StaticString's bytes are in the binary, valid for the run: 200 bytes, indexed by `2
    // * (0...99)`.
    @inline(__always)
    static var digitPairs: UnsafePointer<UInt8> {
        let table: StaticString =
            "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        return table.utf8Start
    }

    /// The number of decimal digits of `m`, which is not 0.
    @inline(__always)
    static func digitCount(_ m: UInt64) -> Int {
        let bits = 64 - (m | 1).leadingZeroBitCount
        let estimate = (bits * 1233) >> 12  // floor(bits·log10(2)): the count or one less
        let power = estimate < 19 ? integerPower(estimate) : 10_000_000_000_000_000_000
        return estimate + (m >= power ? 1 : 0)
    }

    /// Writes the last `count` decimal digits of `m` (with leading zeros if it has fewer)
    /// ending just before `end`, and returns `m / 10^count`.
    // SAFETY: `end - count ..< end` must lie inside the caller's buffer; only those bytes are
    // written.
    @inline(__always) @discardableResult
    static func writeDigits(_ m: UInt64, count: Int, endingAt end: UnsafeMutablePointer<UInt8>) -> UInt64 {
        var v = m
        var at = end
        var left = count
        let pairs = UnsafeRawPointer(digitPairs)
        // Each pair of digits is copied as one 16-bit word from the table.
        @inline(__always) func pair(_ r: Int, at q: UnsafeMutablePointer<UInt8>) {
            UnsafeMutableRawPointer(q).storeBytes(
                of: pairs.loadUnaligned(fromByteOffset: 2 * r, as: UInt16.self), as: UInt16.self)
        }
        while left >= 4 {
            // Four digits from one division by a constant, then two pairs of them.
            let r = Int(v % 10_000)
            v /= 10_000
            at -= 4
            pair(r / 100, at: at)
            pair(r % 100, at: at + 2)
            left -= 4
        }
        if left >= 2 {
            let r = Int(v % 100)
            v /= 100
            at -= 2
            pair(r, at: at)
            left -= 2
        }
        if left == 1 {
            at -= 1
            at[0] = UInt8(48 + v % 10)
            v /= 10
        }
        return v
    }

    /// Writes `m / 10^decimals` in plain notation at `p` and returns its length; `m` has no
    /// trailing zero when `decimals > 0`.
    // SAFETY: `p` has room for the digits and a point (the caller's 352-byte buffer), valid for the
    // call.
    @inline(__always)
    static func writeScaled(_ m: UInt64, decimals: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        let count = digitCount(m)
        if decimals == 0 {
            writeDigits(m, count: count, endingAt: p + count)
            return count
        }
        if count > decimals {
            // The fraction digits, then what is left of m before the point.
            let whole = count - decimals
            let integer = writeDigits(m, count: decimals, endingAt: p + count + 1)
            p[whole] = UInt8(ascii: ".")
            writeDigits(integer, count: whole, endingAt: p + whole)
            return count + 1
        }
        // 0.000ddd
        let length = decimals + 2
        p[0] = UInt8(ascii: "0")
        p[1] = UInt8(ascii: ".")
        writeDigits(m, count: decimals, endingAt: p + length)
        return length
    }

    /// As `slowWrite(_:into:)`, at `p` (room for 352 bytes); returns the length.
    // SAFETY: `p` has room for 352 bytes, the longest text `slowWrite` makes; `bytes`' storage is
    // lent for the copy only.
    static func slowWrite(_ value: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var bytes: [UInt8] = []
        slowWrite(value, into: &bytes)
        bytes.withUnsafeBufferPointer { b in
            for i in 0..<b.count { p[i] = b[i] }
        }
        return bytes.count
    }

    /// Swift's `description` is the shortest round-trip form, but uses an exponent outside
    /// [1e-4, 2^53): spell that out in plain digits. Works on the UTF-8 bytes, not on String
    /// indices, which cost more than the conversion itself.
    static func slowWrite(_ value: Double, into out: inout [UInt8]) {
        var text = value.description
        text.withUTF8 { b in
            var e = 0
            while e < b.count, b[e] != UInt8(ascii: "e"), b[e] != UInt8(ascii: "E") { e += 1 }
            if e == b.count {
                // "5.0" is written "5", as the fast path writes whole numbers.
                let n =
                    b.count >= 2 && b[b.count - 2] == UInt8(ascii: ".") && b[b.count - 1] == UInt8(ascii: "0")
                    ? b.count - 2 : b.count
                // SAFETY: `b[..<n]` is a part of the String's UTF-8, lent by `withUTF8` for the
                // closure only; it is copied.
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[..<n]))
                return
            }
            var exponent = 0
            var k = e + 1
            var expNegative = false
            if k < b.count, b[k] == UInt8(ascii: "-") || b[k] == UInt8(ascii: "+") {
                expNegative = b[k] == UInt8(ascii: "-")
                k += 1
            }
            while k < b.count {
                exponent = exponent * 10 + Int(b[k] &- 48)
                k += 1
            }
            if expNegative { exponent = -exponent }
            var i = 0
            if b[0] == UInt8(ascii: "-") {
                out.append(UInt8(ascii: "-"))
                i = 1
            }
            // Mantissa digits without the point; trailing ".0" dropped.
            var digits: [UInt8] = []
            digits.reserveCapacity(20)
            var intCount = 0
            var seenPoint = false
            while i < e {
                if b[i] == UInt8(ascii: ".") {
                    seenPoint = true
                } else {
                    digits.append(b[i])
                    if !seenPoint { intCount += 1 }
                }
                i += 1
            }
            while digits.count > intCount, digits.last == UInt8(ascii: "0") { digits.removeLast() }
            let point = intCount + exponent  // position of the decimal point within digits
            if point <= 0 {
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "."))
                for _ in 0..<(-point) { out.append(UInt8(ascii: "0")) }
                out.append(contentsOf: digits)
            } else if point >= digits.count {
                out.append(contentsOf: digits)
                for _ in 0..<(point - digits.count) { out.append(UInt8(ascii: "0")) }
            } else {
                out.append(contentsOf: digits[..<point])
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: digits[point...])
            }
        }
    }

    /// As `write`, but a magnitude below 1e-7 (a probability far in a tail) is written in
    /// Swift's shortest exponent form, `1e-270`, rather than as 270 digits. JSON only: GPX's
    /// `xsd:decimal` has no exponent.
    public static func writeCompact(_ value: Double, into out: inout [UInt8]) {
        guard value != 0, abs(value) < 1e-7 else { return write(value, into: &out) }
        // SAFETY: a stack buffer of `exponentFormWidth` bytes (`maxCompactWidth` here), alive for
        // the closure only; the bytes written are copied into `out` before it ends.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: exponentFormWidth) { b in
            guard let p = b.baseAddress else { return }
            let n = writeCompact(value, to: p)
            out.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
        }
    }

    /// Swift's `description` of a magnitude in [1e-11, 1e-7): the shortest digits (Schubfach,
    /// `shortest`), the first, a point and the others if there are others, and `e-` with the
    /// exponent in two digits (`4.3097403135165446e-08`, `1e-10`), from the writer's own
    /// pieces. --trace prints p for every fence down to 1e-12, most of them in this range, and
    /// `description` (a String a number) cost it 3.8% of its per-fix instructions. Below 1e-11
    /// (which `shortest`'s table does not reach) `description` writes it.
    // SAFETY: `p` has room for 22 bytes (the caller's buffer, for the call): 17 digits, a
    // point, `e-` and two digits.
    @inline(__always)
    static func writeExponentForm(_ magnitude: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
        let (digits, exponent) = shortest(magnitude)
        let count = digitCount(digits)
        // d.ddd: the digits as a number with all but the first after the point, without the
        // trailing zeros Schubfach's digits may end in.
        let (m, decimals) = withoutTrailingZeros(digits, decimals: count - 1)
        let n = writeScaled(m, decimals: decimals, to: p)
        // The decimal exponent of the first digit: -8 to -11 here.
        let e = -(exponent + count - 1)
        p[n] = UInt8(ascii: "e")
        p[n + 1] = UInt8(ascii: "-")
        p[n + 2] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: e / 10)
        p[n + 3] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: e % 10)
        return n + 4
    }

    /// The room `writeCompact` keeps for a magnitude below 1e-7: Swift's exponent form of a
    /// double is at most 24 bytes (`-2.2250738585072014e-308`).
    static let exponentFormWidth = 32

    /// The most bytes `writeCompact(_:to:)` writes for `value`.
    static func maxCompactWidth(_ value: Double) -> Int {
        value != 0 && abs(value) < 1e-7 ? exponentFormWidth : maxWidth(value)
    }

    /// Writes what `writeCompact(_:into:)` appends at `p`, which has room for
    /// `maxCompactWidth(value)` bytes, and returns how many bytes it wrote.
    // SAFETY: `p` has room for `maxCompactWidth(value)` bytes (the caller's buffer, for the call).
    static func writeCompact(_ value: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard value != 0, abs(value) < 1e-7 else { return write(value, to: p) }
        let magnitude = abs(value)
        if magnitude >= 1e-11 {
            let sign = value < 0 ? 1 : 0
            if sign == 1 { p[0] = UInt8(ascii: "-") }
            return sign + writeExponentForm(magnitude, to: p + sign)
        }
        var text = value.description
        return text.withUTF8 { u in
            guard let base = u.baseAddress else { return 0 }
            precondition(u.count <= exponentFormWidth, "a double's description wider than maxCompactWidth")
            p.update(from: base, count: u.count)
            return u.count
        }
    }

    /// The text `write(_:into:)` writes.
    public static func text(_ value: Double) -> String {
        var out: [UInt8] = []
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
