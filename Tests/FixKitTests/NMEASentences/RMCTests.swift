import Testing

@testable import FixKit

/// RMC, field by field (numbers as in `RMC.swift`'s diagram). The first row is the NMEA
/// references' example (`$GPRMC,123519,A,4807.038,N,...,230394,003.1,W*6A`): 23 March 1994 is
/// day 8847 after 1970-01-01, 22.4 knots are 22.4 × 1852/3600 m/s.
@Suite("NMEA sentence: RMC")
struct RMCTests {
    static let lat = 48 + 7.038 / 60
    static let lon = 11 + 31.0 / 60
    static let cases: [SentenceCase] = [
        SentenceCase(
            sentence: "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A", verdict: .used,
            timeOfDay: SentenceCase.ms(12, 35, 19), day: 8847, lat: lat, lon: lon, decimals: 6,
            speed: 22.4 * SentenceCase.knot, course: 84.4),
        // Years 80-99 are 1980-1999, 00-79 are 2000-2079.
        SentenceCase(
            sentence: "$GPRMC,235959,A,4807.038,N,01131.000,E,,,311299,,", verdict: .used, day: 10956, lat: lat,
            lon: lon),
        SentenceCase(
            sentence: "$GPRMC,235959,A,4807.038,N,01131.000,E,,,311279,,", verdict: .used, day: 40176, lat: lat,
            lon: lon),
        SentenceCase(
            sentence: "$GPRMC,000000,A,4807.038,N,01131.000,E,,,290200,,", verdict: .used, day: 11016, lat: lat,
            lon: lon),
        // A course past 360 is reduced; a negative speed is absent.
        SentenceCase(
            sentence: "$GPRMC,123519,A,4807.038,N,01131.000,E,-1.0,370.5,230394,,", verdict: .used, day: 8847, lat: lat,
            lon: lon, course: 10.5),
        // A garbled date (gpsd's april6_2019.log, after the GPS week rollover) and a day that
        // does not exist: no date, but the position, speed and course count.
        SentenceCase(
            sentence: "$GPRMC,000231.099,A,4829.0005,N,00022.0015,E,0.15,212.28,2208-1,,,A*73", verdict: .used,
            timeOfDay: SentenceCase.ms(0, 2, 31, 99), lat: 48 + 29.0005 / 60, lon: 22.0015 / 60, decimals: 8,
            speed: 0.15 * SentenceCase.knot, course: 212.28),
        SentenceCase(sentence: "$GPRMC,123519,A,4807.038,N,01131.000,E,,,300295,,", verdict: .used, lat: lat, lon: lon),
        // Void (status V, or mode N): no position, but the date counts.
        SentenceCase(
            sentence: "$GPRMC,123519,V,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W", verdict: .void, day: 8847,
            void: true),
        SentenceCase(
            sentence: "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,N", verdict: .void, day: 8847,
            void: true),
        SentenceCase(sentence: "$GPRMC,,V,,,,,,,,,,N*53", verdict: .void, void: true),
        // Refusals.
        SentenceCase(sentence: "$GPRMC,123519,A,4807.038,N", verdict: .refused(.tooFewFields(needs: 9))),
        SentenceCase(
            sentence: "$GPRMC,123519,X,4807.038,N,01131.000,E,022.4,084.4,230394,,",
            verdict: .refused(.status(field: 2))),
        SentenceCase(
            sentence: "$GPRMC,123519,A,9107.038,N,01131.000,E,022.4,084.4,230394,,",
            verdict: .refused(.coordinate(field: 3))),
        SentenceCase(
            sentence: "$GPRMC,123519,A,4807.038,N,18131.000,E,022.4,084.4,230394,,",
            verdict: .refused(.coordinate(field: 5))),
        SentenceCase(
            sentence: "$GPRMC,123519,A,4807.038,N,01131.000,E,fast,084.4,230394,,", verdict: .refused(.number(field: 7))
        ),
        SentenceCase(
            sentence: "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,east,230394,,", verdict: .refused(.number(field: 8))
        ),
    ]

    @Test(arguments: cases) func fields(_ c: SentenceCase) { c.check(RMC.self) }
}
