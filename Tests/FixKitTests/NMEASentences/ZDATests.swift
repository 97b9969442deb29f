import Testing

@testable import FixKit

/// ZDA, field by field (numbers as in `ZDA.swift`'s diagram); the first row is the NMEA
/// references' example, `$GPZDA,201530.00,04,07,2002,00,00*60` (4 July 2002 is day 11872
/// after 1970-01-01).
@Suite("NMEA sentence: ZDA")
struct ZDATests {
    static let cases: [SentenceCase] = [
        SentenceCase(
            sentence: "$GPZDA,201530.00,04,07,2002,00,00*60", verdict: .used, timeOfDay: SentenceCase.ms(20, 15, 30),
            day: 11872),
        // The local zone is ignored: the date is UTC's.
        SentenceCase(sentence: "$GPZDA,201530.00,04,07,2002,-05,00", verdict: .used, day: 11872),
        // No date yet: nothing, and not malformed.
        SentenceCase(sentence: "$GPZDA,201530.00,,,,,", verdict: .used),
        SentenceCase(sentence: "$GPZDA,201530.00,04", verdict: .refused(.tooFewFields(needs: 4))),
        SentenceCase(sentence: "$GPZDA,201530.00,30,02,2002,00,00", verdict: .refused(.date(field: 2))),
        SentenceCase(sentence: "$GPZDA,201530.00,04,07,1979,00,00", verdict: .refused(.date(field: 2))),
        SentenceCase(sentence: "$GPZDA,201530.00,04,July,2002,00,00", verdict: .refused(.number(field: 3))),
    ]

    @Test(arguments: cases) func fields(_ c: SentenceCase) { c.check(ZDA.self) }
}
