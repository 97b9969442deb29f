import Foundation
import Testing

/// gpx2fix against hand-checked golden outputs: Tests/Fixtures/gpx/cases.tsv lists each case,
/// its input and arguments; `NAME.out` and `NAME.err` beside it are the expected standard
/// output and standard error.
struct GPXGoldenTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var expected: String
        var file: String
        var arguments: [String]
        var testDescription: String { "\(expected) (\(file) \(arguments.joined(separator: " ")))" }
    }

    static let directory = Tools.fixtures.appendingPathComponent("gpx")

    static let cases: [Case] = {
        guard let table = try? String(contentsOf: directory.appendingPathComponent("cases.tsv"), encoding: .utf8) else {
            return []
        }
        return table.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { row in
            let cols = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let args = cols.count > 2 ? cols[2].split(separator: " ").map(String.init) : []
            return Case(expected: cols[0], file: cols[1], arguments: args)
        }
    }()

    @Test func tableIsNotEmpty() {
        #expect(GPXGoldenTests.cases.count >= 10)
    }

    @Test(arguments: GPXGoldenTests.cases)
    func golden(_ c: Case) throws {
        let result = try Tools.run("gpx2fix", c.arguments + [c.file], in: GPXGoldenTests.directory)
        let expectedOut = try String(contentsOf: GPXGoldenTests.directory.appendingPathComponent(c.expected + ".out"), encoding: .utf8)
        let expectedErr = try String(contentsOf: GPXGoldenTests.directory.appendingPathComponent(c.expected + ".err"), encoding: .utf8)
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
