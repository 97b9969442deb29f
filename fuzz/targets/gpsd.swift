// gpsd's JSON reports (gpspipe -w), one line at a time through GPSDReader, then the whole
// input through gpx2fix.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    var reader = GPSDReader(fileName: "fuzz")
    for line in data.split(separator: 0x0A) {
        _ = reader.report(UnsafeBufferPointer(rebasing: line))
    }
    let run = Fuzz.tool(Gpx2Fix.self, [], data)
    Fuzz.expectStatus(run, "gpx2fix")
    Fuzz.expectPrintableMessages(run, "gpx2fix")
}
