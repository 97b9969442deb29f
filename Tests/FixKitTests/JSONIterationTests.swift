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
}
