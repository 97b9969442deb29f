import Foundation
import Testing

@testable import FixKit

/// fencerule's enter, exit and missed records are written into one buffer reserved for their
/// widest text (`FenceRuleTool.writeLocated`): with the widest values a field can take, ids
/// that need escapes or are empty, and with and without a time, a duration and a trace, each
/// record is one line that Foundation's JSON reader reads back to the same strings, and whose
/// numbers `Double(_:)` (strtod, correctly rounded, unlike Foundation's JSON numbers on Linux)
/// reads back to the same doubles.
@Suite("fencerule's event records")
struct FenceEventRecordTests {
    static let ids = [
        "", "shop-1", "a\"b\\c", "tab\there", "\u{1}\u{1f}", "é日本", String(repeating: "\u{7}", count: 40),
    ]
    /// Numbers written the longest way: 17 significant digits and six leading zeros (26 bytes).
    static let numbers = [-1.2345678901234567e-7, 1.2345678901234567e-7, 0, 1, -0.0, 123_456_789.12345678]
    static let probabilities = [0, 1, 1.2345678901234567e-7, 9.876543210987654e-300, 5e-324, 0.99999999999999989]

    @Test func recordsReadBackAsWritten() throws {
        let table = FenceTable(Self.ids.enumerated().map { Fence(id: $1, lat: 0, lon: Double($0), radius: 10) })
        var lines = 0
        for (k, id) in Self.ids.enumerated() {
            for (n, v) in Self.numbers.enumerated() {
                let p = Self.probabilities[n % Self.probabilities.count]
                let time = n % 2 == 0 ? Timestamp(milliseconds: 253_402_300_799_999) : nil
                let trace = n % 3 == 0 ? nil : (n % 3 == 1 ? "" : "ride \"\(n)\"\n")
                let fix = Fix(time: time, lat: v, lon: -v, trace: trace)
                let events: [(FenceEvent, String, Double?)] = [
                    (.enter(k, distance: abs(v), p: p), "enter", nil),
                    (.exit(k, distance: abs(v), p: p, duration: -v), "exit", -v),
                    (.exit(k, distance: abs(v), p: p, duration: nil), "exit", nil),
                    (.missed(k, distance: abs(v), p: p), "missed", nil),
                ]
                for (event, kind, duration) in events {
                    var out: [UInt8] = []
                    FenceRuleTool.write(event, fix: fix, fences: table, into: &out)
                    #expect(out.last == 0x0A && out.dropLast().allSatisfy { $0 != 0x0A })
                    let object = try #require(
                        try JSONSerialization.jsonObject(with: Data(out)) as? [String: Any],
                        "\(String(decoding: out, as: UTF8.self))")
                    #expect(object["event"] as? String == kind)
                    #expect(object["fence"] as? String == id)
                    #expect(object["time"] as? String == time?.rfc3339)
                    #expect(object["trace"] as? String == trace)
                    #expect(Set(object.keys).isSuperset(of: ["event", "fence", "lat", "lon", "distance", "p"]))
                    let text = String(decoding: out, as: UTF8.self)
                    #expect(Self.number("lat", in: text) == v, "\(text)")
                    #expect(Self.number("lon", in: text) == -v, "\(text)")
                    #expect(Self.number("distance", in: text) == abs(v), "\(text)")
                    #expect(Self.number("p", in: text) == p, "\(text)")
                    #expect(Self.number("duration", in: text) == duration, "\(text)")
                    lines += 1
                }
            }
        }
        #expect(lines == Self.ids.count * Self.numbers.count * 4)
    }

    /// The number after `"key":` in a record whose strings hold no such text, read by strtod.
    static func number(_ key: String, in text: String) -> Double? {
        guard let range = text.range(of: "\"\(key)\":") else { return nil }
        let rest = text[range.upperBound...]
        return Double(rest.prefix { $0 != "," && $0 != "}" })
    }
}
