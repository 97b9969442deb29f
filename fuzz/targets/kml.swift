// gpx2fix --format kml on KML (Google Earth): Placemarks, LineStrings, Points and gx:Track, through the XML door.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("kml", ["--waypoints", "--uere", "5"], data)
}
