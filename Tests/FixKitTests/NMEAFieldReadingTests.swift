import Foundation
import Testing

@testable import FixKit

/// The field readers of `NMEASentence` read a word at a time (`shortNumber`, `points`): over
/// generated fields at every place in a sentence, each agrees with a reading written here
/// from the grammar alone, byte by byte, whose numbers come from the C library's `strtod`
/// (correctly rounded). The fields are framed as the reader frames them, so the bytes before
/// and after a field are a real sentence's.
struct NMEAFieldReadingTests {
    /// Frames `$GPXXX,` + fields + `*hh` and hands the sentence to `body`.
    func withSentence<T>(_ fields: [String], _ body: (NMEASentence) throws -> T) rethrows -> T? {
        let text = "GPXXX," + fields.joined(separator: ",")
        let sum = text.utf8.reduce(UInt8(0), ^)
        let bytes = Array(("$" + text + "*" + String(format: "%02X", sum)).utf8)
        let bounds = FieldBounds()
        return try bytes.withUnsafeBufferPointer { buffer in
            guard case .sentence(let s) = NMEAFraming.frame(buffer, bounds: bounds).0 else { return nil }
            return try body(s)
        }
    }

    /// The framing finds every comma, a word at a time, with runs of up to 40 commas (empty
    /// fields) at every place in a word, and up to the 127 fields it keeps: each field is what
    /// splitting the text at its commas gives, and the rest of a longer sentence is its last
    /// field.
    @Test func framingFindsEveryField() throws {
        var g = FixGenerator(seed: 127)
        for k in 0..<20_000 {
            var fields: [String] = []
            for _ in 0..<Int(g.nextUInt() % (k % 10 == 0 ? 200 : 30)) {
                let length = g.chance(0.3) ? 0 : Int(g.nextUInt() % 12)
                fields.append(String((0..<length).map { _ in g.pick(Array("0123456789.-ANE")) }))
                if g.chance(0.05) { fields += Array(repeating: "", count: Int(g.nextUInt() % 40)) }
            }
            let parsed = withSentence(fields) { s -> [String] in
                (1...max(s.count, 1)).map { String(decoding: s.field($0), as: UTF8.self) }
            }
            // `frame` keeps 127 fields: from the 127th comma on, the text is the last field's.
            let kept = fields.count <= 127 ? fields : fields[..<126] + [fields[126...].joined(separator: ",")]
            #expect(parsed == (fields.isEmpty ? [""] : Array(kept)), "\(fields)")
        }
    }

    /// The checksum, `*hh` (either case) after the XOR of everything between `$` and `*`, as
    /// the framing reads it straight from the buffer or from a line cut before its end: the
    /// sentence ends at the line's end (or a `$` or `!`), whatever follows the two digits;
    /// one digit, a byte that is not hex, or a wrong sum is a bad checksum.
    @Test func checksumsAgreeWithTheirText() throws {
        var g = FixGenerator(seed: 0x2A)
        let endings = ["\r\n", "\n", "\r", "\u{0}", "$GPGGA", "!AIVDM", ""]
        var good = 0
        for _ in 0..<20_000 {
            let body =
                "GPXXX," + (0..<Int(g.nextUInt() % 12)).map { _ in String(g.nextUInt() % 1000) }.joined(separator: ",")
            let sum = body.utf8.reduce(UInt8(0), ^)
            var tail = String(format: g.chance(0.25) ? "%02x" : "%02X", sum)
            if g.chance(0.1) { tail = String(format: "%02X", sum ^ UInt8(1 + g.nextUInt() % 255)) }
            if g.chance(0.1) { tail = g.pick(["", "5", "G1", "1G", " 5", ",A"]) }
            let junk = g.chance(0.1) ? g.pick(["x", " ", "\t", "*", ",", "ZZ", "00"]) : ""
            let ending = g.pick(endings)
            let bytes = Array(("$" + body + "*" + tail + junk + ending).utf8)
            // The reference: the sentence runs to the first line end, `$` or `!` after its
            // start; its checksum is the two bytes after the star, read as hex.
            let stop =
                bytes.indices.dropFirst().first { [0x0A, 0x0D, 0, 0x24, 0x21].contains(bytes[$0]) } ?? bytes.count
            let hex = String(decoding: (tail + junk).utf8.prefix(2), as: UTF8.self)
            let sumIsRight = hex.count == 2 && hex.allSatisfy(\.isHexDigit) && UInt8(hex, radix: 16) == sum
            let (outcome, end) = bytes.withUnsafeBufferPointer { NMEAFraming.frame($0, bounds: FieldBounds()) }
            #expect(end == stop, "\(bytes)")
            switch outcome {
            case .sentence:
                #expect(sumIsRight, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
                good += 1
            case .badChecksum: #expect(!sumIsRight, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            case .ignored: Issue.record("ignored: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
        #expect(good > 10_000)
    }

    /// `[0-9]*(.[0-9]+)?` with a digit: the numbers NMEA's fields hold.
    static func isPlain(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            return false
        }
        return parts.count == 1 ? !text.isEmpty : !parts[1].isEmpty
    }

    static func strtodValue(_ text: String) -> Double { text.withCString { strtod($0, nil) } }

    /// `DecimalNumber.parse` on the bytes, as a field is read (blanks are not trimmed).
    static func parsed(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer { DecimalNumber.parse($0) }
    }

    /// Field texts: plain numbers of one to twelve bytes with the point anywhere, and the
    /// forms the short reader must leave (signs, exponents, two points, a point last, bytes
    /// just outside the digits, bytes that carry in its word test).
    static func fieldTexts(_ g: inout FixGenerator, count: Int) -> [String] {
        let odd = ["-", "+", "e", "E", ".", "/", ":", " ", "\u{7F}", "é", "\u{8A}", "\u{FF}", "0", "9"]
        var texts = [
            "0", "9", "10", "0.80", "170.8", "24.448", "206.61", ".5", "5.", "00000000", "99999999",
            "9999999.9", ".0000000", "123456789", "1.2345678", "-1.5", "+2", "1e5", "1..2", "", "0.", "4807.038",
        ]
        for _ in 0..<count {
            let length = 1 + Int(g.nextUInt() % 12)
            var chars = (0..<length).map { _ in Character(String(g.nextUInt() % 10)) }
            if g.chance(0.8) { chars[Int(g.nextUInt() % UInt64(length))] = "." }
            if g.chance(0.25) { chars[Int(g.nextUInt() % UInt64(length))] = Character(g.pick(odd)) }
            texts.append(String(chars))
        }
        return texts
    }

    @Test func numbersAgreeWithStrtod() throws {
        var g = FixGenerator(seed: 183)
        var failures = 0
        var short = 0
        for text in Self.fieldTexts(&g, count: 60_000) {
            // Before it: a field of 0 to 9 bytes (the word read ends at the field's end, and may
            // start in the address); after it: nothing, or another field.
            let before = String(repeating: "7", count: Int(g.nextUInt() % 10))
            let fields = g.chance(0.5) ? [before, text] : [before, text, "A"]
            let result = try #require(
                withSentence(fields) { s -> (Double??, Double?) in
                    let r = s.range(2)
                    let read: Double??  // nil: refused
                    do { read = .some(try s.optionalNumber(2)) } catch { read = nil }
                    return (read, r.isEmpty ? nil : s.shortNumber(r.lowerBound, r.upperBound))
                })
            let (read, fast) = result
            // Other forms (a sign, an exponent) as `DecimalNumber.parse` reads them, which
            // `DecimalNumberTests` checks against strtod.
            let expected: Double?? =
                text.isEmpty
                ? .some(nil) : Self.isPlain(text) ? .some(Self.strtodValue(text)) : Self.parsed(text).map { .some($0) }
            if read != expected {
                failures += 1
                if failures <= 10 {
                    Issue.record(
                        "\(text.debugDescription): read \(String(describing: read)), expected \(String(describing: expected))"
                    )
                }
            }
            // The word-at-a-time reading takes every plain number of up to eight bytes, and
            // nothing else.
            let takes = Self.isPlain(text) && text.utf8.count <= 8
            if takes { short += 1 }
            if fast != (takes ? Self.strtodValue(text) : nil) {
                failures += 1
                if failures <= 10 {
                    Issue.record("\(text.debugDescription): shortNumber gave \(String(describing: fast))")
                }
            }
        }
        #expect(failures == 0)
        #expect(short > 20_000, "the short path was taken \(short) times")
    }

    /// Decimal places: the bytes after the last point (0 without one).
    @Test func decimalsCountAfterTheLastPoint() {
        var g = FixGenerator(seed: 7)
        for text in Self.fieldTexts(&g, count: 20_000) + ["1.2.3", "12345678.123456789", "1.23456789012"] {
            let expected =
                text.utf8.lastIndex(of: UInt8(ascii: ".")).map {
                    text.utf8.distance(from: $0, to: text.utf8.endIndex) - 1
                } ?? 0
            // The field before ends in a point, which the word read may hold.
            let got = withSentence(["1.", text, "y"]) { $0.decimals(2) }
            #expect(got == expected, "\(text.debugDescription)")
        }
    }

    /// Six bytes as `hhmmss` or `ddmmyy` pairs, read as one word where the sentence goes on
    /// for two bytes past them and byte by byte where it ends sooner (a sentence without a
    /// checksum): both agree with the pairs' own text, and refuse any byte that is not a
    /// digit (bytes just outside the digits, and ones that carry in the word's test).
    @Test func digitPairsAgreeWithTheirText() {
        var g = FixGenerator(seed: 235_959)
        let odd: [UInt8] = [0x2F, 0x3A, 0x2E, 0x20, 0x8A, 0xFF, 0x80, 0x00 + 0x41]
        var read = 0
        for k in 0..<40_000 {
            var bytes = (0..<6).map { _ in UInt8(48 + g.nextUInt() % 10) }
            if g.chance(0.3) { bytes[Int(g.nextUInt() % 6)] = g.pick(odd) }
            let expected: (Int64, Int64, Int64)? =
                bytes.allSatisfy({ $0 >= 48 && $0 <= 57 })
                ? (
                    Int64(bytes[0] - 48) * 10 + Int64(bytes[1] - 48), Int64(bytes[2] - 48) * 10 + Int64(bytes[3] - 48),
                    Int64(bytes[4] - 48) * 10 + Int64(bytes[5] - 48)
                ) : nil
            // Framed by hand: the text may hold bytes that are not UTF-8.
            var sentence = Array("$GPXXX,".utf8) + bytes
            let last = k % 2 == 0
            if !last { sentence += Array(",A".utf8) }
            if !last || g.chance(0.5) {
                let sum = sentence.dropFirst().reduce(UInt8(0), ^)
                sentence += Array(("*" + String(format: "%02X", sum)).utf8)
            }
            let bounds = FieldBounds()
            let got = sentence.withUnsafeBufferPointer { buffer -> (Int64, Int64, Int64)? in
                guard case .sentence(let s) = NMEAFraming.frame(buffer, bounds: bounds).0 else {
                    Issue.record("\(bytes) not framed")
                    return nil
                }
                // Without a checksum, a last field loses its trailing blanks: its six bytes
                // are then not all in it, and the pairs' reading does not apply.
                guard s.range(1) == 7..<13 else { return expected }
                return s.digitPairs(7)
            }
            #expect(got?.0 == expected?.0 && got?.1 == expected?.1 && got?.2 == expected?.2, "\(bytes)")
            if got != nil { read += 1 }
        }
        #expect(read > 20_000)
    }

    /// A coordinate as its doc comment reads it: the first point; degrees, the digits before
    /// the two in front of it (at least one); minutes, the rest, a number below 60; the
    /// hemisphere letter; within the limit. Nil for anything else.
    static func reference(_ text: String, _ hemisphere: String, limit: Double) -> (Double, Int)? {
        let bytes = Array(text.utf8)
        let dot = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
        guard dot >= 3, bytes[..<(dot - 2)].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let minutesText = String(decoding: bytes[(dot - 2)...], as: UTF8.self)
        // Other forms (a sign, an exponent) as `DecimalNumber.parse` reads them.
        let read = isPlain(minutesText) ? strtodValue(minutesText) : parsed(minutesText)
        guard let minutes = read, minutes >= 0, minutes < 60 else { return nil }
        var degrees = 0.0
        for b in bytes[..<(dot - 2)] { degrees = degrees * 10 + Double(b - 48) }
        var value = degrees + minutes / 60
        switch hemisphere {
        case "N", "E": break
        case "S", "W": value = -value
        default: return nil
        }
        guard abs(value) <= limit else { return nil }
        return (value, dot < bytes.count ? bytes.count - dot - 1 : 0)
    }

    @Test func coordinatesAgreeWithTheirGrammar() throws {
        var g = FixGenerator(seed: 4807)
        var failures = 0
        var read = 0
        for k in 0..<60_000 {
            var text = ""
            for _ in 0..<Int(g.nextUInt() % 4) { text += String(g.nextUInt() % 10) }
            text += String(format: "%02d", Int(g.nextUInt() % 62))
            if g.chance(0.9) {
                text += "."
                for _ in 0..<Int(g.nextUInt() % 14) { text += String(g.nextUInt() % 10) }
            }
            if g.chance(0.2) {
                var chars = Array(text)
                chars[Int(g.nextUInt() % UInt64(chars.count))] = Character(g.pick([".", "-", "e", "/", ":", "x", " "]))
                text = String(chars)
            }
            let hemisphere = g.pick(["N", "S", "E", "W", "X", ""])
            let limit = k % 2 == 0 ? 90.0 : 180.0
            let got = try #require(
                withSentence([g.pick(["1", "1.", "."]), text, hemisphere, "2"]) { s -> (Double, Int)? in
                    var decimals = 0
                    return s.coordinate(2, limit: limit, decimals: &decimals).map { ($0, decimals) }
                })
            let expected = Self.reference(text, hemisphere, limit: limit)
            if got?.0 != expected?.0 || got?.1 != expected?.1 {
                failures += 1
                if failures <= 10 {
                    Issue.record(
                        "\(text) \(hemisphere): \(String(describing: got)), expected \(String(describing: expected))")
                }
            }
            if got != nil { read += 1 }
        }
        #expect(failures == 0)
        #expect(read > 12_000, "\(read) coordinates read")
    }
}
