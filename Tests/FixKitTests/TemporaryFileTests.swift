import Foundation
import Testing

@testable import FixKit

/// `TemporaryFile` (the one owner of the temporary files of gpx2fix's waypoints, fix2gpx's
/// traces and fixplot's second pass): what is written comes back, nothing is left in the
/// directory, and the descriptor is closed when the owner goes away, whatever way (the
/// waypoint spool dropped without `discard` or `drain`, as when `--strict` ends a run).
@Suite("TemporaryFile: bytes back, nothing left behind, closed when released")
struct TemporaryFileTests {
    static let fdDirectory = "/proc/self/fd"
    static let hasProcFD = FileManager.default.fileExists(atPath: fdDirectory)

    /// The open descriptors of this process whose file's name has `prefix` (an unlinked file
    /// shows as `/tmp/PREFIX-XXXXXX (deleted)`).
    static func openFiles(named prefix: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? []
        return fds.filter { fd in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(fd)")) ?? ""
            return (target as NSString).lastPathComponent.hasPrefix(prefix + "-")
        }.count
    }

    @Test("bytes appended come back from any offset, in chunks, and nothing is left in the directory")
    func roundTrip() throws {
        let file = try TemporaryFile(prefix: "fixkit-test-roundtrip")
        var expected: [UInt8] = []
        var rng = SplitMix(seed: 9)
        for _ in 0..<50 {
            let piece = (0..<Int(rng.next() % 5000)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            try file.append(piece[...])
            expected += piece
        }
        #expect(file.size == Int64(expected.count))
        var back: [UInt8] = []
        try file.forEachChunk(from: 0, count: file.size) { back += $0 }
        #expect(back == expected)
        var middle: [UInt8] = []
        try file.forEachChunk(from: 1234, count: 70_000) { middle += $0 }
        #expect(middle == Array(expected[1234..<71234]))
        #expect(throws: TemporaryFileCutShort.self) {
            try file.forEachChunk(from: file.size - 10, count: 20) { _ in }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temporaryDirectory())
        #expect(!left.contains { $0.hasPrefix("fixkit-test-roundtrip-") }, "the file was not unlinked")
    }

    @Test(
        "the descriptor is closed when the last owner goes away",
        .enabled(if: TemporaryFileTests.hasProcFD, "no /proc/self/fd to count descriptors"))
    func closedOnRelease() throws {
        let prefix = "fixkit-test-release"
        do {
            let file = try TemporaryFile(prefix: prefix)
            try file.append([UInt8]([1, 2, 3])[...])
            #expect(Self.openFiles(named: prefix) == 1)
        }
        #expect(Self.openFiles(named: prefix) == 0)
    }

    @Test(
        "a waypoint spool that spilled to its file closes it when dropped without discard or drain",
        .enabled(if: TemporaryFileTests.hasProcFD, "no /proc/self/fd to count descriptors"))
    func waypointSpoolReleases() throws {
        let before = Self.openFiles(named: "gpx2fix-waypoints")
        do {
            var spool = WaypointSpool()
            var fix = Fix(lat: 48.1, lon: 11.5)
            fix.name = String(repeating: "w", count: 200)
            // Past the 4 MiB kept in memory: the spool makes its file.
            for _ in 0..<(WaypointSpool.memoryLimit / 200 + 10) { try spool.append(fix) }
            #expect(Self.openFiles(named: "gpx2fix-waypoints") == before + 1)
        }
        #expect(Self.openFiles(named: "gpx2fix-waypoints") == before)
    }

    /// The one retry loop of pread and pwrite, against a scripted call: short counts go on from
    /// where they stopped, EINTR is tried again, 0 ends early, another error is thrown.
    @Test func retryLoop() throws {
        // Each step: what the call returns, and the errno it leaves.
        func run(_ count: Int, _ script: [(Int, Int32)]) throws(SystemError) -> (done: Int, asked: [Int]) {
            var asked: [Int] = []
            var step = 0
            let done = try TemporaryFile.whole(count) { done in
                asked.append(done)
                let (n, e) = step < script.count ? script[step] : (0, 0)
                step += 1
                errno = e
                return n
            }
            return (done, asked)
        }
        let short = try run(10, [(3, 0), (-1, EINTR), (4, 0), (3, 0)])
        #expect(short.done == 10)
        #expect(short.asked == [0, 3, 3, 7])
        let ended = try run(10, [(6, 0), (0, 0)])
        #expect(ended.done == 6)
        #expect(ended.asked == [0, 6])
        #expect(try run(0, []).asked.isEmpty)
        do {
            _ = try run(10, [(2, 0), (-1, ENOSPC)])
            Issue.record("ENOSPC was not thrown")
        } catch {
            #expect(error.errno == ENOSPC)
        }
    }
}
