// gpx2fix --format csv on CSV track logs: headers in many vocabularies, units, delimiters.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("csv", ["--waypoints", "--uere", "5"], data)
}
