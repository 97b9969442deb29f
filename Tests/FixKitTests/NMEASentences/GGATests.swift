import Testing

@testable import FixKit

/// GGA, field by field (numbers as in `GGA.swift`'s diagram). The first row is the example
/// of the NMEA references (gpsd's "NMEA revealed", `$GPGGA,123519,4807.038,N,...*47`);
/// expected values by hand: 48° 07.038' = 48 + 7.038/60.
@Suite("NMEA sentence: GGA")
struct GGATests {
    static let lat = 48 + 7.038 / 60  // 48.1173
    static let lon = 11 + 31.0 / 60  // 11.516666...
    static let cases: [SentenceCase] = [
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47", verdict: .used,
            timeOfDay: SentenceCase.ms(12, 35, 19), lat: lat, lon: lon, decimals: 6, alt: 545.4, hdop: 0.9, sat: 8),
        // Southern and western hemispheres are negative.
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,S,01131.000,W,1,08,0.9,545.4,M,46.9,M,,", verdict: .used,
            lat: -lat, lon: -lon, alt: 545.4, hdop: 0.9, sat: 8),
        // An altitude in feet (unit field 10 is not M) is not used.
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,N,01131.000,E,2,08,0.9,1789.4,F,46.9,M,,", verdict: .used,
            lat: lat, lon: lon, hdop: 0.9, sat: 8),
        // Quality 0 (or empty): void, nothing is read.
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,N,01131.000,E,0,08,0.9,545.4,M,46.9,M,,", verdict: .void, void: true),
        SentenceCase(sentence: "$GPGGA,123519,,,,,,,,,M,,M,,", verdict: .void, void: true),
        // Quality 7 (manual input) and 8 (simulator, gpsd's GPSmap-76S.log) are not measurements.
        SentenceCase(
            sentence: "$GPGGA,125106,3854.5087,N,07726.4523,W,8,10,2.0,268.8,M,-33.9,M,,*7F", verdict: .notMeasured,
            void: true),
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,N,01131.000,E,7,08,0.9,545.4,M,46.9,M,,", verdict: .notMeasured,
            void: true),
        // RTK fixed with seven decimals (gpsd's nmea-rtk.log style).
        SentenceCase(
            sentence: "$GNGGA,010203.00,4807.0380000,N,01131.0000000,E,4,12,0.6,545.4,M,46.9,M,1.0,0000",
            verdict: .used,
            lat: lat, lon: lon, decimals: 14, alt: 545.4, hdop: 0.6, sat: 12),
        // Refusals, each with the field at fault.
        SentenceCase(sentence: "$GPGGA,030130", verdict: .refused(.tooFewFields(needs: 9))),
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,N,01131.000,E,1,x8,0.9,545.4,M,46.9,M,,",
            verdict: .refused(.number(field: 7))),
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,5a5,M,46.9,M,,",
            verdict: .refused(.number(field: 9))),
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,N,01131.000,E,1,1000,0.9,545.4,M,46.9,M,,",
            verdict: .refused(.satellites(field: 7))),
        SentenceCase(
            sentence: "$GPGGA,123519,4860.000,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            verdict: .refused(.coordinate(field: 2))),
        SentenceCase(
            sentence: "$GPGGA,123519,4807.038,N,01131.000,X,1,08,0.9,545.4,M,46.9,M,,",
            verdict: .refused(.coordinate(field: 4))),
        SentenceCase(sentence: "$GPGGA,123519,,,,,1,08,0.9,545.4,M,46.9,M,,", verdict: .refused(.coordinate(field: 2))),
    ]

    @Test(arguments: cases) func fields(_ c: SentenceCase) { c.check(GGA.self) }

    @Test("a time that is not hhmmss[.sss] refuses the sentence, in the assembler, as field 1")
    func badTime() throws {
        var assembler = NMEAAssembler(fileName: nil, uere: nil, date: nil)
        let bounds = FieldBounds()
        let bytes = Array("$GPGGA,126519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,".utf8)
        let verdict = try bytes.withUnsafeBufferPointer { buffer -> NMEAVerdict? in
            guard case .sentence(let s) = NMEAFraming.frame(buffer, bounds: bounds).0 else { return nil }
            return try assembler.add(GGA.self, s, emit: { _ in })
        }
        #expect(verdict == .refused(.time(field: 1)))
    }
}
