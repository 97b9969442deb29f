import Foundation
import Testing

@testable import FixKit

/// The man pages cannot drift from the option tables that drive parsing and --help: every
/// option a tool parses is documented in its section-1 page, and every page lints clean.
struct DocumentationTests {
    static let tools: [ToolDescription] = [
        Gpx2Fix.description, Fix2Gpx.description, FixFilter.description, FenceRuleTool.description,
        FixSim.description, VisitsTool.description, FixPlotTool.description, FixStatsTool.description,
    ]

    @Test(arguments: DocumentationTests.tools.map(\.name))
    func everyOptionIsInTheManPage(_ tool: String) throws {
        let page = try String(
            contentsOf: Tools.packageRoot.appendingPathComponent("man/\(tool).1"), encoding: .utf8)
        let description = try #require(Self.tools.first { $0.name == tool })
        for option in description.options {
            #expect(page.contains("Fl \\-\(option.name)"), "man/\(tool).1 does not document --\(option.name)")
        }
        #expect(page.contains(".Dt \(tool.uppercased()) 1"))
    }

    @Test(.enabled(if: Tools.which("mandoc") != nil, "needs mandoc"))
    func manPagesLintClean() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: Tools.packageRoot.appendingPathComponent("man").path)
            .filter { $0.hasSuffix(".1") || $0.hasSuffix(".5") }
        #expect(pages.count == 9)
        for page in pages {
            let r = try Tools.runExecutable(
                Tools.which("mandoc")!, ["-Tlint", Tools.packageRoot.appendingPathComponent("man/\(page)").path])
            // Cross-references to the kit's other pages are not installed where mandoc looks.
            let problems = (r.out + r.stderr).split(separator: "\n").filter { !$0.contains("referenced manual not found") }
            #expect(problems.isEmpty, "\(page): \(problems.joined(separator: "\n"))")
        }
    }
}
