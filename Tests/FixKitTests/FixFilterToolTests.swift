import Foundation
import Testing

@testable import FixKit

/// fixfilter run as a user runs it: golden cases (Tests/Fixtures/fixfilter/cases.tsv), the
/// rejects file, options, presets, and byte-for-byte pass-through.
struct FixFilterToolTests {
    static let directory = Tools.fixtures.appendingPathComponent("fixfilter")

    static let cases = GoldenCase.load(directory)

    @Test(arguments: FixFilterToolTests.cases)
    func golden(_ c: GoldenCase) throws {
        let rejects = TestScratch.root.appendingPathComponent("fixkit-rejects-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: rejects) }
        let r = try Tools.run("fixfilter", c.arguments.map { $0 == "REJECTS" ? rejects.path : $0 } + [c.file], in: c.directory)
        #expect(r.out == (try c.expectedText("out")))
        #expect(r.stderr == (try c.expectedText("err")))
        #expect(r.status == 1)  // both cases hold two bad lines
        if let expectedRejects = try c.expectedText("rejects") {
            #expect(try String(contentsOf: rejects, encoding: .utf8) == expectedRejects)
        }
    }

    /// Every line that passes unmodified is written byte for byte, and passed plus rejected is
    /// every fix read, over thousands of generated fixes with unknown members.
    @Test func passThroughIsByteForByte() throws {
        var g = FixGenerator(seed: 11)
        var lines: [String] = []
        for _ in 0..<4000 {
            var f = g.next()
            f.course = nil  // so no line is edited
            var s = FixEncoder.line(f)
            s.removeLast()
            // Odd spacing a user's script might write.
            if lines.count % 3 == 0 { s = s.replacingOccurrences(of: ",\"lon\"", with: " , \"lon\"") }
            lines.append(s)
        }
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let rejects = TestScratch.root.appendingPathComponent("fixkit-rejects-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: rejects) }
        let r = try Tools.run("fixfilter", ["--rejects", rejects.path], stdin: input)
        #expect(r.status == 0)
        let inputSet = Set(lines)
        for line in r.lines { #expect(inputSet.contains(line), "changed: \(line)") }
        let rejected = try String(contentsOf: rejects, encoding: .utf8).split(separator: "\n")
        #expect(r.lines.count + rejected.count == lines.count)
        for line in rejected {
            #expect(line.hasSuffix(",\"reason\":\"hacc\"}") || line.hasSuffix(",\"reason\":\"age\"}") || line.hasSuffix(",\"reason\":\"speed\"}") || line.hasSuffix(",\"reason\":\"move\"}"))
        }
    }

    @Test(arguments: [
        (["--max-hacc", "lots"], "--max-hacc 'lots' is not a number or 'off'"),
        (["--max-age", "0"], "--max-age 0 is out of range"),
        (["--course", "maybe"], "--course 'maybe' is not a mode: expected strip, reject, keep or off"),
        (["--preset", "jogging"], "--preset 'jogging' is not a preset"),
        (["--now", "later"], "--now 'later' is not an RFC 3339 time"),
        (["--rejects", "/nonexistent/dir/r.ndjson"], "cannot write --rejects /nonexistent/dir/r.ndjson"),
    ])
    func badOptionsExitTwo(_ args: [String], _ message: String) throws {
        let r = try Tools.run("fixfilter", args, stdin: Data("{\"lat\":1,\"lon\":2}\n".utf8))
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("fixfilter: \(message)"), "\(r.stderr)")
    }

    /// Presets set the values the man page documents; options given explicitly win.
    @Test func presets() throws {
        func rules(_ args: [String]) throws -> FilterRules {
            try FixFilter(options: ParsedOptions(arguments: args, table: FixFilter.description.options)).rules
        }
        let sig = try rules(["--preset", "significant-change"])
        #expect(sig.minMove == 500 && sig.maxHacc == 1000)
        let fit = try rules(["--preset", "fitness"])
        #expect(fit.maxSpeed == 25 && fit.minMove == 5)
        #expect(try rules(["--preset", "automotive"]).maxSpeed == 70)
        #expect(try rules(["--preset", "airborne"]).maxSpeed == 340)
        let both = try rules(["--preset", "fitness,hundred-meters", "--min-move", "off"])
        #expect(both.maxHacc == 100 && both.maxSpeed == 25 && both.minMove == nil)
    }

    /// The rejects file is complete even when --strict stops the run, and a failure to write it
    /// names it.
    @Test func rejectsFileSurvivesStrictAndReportsItsOwnErrors() throws {
        let rejects = TestScratch.root.appendingPathComponent("fixkit-rejects-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: rejects) }
        let input = Data("{\"lat\":1,\"lon\":2,\"hacc\":500}\nnot json\n".utf8)
        let r = try Tools.run("fixfilter", ["--strict", "--rejects", rejects.path], stdin: input)
        #expect(r.status == 1)
        #expect(try String(contentsOf: rejects, encoding: .utf8) == "{\"lat\":1,\"lon\":2,\"hacc\":500,\"reason\":\"hacc\"}\n")
        if FileManager.default.fileExists(atPath: "/dev/full") {
            let full = try Tools.run("fixfilter", ["--rejects", "/dev/full"], stdin: Data("{\"lat\":1,\"lon\":2,\"hacc\":500}\n".utf8))
            #expect(full.status == 1)
            #expect(full.stderr == "fixfilter: writing --rejects /dev/full failed: No space left on device\n")
        }
    }

    /// Fields of fixes from many traces do not mix: a fix near another trace's last fix passes.
    @Test func statePerTrace() throws {
        let input = """
            {"lat":10,"lon":10,"trace":"a"}
            {"lat":10,"lon":10,"trace":"b"}
            {"lat":10,"lon":10.00001,"trace":"a"}
            {"lat":10,"lon":10}

            """
        let r = try Tools.run("fixfilter", [], stdin: Data(input.utf8))
        #expect(r.lines == [#"{"lat":10,"lon":10,"trace":"a"}"#, #"{"lat":10,"lon":10,"trace":"b"}"#, #"{"lat":10,"lon":10}"#])
    }
}
