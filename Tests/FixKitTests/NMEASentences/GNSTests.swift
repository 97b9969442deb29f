import Testing

@testable import FixKit

/// GNS, field by field (numbers as in `GNS.swift`'s diagram); the first row is NovAtel's
/// example (`$GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,*70`).
@Suite("NMEA sentence: GNS")
struct GNSTests {
    static let lat = -(43 + 32.69262 / 60)
    static let lon = 172 + 35.48549 / 60
    static let cases: [SentenceCase] = [
        SentenceCase(
            sentence: "$GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,*70", verdict: .used,
            timeOfDay: SentenceCase.ms(1, 40, 35), lat: lat, lon: lon, decimals: 10, alt: 25.63, hdop: 0.9, sat: 13),
        // One letter per constellation: valid when any of them is not N.
        SentenceCase(
            sentence: "$GNGNS,014035.00,4332.69262,S,17235.48549,E,NA,13,0.9,25.63,11.24,,", verdict: .used, lat: lat,
            lon: lon,
            alt: 25.63, hdop: 0.9, sat: 13),
        SentenceCase(
            sentence: "$GNGNS,014035.00,4332.69262,S,17235.48549,E,NN,13,0.9,25.63,11.24,,", verdict: .void, void: true),
        SentenceCase(sentence: "$GNGNS,014035.00,,,,,,00,,,,,", verdict: .void, void: true),
        SentenceCase(sentence: "$GNGNS,014035.00,4332.69262,S", verdict: .refused(.tooFewFields(needs: 8))),
        SentenceCase(
            sentence: "$GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.x,25.63,11.24,,",
            verdict: .refused(.number(field: 8))),
        SentenceCase(
            sentence: "$GNGNS,014035.00,4332.69262,S,17235.48549,,RR,13,0.9,25.63,11.24,,",
            verdict: .refused(.coordinate(field: 4))),
    ]

    @Test(arguments: cases) func fields(_ c: SentenceCase) { c.check(GNS.self) }
}
