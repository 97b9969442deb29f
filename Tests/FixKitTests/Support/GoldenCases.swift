import Foundation
import Testing

/// A golden case read from a fixture directory's `cases.tsv`: one row per case, tab-separated
/// `expected`, `file` and optional space-separated `args`; `#` starts a comment. The expected
/// outputs sit beside the input as `EXPECTED.out` and `EXPECTED.err`.
struct GoldenCase: CustomTestStringConvertible, Sendable {
    var expected: String
    var file: String
    var arguments: [String]
    var directory: URL

    var testDescription: String { "\(expected) (\(file) \(arguments.joined(separator: " ")))" }

    /// The cases of `directory` (a folder under Tests/Fixtures); none when the table is missing.
    static func load(_ directory: URL) -> [GoldenCase] {
        guard let table = try? String(contentsOf: directory.appendingPathComponent("cases.tsv"), encoding: .utf8) else {
            return []
        }
        return table.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { row in
            let cols = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let args = cols.count > 2 ? cols[2].split(separator: " ").map(String.init) : []
            return GoldenCase(expected: cols[0], file: cols[1], arguments: args, directory: directory)
        }
    }

    /// The expected file with this extension (`out`, `err`, `rejects`), if there is one.
    func expectedText(_ ext: String) throws -> String? {
        let url = directory.appendingPathComponent(expected + "." + ext)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try String(contentsOf: url, encoding: .utf8)
    }
}
