// gpx2fix --format takeout on Google Takeout location history: Records.json, Semantic Location History and the on-device Timeline.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("takeout", ["--waypoints", "--uere", "5"], data)
}
