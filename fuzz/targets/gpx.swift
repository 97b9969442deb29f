// gpx2fix on GPX documents (seeds: GPX files; dictionary: GPX's elements and attributes).
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    let run = Fuzz.tool(Gpx2Fix.self, ["--waypoints"], data)
    Fuzz.expectStatus(run, "gpx2fix")
    Fuzz.expectPrintableMessages(run, "gpx2fix")
}
