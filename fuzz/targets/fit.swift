// gpx2fix --format fit on FIT (Garmin's binary activity files): headers, definitions, compressed timestamps, developer fields, chained files, CRCs.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("fit", ["--waypoints", "--uere", "5"], data)
}
