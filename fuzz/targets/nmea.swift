// gpx2fix on NMEA 0183 logs, with --date and --uere so that every path of the assembler runs.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    let run = Fuzz.tool(Gpx2Fix.self, ["--date", "2026-01-01", "--uere", "5"], data)
    Fuzz.expectStatus(run, "gpx2fix")
    Fuzz.expectPrintableMessages(run, "gpx2fix")
    // Every line gpx2fix writes is a fix that reads back.
    var decoder = FixDecoder()
    for line in run.out.split(separator: 0x0A) {
        let ok = line.withUnsafeBufferPointer { (try? decoder.decode($0)) != nil }
        if !ok { fuzzFailure("gpx2fix wrote a line that is not a fix: \(String(decoding: line, as: UTF8.self))") }
    }
}
