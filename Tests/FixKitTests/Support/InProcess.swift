import Foundation

@testable import FixKit

/// Runs a tool's library code in this process (where a test can reach inside it: cap gpx2fix's
/// read sizes, lower visits' parking threshold), with its output and messages going to files
/// in a scratch directory of their own, as they would to a user's terminal.
enum InProcess {
    /// Calls `body` with a context whose output and diagnostics (`tool`'s name in messages)
    /// write to files; returns what they got and the exit status the diagnostics give.
    static func run(_ tool: String, _ body: (ToolContext) throws -> Void) throws -> (
        out: Data, err: Data, status: Int32
    ) {
        let dir = TestScratch.root.appendingPathComponent("fixkit-in-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outPath = dir.appendingPathComponent("out").path
        let errPath = dir.appendingPathComponent("err").path
        let outFD = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let errFD = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(outFD)
            close(errFD)
        }
        let output = OutputSink(fd: outFD)
        let diagnostics = Diagnostics(tool: tool, strict: false, fd: errFD)
        try body(ToolContext(output: output, diagnostics: diagnostics))
        try output.flush()
        return (
            try Data(contentsOf: URL(fileURLWithPath: outPath)), try Data(contentsOf: URL(fileURLWithPath: errPath)),
            diagnostics.exitStatus
        )
    }
}
