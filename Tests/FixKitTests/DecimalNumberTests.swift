import Foundation
import Testing

@testable import FixKit

struct DecimalNumberTests {
    @Test(arguments: [
        (47.6062, "47.6062"), (5.0, "5"), (-0.0, "-0"), (0.0, "0"), (0.000005, "0.000005"),
        (1e21, "1000000000000000000000"), (1.5e-10, "0.00000000015"), (-122.33207, "-122.33207"),
        (0.1 + 0.2, "0.30000000000000004"), (123456789012345.6, "123456789012345.6"),
        (Double.leastNonzeroMagnitude, "0." + String(repeating: "0", count: 323) + "5"),
    ])
    func writesShortestPlainDecimal(_ value: Double, _ text: String) {
        #expect(DecimalNumber.text(value) == text)
    }

    @Test(arguments: [
        ("47.6062", 47.6062), ("-0", -0.0), ("+3", 3.0), (" 3 ", 3.0), ("1e2", 100.0), ("1.5E-3", 0.0015), (".5", 0.5),
        ("37.778259999999996253642140864394605159759521484375", 37.778259999999996),
        ("0.1000000000000000055511151231257827021181583404541015625", 0.1),
        ("9007199254740993", 9007199254740992.0), ("12345678901234567890123", 1.2345678901234568e22),
    ])
    func parses(_ text: String, _ value: Double) throws {
        let v = try #require(DecimalNumber.parse(text))
        #expect(v == value && v.sign == value.sign)
    }

    @Test(arguments: ["", "-", ".", "e5", "1e", "nan", "inf", "0x10", "1,5", "1.2.3", "--1", "1e999"])
    func rejects(_ text: String) {
        #expect(DecimalNumber.parse(text) == nil)
    }

    /// Over random doubles of every magnitude: what is written reads back as the same double
    /// (checked with Swift's own parser, an independent implementation), and has the same
    /// significant digits as Swift's shortest round-trip `description`.
    @Test func roundTripsAndIsShortest() throws {
        var rng = SystemRandomNumberGenerator()
        for k in 0..<200_000 {
            let v: Double
            switch k % 5 {
            case 0: v = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random() ? 1 : -1)
            case 4: v = Double(Int.random(in: 0...179)) + Double(Int.random(in: 0...599_999)) / 10_000 / 60  // NMEA minutes
            case 1: v = (Double.random(in: -180...180) * 1e7).rounded() / 1e7
            case 2: v = Double.random(in: -1000...1000)
            default: v = (Double.random(in: 0...100) * 100).rounded() / 100
            }
            let text = DecimalNumber.text(v)
            #expect(!text.contains("e"))
            #expect(Double(text) == v, "\(v) written as \(text)")
            #expect(DecimalNumber.parse(text) == v)
            #expect(digitString(text) == digitString(v.description), "\(v): \(text) vs \(v.description)")
        }
    }

    /// The values the fix writers produce most, and the edges of each of the writer's paths
    /// (15 digits scaled at once, 16 and 17 digits in 64- or 128-bit arithmetic, the fallback
    /// to `description`): the exact text is Swift's shortest round-trip `description` spelled
    /// out without an exponent (by `plain`, written here from the description alone), and the
    /// C library's `strtod` reads it back as the same double.
    @Test func writesDescriptionDigitsForEveryPath() {
        var g = FixGenerator(seed: 2026)
        var values: [Double] = []
        for k in 0..<200_000 {
            let bits = g.nextUInt()
            switch k % 10 {
            case 0: values.append(Double(Int32(truncatingIfNeeded: bits)) * (180.0 / 2_147_483_648.0))  // FIT semicircles
            case 1: values.append((Double(bits % 65_536) - 2500) / 5)  // FIT altitude
            case 2: values.append(Double(bits % 100_000) / 1000)  // FIT speed, time fractions
            case 3: values.append(Double(bits % 60_000) / 10_000 / 60 + Double(bits >> 40 % 180))  // NMEA minutes
            case 4:
                // Around powers of ten and two, where the decimal exponent and the rounding
                // interval change.
                let p = pow(10, Double(Int(bits % 40) - 20))
                let q = Double(sign: .plus, exponent: Int(bits >> 8 % 120) - 60, significand: 1)
                values += [p, p.nextUp, p.nextDown, q, q.nextUp, q.nextDown]
            case 5: values.append(Double(bitPattern: bits & 0x7FEF_FFFF_FFFF_FFFF))  // any magnitude
            case 6: values.append(g.unit() * pow(10, Double(Int(bits % 26) - 10)))  // 1e-10 to 1e16
            case 7: values.append(Double(bits % 10_000_000_000_000_000))  // whole numbers to 1e16
            case 8: values.append((g.unit() * 360).rounded() / 1e7)  // tiny: the 128-bit path
            default: values.append(g.unit() * 1e4)
            }
        }
        var failures = 0
        for v in values + values.map({ -$0 }) where v.isFinite {
            let text = DecimalNumber.text(v)
            let expected = plain(v.description)
            if text != expected {
                failures += 1
                if failures <= 10 { Issue.record("\(v.bitPattern): \(text), expected \(expected)") }
            }
            let back = text.withCString { strtod($0, nil) }
            if back != v || back.sign != v.sign {
                failures += 1
                if failures <= 10 { Issue.record("\(v.bitPattern): \(text) reads back as \(back)") }
            }
            var buffer = [UInt8](repeating: 0, count: 400)
            let n = buffer.withUnsafeMutableBufferPointer { DecimalNumber.write(v, to: $0.baseAddress!) }
            if n > DecimalNumber.maxWidth(v) || String(decoding: buffer[..<n], as: UTF8.self) != text {
                failures += 1
                if failures <= 10 { Issue.record("\(v.bitPattern): write(to:) wrote \(n) bytes") }
            }
        }
        #expect(failures == 0)
    }

    /// Decimals of up to 15 significant digits, read by strtod (correctly rounded), at every
    /// scale the 15-digit path takes and half of them just below 10^15, where the scaled
    /// product's rounding is largest: each is written as its own digits, and as `description`
    /// spells it.
    @Test func fifteenDigitDecimalsKeepTheirDigits() {
        var g = FixGenerator(seed: 15)
        var failures = 0
        for k in 0..<100_000 {
            let bits = g.nextUInt()
            let digits: UInt64 =
                k % 2 == 0
                ? 999_999_999_999_999 - bits % 1_000_000_000  // the top of the range
                : 100_000_000_000_000 + bits % 900_000_000_000_000
            let e10 = Int(bits >> 40 % 23) - 7  // 1e-7 to 1e15
            let text = "\(digits)e\(e10 - 14)"
            let v = text.withCString { strtod($0, nil) }
            guard v < 1e15 else { continue }
            let written = DecimalNumber.text(v)
            let significant = written.filter(\.isNumber).trimmingZeros
            if written != plain(v.description) || significant != String(digits).trimmingZeros {
                failures += 1
                if failures <= 10 { Issue.record("\(text): written \(written), description \(v.description)") }
            }
        }
        #expect(failures == 0)
    }

    /// `description`'s text (`-1.25e-07`, `47.5`, `5.0`) in plain decimal notation, "5.0" as "5".
    func plain(_ description: String) -> String {
        var text = Substring(description)
        var sign = ""
        if text.hasPrefix("-") {
            sign = "-"
            text = text.dropFirst()
        }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = text[..<e]
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var digits = String(parts[0]) + (parts.count > 1 ? String(parts[1]) : "")
        var point = parts[0].count + exponent  // digits before the decimal point
        while digits.count > 1, digits.hasPrefix("0") {
            digits.removeFirst()
            point -= 1
        }
        while digits.count > max(point, 1), digits.hasSuffix("0") { digits.removeLast() }
        if digits == "0" { return sign + "0" }
        if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + digits }
        if point >= digits.count { return sign + digits + String(repeating: "0", count: point - digits.count) }
        return sign + String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
    }

    /// Parsing decimals of up to 25 digits agrees with the C library's correctly rounded strtod
    /// (through Swift's Double(String)).
    @Test func parsingAgreesWithStrtod() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<50_000 {
            let intDigits = Int.random(in: 0...12, using: &rng)
            let fracDigits = Int.random(in: 0...13, using: &rng)
            var text = Bool.random() ? "-" : ""
            text += intDigits == 0 ? "0" : String((0..<intDigits).map { _ in "0123456789".randomElement()! })
            if fracDigits > 0 { text += "." + String((0..<fracDigits).map { _ in "0123456789".randomElement()! }) }
            #expect(DecimalNumber.parse(text) == Double(text), "\(text)")
        }
    }

    /// 16 to 19 significant digits, scaled by 10^−19 to 10^19 (with a point, an exponent or
    /// both): the exact 128-bit path (`nearestDouble`, reached from `parsePlain` and, with an exponent, from `parseGeneral`) agrees with strtod, ties included.
    @Test func longMantissasAgreeWithStrtod() {
        // Ties between two doubles, with 16 or 17 digits: half to even.
        let ties = [
            "9007199254740993", "9007199254740995", "4503599627370496.5", "4503599627370497.5",
            "18014398509481985", "18014398509481986", "18014398509481987", "9999999999999999999",
            "1844674407370955.1615", "0.9999999999999999999", "1000000000000000000e19", "1e-19",
            "51.500084066483495", "-0.12003843750785251",
        ]
        for text in ties { #expect(DecimalNumber.parse(text) == Double(text), "\(text)") }
        var r = SplitMix(seed: 160_019)
        for _ in 0..<200_000 {
            let digits = 16 + Int(r.next() % 4)
            var mantissa = String(1 + r.next() % 9)
            for _ in 1..<digits { mantissa += String(r.next() % 10) }
            let point = Int(r.next() % UInt64(digits + 1))
            var text = r.next() % 2 == 0 ? "-" : ""
            text += point == 0 ? "0" : String(mantissa.prefix(point))
            if point < digits { text += "." + mantissa.dropFirst(point) }
            if r.next() % 3 == 0 { text += "e" + String(Int(r.next() % 39) - 19) }
            #expect(DecimalNumber.parse(text) == Double(text), "\(text)")
        }
    }

    /// The significant digits, without sign, point, exponent or zeros at either end: equal
    /// strings mean the same shortest digits were chosen.
    func digitString(_ text: String) -> String {
        let mantissa = text.split(whereSeparator: { $0 == "e" || $0 == "E" })[0]
        var digits = mantissa.filter(\.isNumber)
        while digits.hasPrefix("0") { digits.removeFirst() }
        while digits.hasSuffix("0") { digits.removeLast() }
        return String(digits)
    }

    /// Schubfach (`shortest`) alone, on every kind of double in its range, not only those the
    /// 15-digit path leaves to it: digits · 10^exponent reads back as the value (strtod), and
    /// the digits are Swift's own shortest form's. Powers of two (whose lower neighbour is
    /// closer), the binade from 2^53 to 1e16, and both ends of the range included.
    @Test func schubfachAgreesWithTheDescription() {
        var g = FixGenerator(seed: 77)
        var values: [Double] = [1e-7, 1e16.nextDown, 0x1p53, 0x1p53.nextUp, 9_007_199_254_740_993, 0.1, 0.3]
        for e in -23...53 { values += [Double(sign: .plus, exponent: e, significand: 1)] }
        for _ in 0..<300_000 {
            let bits = g.nextUInt()
            let v = exp(log(1e-7) + g.unit() * (log(1e16) - log(1e-7)))
            values.append(bits % 7 == 0 ? Double(sign: .plus, exponent: Int(bits >> 8 % 77) - 23, significand: 1) : v)
        }
        var failures = 0
        for v in values where v >= 1e-7 && v < 1e16 {
            let (d, e) = DecimalNumber.shortest(v)
            let text = "\(d)e\(e)"
            let back = text.withCString { strtod($0, nil) }
            if back != v || digitString(String(d)) != digitString(v.description) {
                failures += 1
                if failures <= 10 { Issue.record("\(v) (\(v.bitPattern)): \(text), description \(v.description)") }
            }
        }
        #expect(failures == 0)
    }

    /// Trailing zeros go by divisibility tests without a division (a multiplication by 5^-k
    /// and a rotation): the same digits and decimals as dividing by ten while it divides,
    /// for d · 10^j with every j a UInt64 holds and random digits (never 0: the writer's
    /// digits are a positive number's), at every decimal count.
    @Test func trailingZerosDropAsByDivision() {
        var g = FixGenerator(seed: 1019)
        var cases: [(UInt64, Int)] = [(1, 0), (10, 0), (10, 1), (UInt64.max, 5), (18_446_744_073_709_551_610, 19)]
        for j in 0...19 {
            var power: UInt64 = 1
            for _ in 0..<j { power *= 10 }
            for _ in 0..<200 {
                let d = 1 + g.nextUInt() % (UInt64.max / power)
                cases.append((d * power, Int(g.nextUInt() % 25)))
            }
            cases.append((power, j))
            cases.append((power, 19))
        }
        for _ in 0..<20_000 { cases.append((max(1, g.nextUInt() >> (g.nextUInt() % 64)), Int(g.nextUInt() % 25))) }
        var failures = 0
        for (digits, decimals) in cases {
            var d = digits
            var e = decimals
            while e > 0, d % 10 == 0 {
                d /= 10
                e -= 1
            }
            let got = DecimalNumber.withoutTrailingZeros(digits, decimals: decimals)
            if got != (d, e) {
                failures += 1
                if failures <= 10 { Issue.record("\(digits) / 10^\(decimals): \(got), expected \((d, e))") }
            }
        }
        #expect(failures == 0)
    }

    /// Schubfach's factors are 10^e normalised to 64 bits, exactly.
    @Test func schubfachPowersAreTheNormalisedPowersOfTen() {
        #expect(DecimalNumber.schubfachPowers.count == 28)
        for e in 0...27 {
            var five: UInt64 = 1
            for _ in 0..<e { five *= 5 }
            #expect(DecimalNumber.schubfachPowers[e] == five << UInt64(five.leadingZeroBitCount), "10^\(e)")
        }
    }
}

extension String {
    /// The digits without the zeros at either end (a decimal's significant digits).
    fileprivate var trimmingZeros: String {
        String(drop(while: { $0 == "0" }).reversed().drop(while: { $0 == "0" }).reversed())
    }
}

/// `DecimalNumber.shortPlain`, the one-word-a-part reading of coordinates and radii in the
/// fences file, against strtod (Swift's `Double(String)`) and the general plain reader.
struct ShortPlainNumberTests {
    /// Reads `text` followed by `tail` (the bytes after the number in a file) with shortPlain.
    func short(_ text: String, tail: String = ",\"lon\":8.0000000,\"radius\":100.0}") -> (Double?, Int) {
        let bytes = Array((text + tail).utf8)
        return bytes.withUnsafeBufferPointer { b in
            var i = 0
            let v = DecimalNumber.shortPlain(b.baseAddress!, at: &i, end: b.count)
            return (v, i)
        }
    }

    /// Every form it takes, one to seven digits each side, signs and the lone zero: the value
    /// is strtod's, and the reader stops just after the number.
    @Test func agreesWithStrtodOnEveryShortForm() {
        var g = FixGenerator(seed: 4_2026)
        for _ in 0..<200_000 {
            let intDigits = 1 + Int(g.nextUInt() % 7)
            let fracDigits = Int(g.nextUInt() % 8)
            var text = g.nextUInt() % 2 == 0 ? "-" : ""
            var whole = String(1 + g.nextUInt() % 9)
            for _ in 1..<intDigits { whole += String(g.nextUInt() % 10) }
            text += g.nextUInt() % 5 == 0 ? "0" : whole
            if fracDigits > 0 { text += "." + (0..<fracDigits).map { _ in String(g.nextUInt() % 10) }.joined() }
            let (v, end) = short(text)
            #expect(v == Double(text), "\(text)")
            #expect(end == text.utf8.count, "\(text)")
        }
    }

    /// What it leaves to the general reader: nil, with the position unmoved.
    @Test(arguments: [
        "12345678.5", "1.12345678", "01.5", "-", "-.5", ".5", "1.", "1.5e3", "1E3", "1e-7", "x", "",
        "00", "-01",
    ])
    func leavesTheRestToTheGeneralReader(_ text: String) {
        let (v, end) = short(text)
        #expect(v == nil, "\(text)")
        #expect(end == 0, "\(text)")
    }

    /// Within sixteen bytes of the end it reads nothing (the words would pass it).
    @Test func neverReadsPastTheEnd() {
        let (v, end) = short("47.3440803", tail: "}")
        #expect(v == nil && end == 0)
        let (w, wend) = short("47.3440803", tail: "}" + String(repeating: " ", count: 6))
        #expect(w == 47.3440803 && wend == 10)
    }
}
