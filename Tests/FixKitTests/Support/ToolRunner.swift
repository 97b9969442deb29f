import Foundation
import Testing

/// Runs the built executables the way a user does: real files, real pipes, exit status.
enum Tools {
    /// Where SwiftPM put the executables: beside the test bundle.
    static let productsDirectory: URL = {
        #if os(macOS)
            for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
                return bundle.bundleURL.deletingLastPathComponent()
            }
            return Bundle.main.bundleURL
        #else
            return Bundle.main.bundleURL
        #endif
    }()

    /// The package's root directory (this file is Tests/FixKitTests/Support/ToolRunner.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// The shared corpus beside the project (`../shared/corpus`), or `FIXKIT_CORPUS`; absent in
    /// a user's own clone, where the tests that need it are skipped.
    static let corpus: URL? = {
        let env = ProcessInfo.processInfo.environment["FIXKIT_CORPUS"]
        let url = env.map { URL(fileURLWithPath: $0) }
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("MANIFEST.md").path) ? url : nil
    }()

    static let corpusMissing = "../shared/corpus is absent (a clone without the shared corpus): corpus tests skipped"

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var out: String { String(decoding: stdout, as: UTF8.self) }
        var lines: [String] { out.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    }

    /// Runs `tool` with `arguments`, feeding `stdin` (or nothing), and waits for it.
    static func run(_ tool: String, _ arguments: [String] = [], stdin: Data? = nil, in directory: URL? = nil) throws -> Result {
        try runExecutable(productsDirectory.appendingPathComponent(tool), arguments, stdin: stdin, in: directory)
    }

    static func runExecutable(_ executable: URL, _ arguments: [String], stdin: Data? = nil, in directory: URL? = nil) throws -> Result {
        let dir = TestScratch.root.appendingPathComponent("fixkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inURL = dir.appendingPathComponent("in")
        let outURL = dir.appendingPathComponent("out")
        let errURL = dir.appendingPathComponent("err")
        try (stdin ?? Data()).write(to: inURL)
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Runs a shell pipeline with bash (`set -o pipefail` is not set: callers read PIPESTATUS).
    static func shell(_ script: String) throws -> Result {
        var env = "PATH=\(productsDirectory.path):$PATH; "
        env += script
        return try runExecutable(URL(fileURLWithPath: "/bin/bash"), ["-c", env])
    }

    /// Whether a command is on PATH (xmllint, python3, gpsbabel).
    static func which(_ command: String) -> URL? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let url = URL(fileURLWithPath: String(dir)).appendingPathComponent(command)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// Parses NDJSON output into objects, for comparisons by value.
    static func objects(_ data: Data) throws -> [[String: Any]] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let dict = object as? [String: Any] else { throw TestFailure("not an object: \(line)") }
            return dict
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
