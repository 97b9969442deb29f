// gpx2fix --format fix on fix records (NDJSON, as gpx2fix writes them) read by gpx2fix's fix format.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("fix", ["--waypoints", "--uere", "5"], data)
}
