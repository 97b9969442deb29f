import Testing

@testable import FixKit

/// GST, field by field (numbers as in `GST.swift`'s diagram); the first row is the NMEA
/// references' example, `$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A`.
@Suite("NMEA sentence: GST")
struct GSTTests {
    static let cases: [SentenceCase] = [
        SentenceCase(
            sentence: "$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A", verdict: .used,
            timeOfDay: SentenceCase.ms(17, 28, 14), sigmaLat: 0.023, sigmaLon: 0.020, sigmaAlt: 0.031),
        // One σ missing: no horizontal accuracy; the altitude's still counts.
        SentenceCase(sentence: "$GPGST,172814.0,0.006,0.023,0.020,273.6,,0.020,0.031", verdict: .used, sigmaAlt: 0.031),
        // A negative σ is no accuracy.
        SentenceCase(sentence: "$GPGST,172814.0,0.006,0.023,0.020,273.6,-0.023,0.020,-0.031", verdict: .used),
        SentenceCase(sentence: "$GPGST,172814.0,0.006", verdict: .refused(.tooFewFields(needs: 8))),
        SentenceCase(
            sentence: "$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.02O,0.031", verdict: .refused(.number(field: 7))),
    ]

    @Test(arguments: cases) func fields(_ c: SentenceCase) { c.check(GST.self) }
}
