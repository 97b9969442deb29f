// gpx2fix --format owntracks on OwnTracks: Recorder .rec files and location messages.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("owntracks", ["--waypoints", "--uere", "5"], data)
}
