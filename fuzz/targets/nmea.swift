// gpx2fix --format nmea on NMEA 0183 logs, with --date and --uere so that every path of the
// assembler runs. Forced, whole and cut in pieces, which must agree; see Fuzz.reader (which
// also checks that every line written is a fix that reads back).
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("nmea", ["--date", "2026-01-01", "--uere", "5"], data)
}
