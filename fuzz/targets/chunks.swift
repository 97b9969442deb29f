// Differential: the same bytes whole and cut in pieces (sizes drawn from the input) must
// give the same output, messages and exit status, for gpx2fix (every format it detects) and
// for an NDJSON tool (the line reader every other tool shares). A pipe or a live feed cuts
// input anywhere.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    let chunks = Fuzz.chunkSizes(for: data)
    let tools: [(String, (([Int]?) -> Fuzz.Run))] = [
        ("gpx2fix", { Fuzz.tool(Gpx2Fix.self, ["--waypoints"], data, chunks: $0) }),
        ("fixfilter", { Fuzz.tool(FixFilter.self, ["--stats"], data, chunks: $0) }),
    ]
    for (name, run) in tools {
        let whole = run(nil)
        let cut = run(chunks)
        guard whole == cut else {
            fuzzFailure(
                "\(name): cut as \(chunks) the input gives other results:\n--- whole (\(whole.status))\n\(String(decoding: whole.out + whole.err, as: UTF8.self))\n--- cut (\(cut.status))\n\(String(decoding: cut.out + cut.err, as: UTF8.self))"
            )
        }
    }
}
