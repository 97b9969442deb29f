import Foundation
import Testing

/// Every example in fixplot(1) runs as shown: each `$ ` command of its EXAMPLES (with the
/// indented lines that continue it) is run with the built tools on PATH, in a scratch folder
/// holding a copy of samples/, and what it prints must be the lines shown under it. Commands on
/// the reader's own files (`rides/`) are only shown; the Chromium one runs when it is installed.
struct FixPlotManExamplesTests {
    struct Example {
        var command: String
        var output: [String]
    }

    static func examples() throws -> [Example] {
        let page = try String(contentsOf: Tools.packageRoot.appendingPathComponent("man/fixplot.1"), encoding: .utf8)
        guard let start = page.range(of: ".Sh EXAMPLES"), let end = page.range(of: ".Sh DIAGNOSTICS") else {
            throw TestFailure("fixplot.1 has no EXAMPLES")
        }
        var out: [Example] = []
        var inBlock = false
        for raw in page[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.replacingOccurrences(of: "\\e", with: "\\")
            if line.hasPrefix(".Bd -literal") {
                inBlock = true
            } else if line.hasPrefix(".Ed") {
                inBlock = false
            } else if inBlock {
                if line.hasPrefix("$ ") {
                    out.append(Example(command: String(line.dropFirst(2)), output: []))
                } else if line.hasPrefix(" "), let last = out.indices.last, out[last].output.isEmpty {
                    out[last].command += "\n" + line
                } else if let last = out.indices.last {
                    out[last].output.append(line)
                }
            }
        }
        return out
    }

    @Test func everyExampleRunsAsShown() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 10)
        let dir = TestScratch.root.appendingPathComponent("fixplot-man-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(
            at: Tools.packageRoot.appendingPathComponent("samples"), to: dir.appendingPathComponent("samples"))
        let chromium = FixPlotBrowserTests.chromium != nil
        var ran = 0
        for e in examples {
            if e.command.contains("rides/") { continue }
            if e.command.hasPrefix("chromium"), !chromium { continue }
            let r = try Tools.shell("cd '\(dir.path)' && set -o pipefail && " + e.command)
            #expect(r.status == 0, "\(e.command): \(r.stderr)")
            #expect(r.lines == e.output, "\(e.command)")
            ran += 1
        }
        #expect(ran >= 9)
        for file in ["walk.html", "day.html", "cross.html"] {
            let page = try Data(contentsOf: dir.appendingPathComponent(file))
            #expect(try SVGDocument(page).all("g", class: "trace").count >= 1, "\(file)")
        }
        if chromium {
            let png = try Data(contentsOf: dir.appendingPathComponent("walk.png"))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000)
        }
    }
}
