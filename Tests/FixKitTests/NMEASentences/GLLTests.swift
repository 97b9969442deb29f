import Testing

@testable import FixKit

/// GLL, field by field (numbers as in `GLL.swift`'s diagram); the first row is the NMEA
/// references' example, `$GPGLL,4916.45,N,12311.12,W,225444,A,*1D`.
@Suite("NMEA sentence: GLL")
struct GLLTests {
    static let lat = 49 + 16.45 / 60
    static let lon = -(123 + 11.12 / 60)
    static let cases: [SentenceCase] = [
        SentenceCase(
            sentence: "$GPGLL,4916.45,N,12311.12,W,225444,A,*1D", verdict: .used,
            timeOfDay: SentenceCase.ms(22, 54, 44),
            lat: lat, lon: lon, decimals: 4),
        // NMEA 1.x: no time, no status.
        SentenceCase(sentence: "$GPGLL,4916.45,N,12311.12,W", verdict: .used, lat: lat, lon: lon),
        SentenceCase(sentence: "$GPGLL,4916.45,N,12311.12,W,225444,V,", verdict: .void, void: true),
        SentenceCase(sentence: "$GPGLL,4916.45,N,12311.12,W,225444,A,N", verdict: .void, void: true),
        SentenceCase(sentence: "$GPGLL,4916.45,N", verdict: .refused(.tooFewFields(needs: 4))),
        SentenceCase(sentence: "$GPGLL,4916.45,Q,12311.12,W,225444,A,", verdict: .refused(.coordinate(field: 1))),
        SentenceCase(sentence: "$GPGLL,4916.45,N,123x1.12,W,225444,A,", verdict: .refused(.coordinate(field: 3))),
    ]

    @Test(arguments: cases) func fields(_ c: SentenceCase) { c.check(GLL.self) }
}
