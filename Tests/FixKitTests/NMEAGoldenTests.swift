import Foundation
import Testing

/// gpx2fix against hand-checked golden outputs for NMEA 0183 logs: Tests/Fixtures/nmea/cases.tsv
/// lists each case, its input and arguments; `NAME.out` and `NAME.err` beside it are the
/// expected standard output and standard error. The inputs are corpus logs copied byte for
/// byte (CR-only, CR CR LF, NUL bytes, binary frames); see Tests/Fixtures/nmea/README.md.
struct NMEAGoldenTests {
    static let directory = Tools.fixtures.appendingPathComponent("nmea")
    static let cases = GoldenCase.load(directory)

    @Test func tableIsNotEmpty() {
        #expect(NMEAGoldenTests.cases.count >= 8)
    }

    /// Every case exits 0, with or without something on stderr: a bad checksum, a malformed
    /// sentence or a log without a date is noise NMEA expects, summed up on stderr.
    @Test(arguments: NMEAGoldenTests.cases)
    func golden(_ c: GoldenCase) throws {
        let result = try Tools.run("gpx2fix", c.arguments + [c.file], in: c.directory)
        let expectedOut = try c.expectedText("out")
        let expectedErr = try c.expectedText("err")
        #expect(result.out == expectedOut)
        #expect(result.stderr == expectedErr)
        #expect(result.status == 0)
    }

    /// The inputs must be the corpus's bytes: a checkout that normalised line endings (CR-only
    /// to LF, CR CR LF to LF) would test something else and still pass the framing cases.
    @Test func inputsKeepTheirLineEndings() throws {
        func bytes(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: NMEAGoldenTests.directory.appendingPathComponent(name)))
        }
        let garmin = try bytes("marine-api__src__test__resources__data__Garmin-GPS76.txt")
        #expect(garmin.contains(13) && !garmin.contains(10), "Garmin-GPS76.txt should have CR-only line ends")
        let telit = try bytes("gpsd__test__daemon__telit-pls83-w.log")
        let crcrlf = (0..<(telit.count - 2)).contains { telit[$0] == 13 && telit[$0 + 1] == 13 && telit[$0 + 2] == 10 }
        #expect(crcrlf, "telit-pls83-w.log should have CR CR LF line ends")
        let coldboot = try bytes("gpsd__test__daemon__gp-320fw-2019-04-07-coldboot.log")
        #expect(coldboot.filter { $0 == 0 }.count == 12, "coldboot.log should have its 12 NUL bytes")
    }

    /// The same log, read with each line ending the rules allow, gives the same fixes: the
    /// telit log's CR CR LF rewritten as LF, CRLF and CR only.
    @Test(arguments: ["\n", "\r\n", "\r", "\r\r\n"])
    func lineEndingsDoNotMatter(_ ending: String) throws {
        let original = try Data(contentsOf: NMEAGoldenTests.directory.appendingPathComponent("gpsd__test__daemon__telit-pls83-w.log"))
        let text = String(decoding: original, as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        let rewritten = Data((lines.joined(separator: ending) + ending).utf8)
        let expected = try String(contentsOf: NMEAGoldenTests.directory.appendingPathComponent("telit-crcrlf.out"), encoding: .utf8)
        let result = try Tools.run("gpx2fix", ["-"], stdin: rewritten)
        #expect(result.status == 0)
        // Standard input has no file name, so its fixes carry no trace.
        let trace = ",\"trace\":\"gpsd__test__daemon__telit-pls83-w.log\""
        #expect(result.out == expected.replacingOccurrences(of: trace, with: ""))
    }
}
