import Foundation
import Testing

/// gpx2fix against hand-checked golden outputs: Tests/Fixtures/gpx/cases.tsv lists each case,
/// its input and arguments; `NAME.out` and `NAME.err` beside it are the expected standard
/// output and standard error.
struct GPXGoldenTests {
    static let directory = Tools.fixtures.appendingPathComponent("gpx")
    static let cases = GoldenCase.load(directory)

    @Test func tableIsNotEmpty() {
        #expect(GPXGoldenTests.cases.count >= 10)
    }

    @Test(arguments: GPXGoldenTests.cases)
    func golden(_ c: GoldenCase) throws {
        let result = try Tools.run("gpx2fix", c.arguments + [c.file], in: c.directory)
        let expectedOut = try c.expectedText("out")
        let expectedErr = try c.expectedText("err") ?? ""
        #expect(result.out == expectedOut)
        #expect(result.stderr == expectedErr)
        #expect(result.status == (expectedErr.isEmpty ? 0 : 1))
    }

    /// A billion-laughs file must neither grow memory nor output: it is refused at the first
    /// reference, and the one point before it is all that is written.
    @Test func entityExpansionIsRefused() throws {
        let result = try Tools.run("gpx2fix", ["billion-laughs.gpx"], in: GPXGoldenTests.directory)
        #expect(result.stdout.count < 200)
        #expect(!result.out.contains("lol"))
        #expect(result.stderr.contains("billion-laughs.gpx:17:"))
    }

    /// An external entity must never read a local file.
    @Test func externalEntitiesNeverReadFiles() throws {
        for file in ["xxe.gpx", "external-dtd.gpx"] {
            let result = try Tools.run("gpx2fix", [file], in: GPXGoldenTests.directory)
            #expect(!result.out.contains("root:"))
            #expect(!result.stderr.contains("root:"))
        }
    }

    /// A file cut at any byte gives the points completed before the cut, then an error naming
    /// the file and a line, and exit 1; never a crash.
    @Test func truncatedAtEveryByte() throws {
        let full = try Data(contentsOf: Tools.fixtures.appendingPathComponent("gpx/gpx10.gpx"))
        let complete = try Tools.run("gpx2fix", ["-"], stdin: full)
        #expect(complete.status == 0)
        let all = complete.lines
        for cut in stride(from: 0, to: full.count - 8, by: 7) {
            let r = try Tools.run("gpx2fix", ["-"], stdin: full.prefix(cut))
            #expect(r.status == 1, "cut at \(cut)")
            #expect(r.stderr.hasPrefix("gpx2fix: -"), "cut at \(cut): \(r.stderr)")
            // Only whole points, and exactly the ones before the cut.
            #expect(Array(all.prefix(r.lines.count)) == r.lines, "cut at \(cut)")
        }
    }
}
