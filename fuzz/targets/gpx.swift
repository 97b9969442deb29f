// gpx2fix --format gpx on GPX documents (seeds: GPX files; dictionary: GPX's elements and
// attributes), with --waypoints and --uere so that every path of the vocabulary runs.
// Forced, whole and cut in pieces, which must agree; see Fuzz.reader.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    Fuzz.reader("gpx", ["--waypoints", "--uere", "5"], data)
}
