// gpsd's JSON reports (gpspipe -w), one line at a time through GPSDReader, then the whole
// input through gpx2fix --format gpsd, whole and cut in pieces (see Fuzz.reader).
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    var reader = GPSDReader(fileName: "fuzz")
    for line in data.split(separator: 0x0A) {
        _ = reader.report(UnsafeBufferPointer(rebasing: line))
    }
    Fuzz.reader("gpsd", ["--uere", "5"], data)
}
