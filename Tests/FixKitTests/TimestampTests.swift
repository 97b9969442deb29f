import Foundation
import Testing

@testable import FixKit

struct TimestampTests {
    /// Instants checked by hand and with Python's datetime (proleptic Gregorian): the epoch, Y2K,
    /// offsets, rounding of long fractions, leap days and years outside time_t.
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z", Int64(0)),
        ("2000-01-01T00:00:00Z", "2000-01-01T00:00:00Z", Int64(946_684_800_000)),
        ("2026-01-01T11:00:00+02:00", "2026-01-01T09:00:00Z", Int64(1_767_258_000_000)),
        ("2026-01-01T04:30:00-0430", "2026-01-01T09:00:00Z", Int64(1_767_258_000_000)),
        ("2026-01-01T10:00:00+01", "2026-01-01T09:00:00Z", Int64(1_767_258_000_000)),
        ("2026-01-01t09:00:00z", "2026-01-01T09:00:00Z", Int64(1_767_258_000_000)),
        ("2026-01-01 09:00:00", "2026-01-01T09:00:00Z", Int64(1_767_258_000_000)),
        ("2026-01-01T09:00:00.25Z", "2026-01-01T09:00:00.250Z", Int64(1_767_258_000_250)),
        ("2026-01-01T09:00:00.0004Z", "2026-01-01T09:00:00Z", Int64(1_767_258_000_000)),
        ("2026-01-01T09:00:00.0005Z", "2026-01-01T09:00:00.001Z", Int64(1_767_258_000_001)),
        ("2025-12-31T23:59:59.9996Z", "2026-01-01T00:00:00Z", Int64(1_767_225_600_000)),
        ("2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z", Int64(1_709_208_000_000)),
        ("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z", Int64(-1)),
        ("1234-12-12T08:00:00.123Z", "1234-12-12T08:00:00.123Z", Int64(-23_196_038_399_877)),
        ("4096-12-12T08:00:00.410Z", "4096-12-12T08:00:00.410Z", Int64(67_120_041_600_410)),
    ])
    func parsesAndWrites(_ text: String, _ written: String, _ ms: Int64) throws {
        let t = try #require(Timestamp.parse(text))
        #expect(t.milliseconds == ms)
        #expect(t.rfc3339 == written)
    }

    @Test(arguments: [
        "", "2026-01-01", "2026-01-01T09:00Z", "2026-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-01-01T24:00:00Z", "2026-01-01T09:60:00Z", "2026-01-01T09:00:00.Z", "2026-01-01T09:00:00+2",
        "2026-01-01T09:00:00+24:00", "2022-09-27 11.28.14", "2026-01-01T09:00:00Zjunk", "26-01-01T09:00:00Z",
    ])
    func rejects(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    /// Against an independent oracle: Foundation's calendar arithmetic, over random instants
    /// from 1800 to 2200, with and without fractions.
    @Test func agreesWithFoundationOnRandomInstants() throws {
        var rng = SystemRandomNumberGenerator()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        for _ in 0..<2000 {
            let ms = Int64.random(in: -5_364_662_400_000...7_258_118_400_000, using: &rng)
            let t = Timestamp(milliseconds: ms)
            let text = t.rfc3339
            let date = try #require(formatter.date(from: text.contains(".") ? text : text.replacingOccurrences(of: "Z", with: ".000Z")))
            #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == ms, "\(text)")
            #expect(Timestamp.parse(text) == t)
        }
    }
}
