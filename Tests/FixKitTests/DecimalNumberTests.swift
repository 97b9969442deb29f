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

    /// The significant digits, without sign, point, exponent or zeros at either end: equal
    /// strings mean the same shortest digits were chosen.
    func digitString(_ text: String) -> String {
        let mantissa = text.split(whereSeparator: { $0 == "e" || $0 == "E" })[0]
        var digits = mantissa.filter(\.isNumber)
        while digits.hasPrefix("0") { digits.removeFirst() }
        while digits.hasSuffix("0") { digits.removeLast() }
        return String(digits)
    }
}
