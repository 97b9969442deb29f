@testable import FixKit

// Fix records (NDJSON): a line that decodes must encode to a line that decodes to the same
// fix, and the NDJSON tools must take anything.
#if canImport(Glibc)
    import Glibc
#endif

let fencesPath: String = {
    let path = "/tmp/fixkit-fuzz-fences-\(getpid()).json"
    let text = #"[{"id":"a","lat":0,"lon":0,"radius":100},{"id":"b","lat":51.5,"lon":-0.12,"radius":50}]"#
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = text.withCString { write(fd, $0, strlen($0)) }
    close(fd)
    return path
}()

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    var decoder = FixDecoder()
    for line in data.split(separator: 0x0A) {
        guard let fix = try? decoder.decode(UnsafeBufferPointer(rebasing: line)) else { continue }
        var out: [UInt8] = []
        FixEncoder.encode(fix, into: &out)
        guard out.last == 0x0A else { fuzzFailure("an encoded fix does not end its line") }
        out.removeLast()
        var again = FixDecoder()
        guard let back = out.withUnsafeBufferPointer({ try? again.decode($0) }) else {
            fuzzFailure("the encoding of a fix does not decode: \(String(decoding: out, as: UTF8.self))")
        }
        var out2: [UInt8] = []
        FixEncoder.encode(back, into: &out2)
        out2.removeLast()
        guard out2 == out else {
            fuzzFailure(
                "encode(decode(encode(fix))) differs: \(String(decoding: out, as: UTF8.self)) vs \(String(decoding: out2, as: UTF8.self))"
            )
        }
    }
    let runs: [(String, Fuzz.Run)] = [
        ("fixfilter", Fuzz.tool(FixFilter.self, ["--stats"], data)),
        ("visits", Fuzz.tool(VisitsTool.self, [], data)),
        ("visits --geojson", Fuzz.tool(VisitsTool.self, ["--geojson"], data)),
        ("fix2gpx", Fuzz.tool(Fix2Gpx.self, [], data)),
        ("fix2gpx --xcode", Fuzz.tool(Fix2Gpx.self, ["--xcode", "--pace", "1.4"], data)),
        ("fencerule", Fuzz.tool(FenceRuleTool.self, ["--fences", fencesPath, "--rule", "adaptive"], data)),
        (
            "fencerule --trace",
            Fuzz.tool(FenceRuleTool.self, ["--fences", fencesPath, "--trace", "--limit", "2"], data)
        ),
    ]
    for (name, run) in runs {
        Fuzz.expectStatus(run, name)
        Fuzz.expectPrintableMessages(run, name)
    }
}
