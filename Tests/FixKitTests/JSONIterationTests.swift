import Foundation
import Testing

@testable import FixKit

/// `JSONScanner.nextMember` and `nextElement` are the one reading of the grammar around an
/// object's members and an array's elements: every reader built on them refuses the same
/// breaks, at the same byte, in the same words, and accepts what RFC 8259 accepts.
struct JSONIterationTests {
    static func value(_ text: String) -> Result<JSONValue, JSONSyntaxError> {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { p in
            do throws(JSONSyntaxError) {
                return .success(try JSONValue.parse(UnsafeBufferPointer(p)))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Byte offsets counted by hand from each text.
    @Test(arguments: [
        (#"{"a":1 "b":2}"#, "expected ',' or '}', found '\"'", 7),
        (#"{"a" 1}"#, "expected ':' after a member name, found '1'", 5),
        (#"{"a":1,}"#, "expected a string, found '}'", 7),
        (#"{"a":1"#, "expected ',' or '}', found the end", 6),
        ("[1 2]", "expected ',' or ']', found '2'", 3),
        ("[1,2", "expected ',' or ']', found the end", 4),
        (#"[{"a":[1,}]}]"#, "expected a number, found '}'", 9),
    ])
    func refusesBrokenStructure(_ text: String, _ message: String, _ offset: Int) throws {
        guard case .failure(let e) = Self.value(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(e.message == message, "\(text)")
        #expect(e.offset == offset, "\(text)")
    }

    /// Objects and arrays as other programs write them: spaces everywhere the grammar allows,
    /// empty ones, nesting. Checked against Foundation's JSONSerialization.
    @Test(arguments: [
        "{}", "[]", " { } ", "[ ]", #"{"a":[],"b":{}}"#, #"[[[]],{"x":[1,{"y":[]}]}]"#,
        " {\n\t\"a\" :\r\n 1 ,\"b\":[ 1 , 2 ]\n} ",
    ])
    func acceptsWhatFoundationAccepts(_ text: String) throws {
        let ours = try Self.value(text).get()
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        #expect(Self.count(ours) == Self.count(theirs), "\(text)")
    }

    /// Members and elements, counted all the way down.
    static func count(_ v: JSONValue) -> Int {
        switch v {
        case .object(let m): return m.count + m.reduce(0) { $0 + count($1.1) }
        case .array(let a): return a.count + a.reduce(0) { $0 + count($1) }
        default: return 0
        }
    }

    static func count(_ v: Any) -> Int {
        if let d = v as? [String: Any] { return d.count + d.values.reduce(0) { $0 + count($1) } }
        if let a = v as? [Any] { return a.count + a.reduce(0) { $0 + count($1) } }
        return 0
    }

    /// A fix record and a gpsd report say the same thing about the same break.
    @Test func fixRecordsAndGpsdSayTheSame() throws {
        var decoder = FixDecoder()
        var line = Array(#"{"lat":1 "lon":2}"#.utf8)
        let fixMessage = line.withUnsafeMutableBufferPointer { p -> String? in
            do throws(FixDecodingError) {
                _ = try decoder.decode(UnsafeBufferPointer(p))
                return nil
            } catch {
                return error.message
            }
        }
        #expect(fixMessage == "expected ',' or '}', found '\"' (at byte 10)")
        var gpsd = GPSDReader(fileName: nil)
        var report = Array(#"{"class":"TPV" "mode":3}"#.utf8)
        let outcome = report.withUnsafeMutableBufferPointer { gpsd.report(UnsafeBufferPointer($0)) }
        guard case .invalid(let message) = outcome else {
            Issue.record("the report was not refused: \(outcome)")
            return
        }
        #expect(message == "expected ',' or '}', found '\"'")
    }

    /// `scanString` reads eight bytes at a time; a byte-at-a-time reading of the same grammar
    /// (RFC 8259's string: no raw control characters, the eight escapes and \u with four hex
    /// digits) must agree with it on where the string ends, whether it has escapes, and where
    /// and why it is refused. 60,000 generated strings of 0 to 40 bytes, quotes, backslashes,
    /// control characters and UTF-8 bytes at every offset from a word boundary, so each
    /// special byte falls in every lane of a word, and both before and after the first.
    @Test func wordScanAgreesWithByteScan() {
        var g = FixGenerator(seed: 808_017)
        let alphabet: [UInt8] = Array("abc xyz019".utf8) + [0x22, 0x5C, 0x00, 0x09, 0x1F, 0x20, 0x7F, 0x80, 0xC3, 0xA9, 0xFF]
        let escapes: [UInt8] = Array("\"\\/bfnrtuq0".utf8)
        func reference(_ b: [UInt8], _ open: Int) -> StringScan {
            var i = open + 1
            var escaped = false
            while i < b.count {
                let c = b[i]
                if c == 0x22 { return .ends((open + 1)..<i, escaped) }
                if c == 0x5C {
                    escaped = true
                    i += 1
                    guard i < b.count else { break }
                    switch b[i] {
                    case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 1
                    case 0x75:
                        guard i + 4 < b.count, (1...4).allSatisfy({ b[i + $0].isHexDigitForTest }) else {
                            return .refused("u@\(i)")
                        }
                        i += 5
                    default: return .refused("escape@\(i)")
                    }
                    continue
                }
                if c < 0x20 { return .refused("control@\(i)") }
                i += 1
            }
            return .refused("open@\(open)")
        }
        for trial in 0..<60_000 {
            let lead = Int(g.nextUInt() % 9)
            var bytes = [UInt8](repeating: 0x20, count: lead) + [0x22]
            let n = Int(g.nextUInt() % 41)
            for _ in 0..<n {
                let c = alphabet[Int(g.nextUInt() % UInt64(alphabet.count))]
                bytes.append(c)
                if c == 0x5C, g.chance(0.8) { bytes.append(escapes[Int(g.nextUInt() % UInt64(escapes.count))]) }
            }
            if g.chance(0.9) { bytes.append(0x22) }
            bytes += Array("tail".utf8.prefix(Int(g.nextUInt() % 5)))
            let expected = reference(bytes, lead)
            let got: StringScan = bytes.withUnsafeBufferPointer { p in
                var s = JSONScanner(p, endName: "the end")
                s.position = lead
                do throws(JSONSyntaxError) {
                    let (range, escaped) = try s.scanString()
                    return s.position == range.upperBound + 1 ? .ends(range, escaped) : .refused("position \(s.position)")
                } catch {
                    let at = error.offset ?? -1
                    if error.message.hasPrefix("a \\u escape") { return .refused("u@\(at)") }
                    if error.message.hasPrefix("unknown escape") { return .refused("escape@\(at)") }
                    if error.message.hasPrefix("a control character") { return .refused("control@\(at)") }
                    if error.message.hasPrefix("a string is not closed") { return .refused("open@\(at)") }
                    return .refused(error.message)
                }
            }
            guard got == expected else {
                Issue.record("trial \(trial), bytes \(bytes): expected \(expected), got \(got)")
                return
            }
        }
    }

    /// `scanNumberValue` reads a number in one pass where `scanNumber` and
    /// `DecimalNumber.parse` take two: on 100,000 generated numbers (signs, leading zeros, 0
    /// to 22 digits either side of a point, exponents, a point with no digits, 16 to 19 digit
    /// mantissas) followed by nothing or by bytes a line may have next, the value's bits,
    /// the position after it and any error must be the two passes', and a valid number's
    /// value strtod's.
    @Test func oneNumberPassAgreesWithTwo() {
        var g = FixGenerator(seed: 4_711)
        func digits(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(48 + g.nextUInt() % 10) } }
        let tails: [[UInt8]] = [[], Array(",".utf8), Array("}".utf8), Array("]".utf8), Array(" ,".utf8),
            Array("e".utf8), Array(".".utf8), Array("5".utf8), Array("x".utf8), Array(",\"lat\":1.5}".utf8)]
        for trial in 0..<100_000 {
            var number: [UInt8] = []
            if g.chance(0.3) { number.append(UInt8(ascii: "-")) }
            if g.chance(0.15) { number.append(UInt8(ascii: "0")) }
            number += digits(Int(g.nextUInt() % 23))
            if g.chance(0.7) {
                number.append(UInt8(ascii: "."))
                number += digits(g.chance(0.05) ? 0 : Int(g.nextUInt() % 23))
            }
            if g.chance(0.1) {
                number.append(g.chance(0.5) ? UInt8(ascii: "e") : UInt8(ascii: "E"))
                if g.chance(0.5) { number.append(g.chance(0.5) ? UInt8(ascii: "+") : UInt8(ascii: "-")) }
                number += digits(Int(g.nextUInt() % 4))
            }
            let lead = Int(g.nextUInt() % 9)
            let bytes = [UInt8](repeating: 0x20, count: lead) + number + tails[Int(g.nextUInt() % UInt64(tails.count))]
            typealias Outcome = (value: UInt64?, position: Int, error: String?)
            func read(_ onepass: Bool) -> Outcome {
                bytes.withUnsafeBufferPointer { p in
                    var s = JSONScanner(p, endName: "the end")
                    s.position = lead
                    do throws(JSONSyntaxError) {
                        let v = onepass ? try s.scanNumberValue() : DecimalNumber.parse(try s.scanNumber())
                        return (v?.bitPattern, s.position, nil)
                    } catch {
                        return (nil, s.position, "\(error.message) @\(error.offset ?? -1)")
                    }
                }
            }
            let one = read(true)
            let two = read(false)
            guard one.value == two.value, one.position == two.position, one.error == two.error else {
                Issue.record("trial \(trial), \(String(decoding: bytes, as: UTF8.self)): one pass \(one), two \(two)")
                return
            }
            if let bits = one.value {
                let text = String(decoding: bytes[lead..<one.position], as: UTF8.self)
                let expected = strtod(text, nil)
                guard bits == expected.bitPattern else {
                    Issue.record("trial \(trial), \(text): \(Double(bitPattern: bits)), strtod \(expected)")
                    return
                }
            }
        }
    }
}

/// How a string scan ended: at its closing quote (the bytes between, whether escaped), or
/// refused (why, and at which byte).
private enum StringScan: Equatable {
    case ends(Range<Int>, Bool)
    case refused(String)
}

extension UInt8 {
    fileprivate var isHexDigitForTest: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
