import Testing

@testable import FixKit

/// VTG, field by field (numbers as in `VTG.swift`'s diagram); the first row is the NMEA
/// references' example, `$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K*48`.
@Suite("NMEA sentence: VTG")
struct VTGTests {
    static let cases: [SentenceCase] = [
        SentenceCase(
            sentence: "$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K*48", verdict: .used, speed: 5.5 * SentenceCase.knot,
            course: 54.7),
        // No knots: km/h (10 km/h = 10000/3600 m/s).
        SentenceCase(
            sentence: "$GPVTG,054.7,T,034.4,M,,N,010.0,K", verdict: .used, speed: 10_000.0 / 3600, course: 54.7),
        SentenceCase(sentence: "$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,N", verdict: .void),
        // NMEA 1.5, without unit letters: course true, course magnetic, knots, km/h.
        SentenceCase(
            sentence: "$GPVTG,054.7,034.4,005.5,010.2", verdict: .used, speed: 5.5 * SentenceCase.knot, course: 54.7),
        SentenceCase(sentence: "$GPVTG,054.7,034.4", verdict: .refused(.tooFewFields(needs: 4))),
        SentenceCase(sentence: "$GPVTG,05x.7,T,034.4,M,005.5,N,010.2,K", verdict: .refused(.number(field: 1))),
        SentenceCase(sentence: "$GPVTG,054.7,T,034.4,M,0..5,N,010.2,K", verdict: .refused(.number(field: 5))),
        SentenceCase(sentence: "$GPVTG,054.7,034.4,five,010.2", verdict: .refused(.number(field: 3))),
    ]

    @Test(arguments: cases) func fields(_ c: SentenceCase) { c.check(VTG.self) }
}
