import Foundation
import Testing

@testable import FixKit

struct FixCodecTests {
    func decode(_ line: String) throws(FixDecodingError) -> Fix {
        var decoder = FixDecoder()
        var bytes = Array(line.utf8)
        return try bytes.withUnsafeMutableBufferPointer { p throws(FixDecodingError) in
            try decoder.decode(UnsafeBufferPointer(p))
        }
    }

    func reencode(_ line: String) throws -> String {
        FixEncoder.line(try decode(line))
    }

    @Test func writesSpecFieldOrder() throws {
        let line = #"{"seg":2,"trace":"ride","name":"A","sat":7,"pdop":3,"vdop":2,"hdop":1,"cacc":5,"course":90,"speed":1.5,"vacc":4,"hacc":3,"alt":10.5,"lon":-0.1246,"lat":51.5007,"time":"2026-01-01T10:00:00+01:00"}"#
        #expect(
            try reencode(line)
                == #"{"time":"2026-01-01T09:00:00Z","lat":51.5007,"lon":-0.1246,"alt":10.5,"hacc":3,"vacc":4,"speed":1.5,"course":90,"cacc":5,"hdop":1,"vdop":2,"pdop":3,"sat":7,"name":"A","trace":"ride","seg":2}"# + "\n")
    }

    /// Members the record does not know are kept byte for byte, in order, after the known ones:
    /// nested values, odd spacing, escapes and all.
    @Test func keepsUnknownMembersVerbatim() throws {
        let line = #"{ "hr" : 120 ,"lat":1,"note":"a \"quoted\" \u00e9","lon":2, "deep":{"a":[1,2,{"b":null}],"c":true} ,"x":-1.50e3}"#
        #expect(
            try reencode(line)
                == #"{"lat":1,"lon":2,"hr" : 120,"note":"a \"quoted\" \u00e9","deep":{"a":[1,2,{"b":null}],"c":true},"x":-1.50e3}"# + "\n")
    }

    @Test func nullMeansAbsentAndStringsUnescape() throws {
        let fix = try decode(#"{"lat":1,"lon":2,"alt":null,"trace":"caf\u00e9 \ud83d\ude00\n","name":"tab\there"}"#)
        #expect(fix.alt == nil)
        #expect(fix.trace == "café 😀\n")
        #expect(FixEncoder.line(fix) == #"{"lat":1,"lon":2,"name":"tab\there","trace":"café 😀\n"}"# + "\n")
    }

    @Test(arguments: [
        ("not json", "a fix is a JSON object, but the line starts with 'n'"),
        ("[1,2]", "a fix is a JSON object, but the line starts with '['"),
        (#"{"lat":1}"#, #"a fix needs "lon""#),
        (#"{"alt":1}"#, #"a fix needs "lat" and "lon""#),
        (#"{"lat":91,"lon":0}"#, "lat 91 is out of range: expected degrees in [-90, 90]"),
        (#"{"lat":0,"lon":180.5}"#, "lon 180.5 is out of range: expected degrees in [-180, 180]"),
        (#"{"lat":"1","lon":0}"#, #""lat" must be a number, found '"'"#),
        (#"{"lat":1,"lon":0,"time":"noon"}"#, #""time" "noon" is not an RFC 3339 time"#),
        (#"{"lat":1,"lon":0,"sat":2.5}"#, #""sat" must be a whole number >= 0"#),
        (#"{"lat":1,"lon":0,"seg":-1}"#, #""seg" must be a whole number >= 0"#),
        (#"{"lat":1,"lon":0"#, "expected ',' or '}', found the end of the line"),
        (#"{"lat":1,"lon":0} x"#, "expected the end of the line after the object"),
        (#"{"lat":1,"lon":0,"x":tru}"#, "expected a value"),
        (#"{"lat":1,"lon":0,"x":"a"#, "a string is not closed"),
        (#"{"lat":1,"lon":0,"x":01}"#, "expected ',' or '}'"),
        (#"{"lat":null,"lon":0}"#, #""lat" is null"#),
    ])
    func reportsWhatIsWrong(_ line: String, _ message: String) {
        #expect {
            _ = try decode(line)
        } throws: { error in
            (error as? FixDecodingError)?.message.hasPrefix(message) == true
        }
    }

    /// A writer of many lines copies the date and the trace from the line before
    /// (`FixLineMemo`): over fixes that cross midnights and years, go back in time, and change
    /// trace among names that are equal as text but not as bytes (U+212A KELVIN SIGN and K,
    /// é in one and in two code points), every line is the one written alone, its time reads
    /// back through Foundation's ISO 8601 parser as the fix's, and its trace through
    /// Foundation's JSON parser as the same bytes.
    @Test func linesWrittenInARowAreTheLinesWrittenAlone() throws {
        var g = FixGenerator(seed: 2359)
        let traces: [String?] = [
            "ride", "ride", "K", "\u{212A}", "caf\u{E9}", "cafe\u{301}", "a \"b\"", nil, "Zürich 😀",
            String(repeating: "long name ", count: 20),
        ]
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let whole = ISO8601DateFormatter()
        var memo = FixLineMemo()
        var ms: Int64 = 946_684_800_000 - 3_000_000  // 1999-12-31T23:10:00Z
        for k in 0..<20_000 {
            ms += g.chance(0.05) ? -Int64(g.nextUInt() % 200_000_000) : Int64(g.nextUInt() % 4_000_000)
            var fix = Fix(lat: 1, lon: 2, alt: 3)
            fix.time = g.chance(0.03) ? nil : Timestamp(milliseconds: k % 1000 == 0 ? 253_402_300_799_999 : ms)
            fix.trace = g.chance(0.9) ? traces[k / 50 % 3] : g.pick(traces)
            var out: [UInt8] = []
            FixEncoder.encode(fix, into: &out, memo: &memo)
            let line = String(decoding: out, as: UTF8.self)
            #expect(line == FixEncoder.line(fix))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(out)) as? [String: Any])
            if let t = fix.time {
                let text = try #require(object["time"] as? String)
                let date = try #require(formatter.date(from: text) ?? whole.date(from: text), "\(text)")
                #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == t.milliseconds, "\(text)")
            }
            #expect((object["trace"] as? String).map { Array($0.utf8) } == fix.trace.map { Array($0.utf8) }, "\(line)")
        }
    }

    /// Thousands of random fixes survive encode → decode → encode unchanged, and the decoded
    /// values equal the originals.
    @Test func roundTripsRandomFixes() throws {
        var g = FixGenerator(seed: 42)
        for _ in 0..<5000 {
            let fix = g.next()
            let line = FixEncoder.line(fix)
            let back = try decode(String(line.dropLast()))
            #expect(back == fix, "\(line)")
            #expect(FixEncoder.line(back) == line)
            // And Foundation's JSON parser, an independent reader, accepts every line.
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
        }
    }
}
