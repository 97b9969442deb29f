// gpx2fix --format geojson on GeoJSON location logs: Features with Points and LineStrings, their time and accuracy properties.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("geojson", ["--waypoints", "--uere", "5"], data)
}
