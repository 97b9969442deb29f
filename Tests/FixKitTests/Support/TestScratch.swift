import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where tests put their temporary files: one directory per test process, under the system's
/// temporary directory, removed with everything in it when the process exits. Tests that
/// clean up after themselves still do; this catches the ones that cannot (a helper shared by
/// many tests, an `#require` that throws before a `defer` is reached) and a run stopped
/// half-way leaves one directory, not dozens.
enum TestScratch {
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fixkit-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestScratch.root) }
        return root
    }()

    /// Writes text the way the tests need it. Not atomically: Foundation's atomic write on
    /// Linux makes a `TemporaryDirectory.XXXXXX` beside the system's temporary files and
    /// leaves it behind.
    static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }
}
