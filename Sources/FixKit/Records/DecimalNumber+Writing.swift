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
        let e10 = decimalExponent(magnitude)
        // Scale to 15 significant digits at once: if any decimal of 15 digits or fewer reads as
        // this double, this one does (the same value, with trailing zeros: the product is
        // within 0.12 of that integer), and dropping the trailing zeros gives the shortest. Any
        // two decimals of 15 or fewer significant digits read as different doubles (DBL_DIG),
        // and the division is exact-then-rounded, so the check is exact.
        if magnitude < 1e15 {
            let scale = 14 - e10
            if scale >= 0, scale <= 22, let m = exactlyScaled(magnitude, scale) {
                let (digits, decimals) = withoutTrailingZeros(m, decimals: scale)
                return writeScaled(digits, decimals: decimals, to: p)
            }
        }
        if let (m, decimals) = seventeenDigits(magnitude, e10: e10) {
            return writeScaled(m, decimals: decimals, to: p)
        }
        return slowWrite(magnitude, to: p)
    }

    /// m when `magnitude` is exactly the decimal m / 10^p with m below 10^15: the division of
    /// two exact doubles is rounded once, so the check is exact.
    @inline(__always)
    static func exactlyScaled(_ magnitude: Double, _ p: Int) -> UInt64? {
        // Round half up by truncation: the product is positive and below 2^63 here, and this
        // avoids a libm call on the hottest path of every writer.
        let scaled = magnitude * exactPowers[p] + 0.5
        guard scaled < 1e15 else { return nil }
        let m = Double(Int64(scaled))
        return m / exactPowers[p] == magnitude ? UInt64(m) : nil
    }

    /// floor(log10(x)) for x in [1e-7, 1e16], from the exact powers of ten.
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

    /// `digits / 10^decimals` with its trailing zeros dropped, by halving steps (8, 4, 2, 1).
    @inline(__always)
    static func withoutTrailingZeros(_ digits: UInt64, decimals: Int) -> (UInt64, Int) {
        // Spelled out, so that every division is by a constant (a multiplication), and the
        // remainder is checked from the quotient.
        // Nine times in ten the last digit is not 0 (the 17-digit forms of converted
        // positions always): then nothing drops.
        if decimals == 0 || digits % 10 != 0 { return (digits, decimals) }
        var digits = digits
        var decimals = decimals
        @inline(__always) func drop(_ step: Int, _ q: UInt64) {
            guard decimals >= step else { return }
            let quotient = digits / q
            if quotient &* q == digits {
                digits = quotient
                decimals -= step
            }
        }
        drop(16, 10_000_000_000_000_000)
        drop(8, 100_000_000)
        drop(4, 10_000)
        drop(2, 100)
        drop(1, 10)
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

    /// The shortest 16- or 17-digit decimal that reads back as `x`, in exact integer
    /// arithmetic: positions converted from NMEA minutes (47.600001666666664) or FIT
    /// semicircles, and knots, need them, and Swift's `description` costs several times more.
    /// With x = f·2^-k, the candidate with p decimals is m = round(f·10^p / 2^k); it reads back
    /// as x when it lies within half a unit in the last place: |m·2^k − f·10^p|·2 < 10^p (a
    /// quarter below a power of two, where the gap below is half as wide). Nil outside the
    /// range where f·10^p fits in 128 bits; the caller then uses `description`.
    @inline(__always)
    static func seventeenDigits(_ x: Double, e10: Int) -> (UInt64, Int)? {
        guard x >= 1e-7, x < 1e16, x.isNormal else { return nil }
        let bits = x.bitPattern
        let fraction = bits & ((1 << 52) - 1)
        let f = fraction | (1 << 52)
        let k = 52 - (Int((bits >> 52) & 0x7FF) - 1023)
        guard k > 0, k < 120 else { return nil }
        let powerOfTwo = fraction == 0
        for n in 16...17 {
            let p = n - 1 - e10
            guard p >= 0, p <= 22 else { return nil }
            let scale: UInt128
            let big: UInt128
            if p <= 18 {
                // One 64 × 64 → 128-bit multiplication.
                let scale64 = integerPower(p)
                scale = UInt128(scale64)
                let (high, low) = f.multipliedFullWidth(by: scale64)
                big = UInt128(high) << 64 | UInt128(low)
            } else {
                // Below 0.01: 10^p needs 64 bits or more (f·10^22 < 2^127).
                scale = UInt128(integerPower(18)) * UInt128(integerPower(p - 18))
                big = UInt128(f) * scale
            }
            // Round half to even, as Swift's own shortest form does on an exact tie.
            let half = UInt128(1) << (k - 1)
            var m = (big + half) >> k
            if big & ((half << 1) - 1) == half, m & 1 == 1 { m -= 1 }
            let back = m << k
            let error = back > big ? back - big : big - back
            let below = back < big
            let ok = below && powerOfTwo ? error * 4 < scale : error * 2 < scale
            guard ok else { continue }
            return withoutTrailingZeros(UInt64(truncatingIfNeeded: m), decimals: p)
        }
        return nil
    }

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
        out.append(contentsOf: value.description.utf8)
    }

    /// The text `write(_:into:)` writes.
    public static func text(_ value: Double) -> String {
        var out: [UInt8] = []
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
