// Differential through the reader seam: the same bytes whole and cut in pieces (sizes drawn
// from the input) must give the same output, messages and exit status, for gpx2fix with the
// format recognised (InputFormats.open, then whichever reader InputFormats.all picks; seeds
// from every format) and for an NDJSON tool (the line reader every other tool shares). A
// pipe or a live feed cuts input anywhere. The per-format targets do the same with the
// format forced.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    let chunks = Fuzz.chunkSizes(for: data)
    let tools: [(String, (([Int]?) -> Fuzz.Run))] = [
        ("gpx2fix", { Fuzz.tool(Gpx2Fix.self, ["--waypoints"], data, chunks: $0) }),
        ("fixfilter", { Fuzz.tool(FixFilter.self, ["--stats"], data, chunks: $0) }),
    ]
    for (name, run) in tools {
        let whole = run(nil)
        Fuzz.expectStatus(whole, name)
        Fuzz.expectPrintableMessages(whole, name)
        Fuzz.expectSame(whole, run(chunks), "\(name), cut as \(chunks),")
    }
}
