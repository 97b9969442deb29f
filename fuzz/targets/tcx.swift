// gpx2fix --format tcx on TCX (Garmin Training Center): activities, courses, laps and trackpoints.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("tcx", ["--waypoints", "--uere", "5"], data)
}
