import Testing

@testable import FixKit

/// GSA, field by field (numbers as in `GSA.swift`'s diagram); the first row is the NMEA
/// references' example, `$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39`.
@Suite("NMEA sentence: GSA")
struct GSATests {
    static let cases: [SentenceCase] = [
        SentenceCase(
            sentence: "$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39", verdict: .used, hdop: 1.3, vdop: 2.1, pdop: 2.5
        ),
        // NMEA 4.1's system ID (field 18) after VDOP.
        SentenceCase(
            sentence: "$GNGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1,1", verdict: .used, hdop: 1.3, vdop: 2.1, pdop: 2.5),
        // Fix type 1 (none): its DOPs mean nothing.
        SentenceCase(sentence: "$GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9", verdict: .void),
        SentenceCase(sentence: "$GPGSA,A,1,,,,", verdict: .refused(.tooFewFields(needs: 17))),
        SentenceCase(sentence: "$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.x,2.1", verdict: .refused(.number(field: 16))),
    ]

    @Test(arguments: cases) func fields(_ c: SentenceCase) { c.check(GSA.self) }
}
