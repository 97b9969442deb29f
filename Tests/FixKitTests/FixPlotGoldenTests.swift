import Foundation
import Testing

/// fixplot against pictures recorded on purpose: Tests/Fixtures/fixplot/cases.tsv lists each
/// case; `NAME.svg` (or `.html`) is the expected output byte for byte, `NAME.err` the expected
/// standard error. With FIXKIT_RECORD=1 the cases write their outputs instead (then look at
/// them, and at `git diff`).
struct FixPlotGoldenTests {
    static let directory = Tools.fixtures.appendingPathComponent("fixplot")
    static let cases = GoldenCase.load(directory)
    static let recording = ProcessInfo.processInfo.environment["FIXKIT_RECORD"] == "1"

    @Test func tableIsNotEmpty() {
        #expect(FixPlotGoldenTests.cases.count >= 7)
    }

    @Test(arguments: FixPlotGoldenTests.cases)
    func golden(_ c: GoldenCase) throws {
        let result = try Tools.run("fixplot", c.arguments + [c.file], in: c.directory)
        let ext = c.arguments.contains("--html") ? "html" : "svg"
        if FixPlotGoldenTests.recording {
            try result.stdout.write(to: c.directory.appendingPathComponent(c.expected + "." + ext))
            let err = c.directory.appendingPathComponent(c.expected + ".err")
            if result.stderr.isEmpty {
                try? FileManager.default.removeItem(at: err)
            } else {
                try Data(result.stderr.utf8).write(to: err)
            }
            return
        }
        let expected = try #require(try c.expectedText(ext), "\(c.expected).\(ext) is missing: record it")
        #expect(result.out == expected, "\(c.expected): the picture differs from \(c.expected).\(ext)")
        let expectedErr = try c.expectedText("err") ?? ""
        #expect(result.stderr == expectedErr)
        #expect(result.status == (expectedErr.isEmpty ? 0 : 1))
    }

    /// The same input gives the same bytes, run after run (no dictionary order, no clock).
    @Test func sameInputSameBytes() throws {
        let dir = FixPlotGoldenTests.directory
        for args in [
            ["--fences", "fences.json", "--html", "walk.ndjson"], ["day.ndjson", "trace.ndjson", "rejects.ndjson"],
        ] {
            let a = try Tools.run("fixplot", args, in: dir)
            let b = try Tools.run("fixplot", args, in: dir)
            #expect(a.stdout == b.stdout)
            #expect(!a.stdout.isEmpty)
        }
    }

    /// Bad lines are reported with their line and skipped; everything else is still drawn.
    @Test func badLinesAreReportedAndTheRestDrawn() throws {
        let r = try Tools.run("fixplot", ["rejects.ndjson"], in: FixPlotGoldenTests.directory)
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("fixplot: rejects.ndjson:") && $0.hasSuffix("; line skipped") })
        #expect(lines.map { $0.split(separator: ":")[2] } == ["5", "9", "12"])
        let svg = try SVGDocument(r.stdout)
        // 17 fixes passed are the trace; the 24 rejects are all marked (none share a pixel).
        #expect(svg.all("g", class: "trace").first?.attributes["data-fixes"] == "17")
        let reasons = svg.all("g", class: "reject").map { $0.attributes["data-reason"] ?? "" }
        #expect(reasons.count == 24)
        #expect(Set(reasons) == ["move", "hacc", "speed", "age"])
        #expect(reasons.filter { $0 == "hacc" }.count == 2)
    }

    @Test func strictStopsAtTheFirstBadLineAndDrawsNothing() throws {
        let r = try Tools.run("fixplot", ["--strict", "rejects.ndjson"], in: FixPlotGoldenTests.directory)
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        (["--width", "10"], "--width 10 is out of range"),
        (["--color", "rainbow"], "--color 'rainbow' is not a colouring"),
        (["--enter", "0.5", "--exit", "0.6"], "--exit 0.6 must be below --enter 0.5"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
    ])
    func badUsageExitsTwoAndWritesNothing(_ args: [String], _ message: String) throws {
        let r = try Tools.run("fixplot", args, stdin: Data())
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("fixplot: \(message)"), "\(r.stderr)")
    }

    @Test func unreadableFencesExitTwo() throws {
        let r = try Tools.run(
            "fixplot", ["--fences", "/nonexistent/f.json", "walk.ndjson"], in: FixPlotGoldenTests.directory)
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("fixplot: cannot read --fences /nonexistent/f.json"))
    }

    @Test func missingInputIsReportedAndTheRestDrawn() throws {
        let r = try Tools.run("fixplot", ["/nonexistent/a.ndjson", "pair.ndjson"], in: FixPlotGoldenTests.directory)
        #expect(r.status == 1)
        #expect(r.stderr == "fixplot: /nonexistent/a.ndjson: cannot read: No such file or directory\n")
        let svg = try SVGDocument(r.stdout)
        #expect(svg.all("g", class: "trace").compactMap { $0.attributes["data-trace"] } == ["pair-1", "pair-2"])
    }

    @Test func onlyDrawsOneTrace() throws {
        let r = try Tools.run("fixplot", ["--only", "pair-1", "pair.ndjson"], in: FixPlotGoldenTests.directory)
        #expect(r.status == 0)
        let svg = try SVGDocument(r.stdout)
        #expect(svg.all("g", class: "trace").compactMap { $0.attributes["data-trace"] } == ["pair-1"])
    }

    @Test func emptyInputIsAnEmptyPicture() throws {
        let r = try Tools.run("fixplot", [], stdin: Data())
        #expect(r.status == 0)
        let svg = try SVGDocument(r.stdout)
        #expect(svg.all("text").contains { $0.text == "nothing to draw" })
        #expect(svg.all("g", class: "trace").isEmpty)
    }

    /// The spool between the passes is unlinked at once: nothing is left in TMPDIR.
    @Test func leavesNoTemporaryFiles() throws {
        let dir = TestScratch.root.appendingPathComponent("fixplot-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let walk = FixPlotGoldenTests.directory.appendingPathComponent("walk.ndjson").path
        let r = try Tools.shell("TMPDIR='\(dir.path)' fixplot '\(walk)' > /dev/null; echo $?")
        #expect(r.out == "0\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func help() throws {
        let r = try Tools.run("fixplot", ["--help"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("Usage: fixplot [OPTION]... [FILE]..."))
    }
}
