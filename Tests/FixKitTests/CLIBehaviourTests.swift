import Foundation
import Testing

/// What SPEC promises of every tool's command line: help, version, usage errors, exit status,
/// a closed pipe, a failed write, unreadable files, and output that keeps up with slow input.
@Suite(.serialized)
struct CLIBehaviourTests {
    static let tools = ["gpx2fix", "fix2gpx", "fixfilter"]
    static let walk = Tools.fixtures.appendingPathComponent("gpx/gpx10.gpx").path

    @Test(arguments: CLIBehaviourTests.tools)
    func helpGoesToStandardOutput(_ tool: String) throws {
        let r = try Tools.run(tool, ["--help"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("Usage: \(tool) [OPTION]... [FILE]..."))
        #expect(r.out.contains("--strict"))
        #expect(r.stderr.isEmpty)
    }

    @Test(arguments: CLIBehaviourTests.tools)
    func version(_ tool: String) throws {
        let r = try Tools.run(tool, ["--version"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("\(tool) (FixKit) "))
    }

    @Test(arguments: [
        ("gpx2fix", ["--frobnicate"], "unknown option '--frobnicate'"),
        ("gpx2fix", ["--uere"], "--uere needs a value"),
        ("gpx2fix", ["--uere", "fast"], "--uere 'fast' is not a number"),
        ("gpx2fix", ["--uere=-1"], "--uere -1 is out of range"),
        ("gpx2fix", ["--uere", "0"], "--uere 0 is out of range"),
        ("gpx2fix", ["--waypoints=yes"], "--waypoints takes no value"),
        ("fix2gpx", ["--pace", "0"], "--pace 0 is out of range"),
        ("fix2gpx", ["--start", "noon"], "--start 'noon' is not an RFC 3339 time"),
        ("fix2gpx", ["--start", "2026-01-01T00:00:00Z"], "--start is used with --pace"),
    ])
    func badUsageExitsTwoAndWritesNothing(_ tool: String, _ args: [String], _ message: String) throws {
        let r = try Tools.run(tool, args, stdin: Data())
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("\(tool): \(message)"), "\(r.stderr)")
        #expect(r.stderr.contains("Try '\(tool) --help'"))
    }

    @Test func missingFileIsReportedAndTheRestIsStillRead() throws {
        let r = try Tools.run("gpx2fix", ["/nonexistent/ride.gpx", CLIBehaviourTests.walk])
        #expect(r.status == 1)
        #expect(r.stderr == "gpx2fix: /nonexistent/ride.gpx: cannot read: No such file or directory\n")
        #expect(r.lines.count == 2)
    }

    @Test func strictStopsAtTheFirstProblem() throws {
        let bad = Tools.fixtures.appendingPathComponent("gpx/bad-values.gpx").path
        let r = try Tools.run("gpx2fix", ["--strict", bad, CLIBehaviourTests.walk])
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stdout.isEmpty)
    }

    @Test func notGPXIsReported() throws {
        let r = try Tools.run("gpx2fix", [], stdin: Data("hello world\n".utf8))
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("gpx2fix: -:1: not a format gpx2fix reads ("))
        let empty = try Tools.run("gpx2fix", [], stdin: Data())
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("the input is empty"))
    }

    /// `gpx2fix big.gpx | head -1` ends quietly: no message, no signal death.
    @Test func closedPipeEndsQuietly() throws {
        let big = TestScratch.root.appendingPathComponent("fixkit-big-\(UUID().uuidString).gpx")
        defer { try? FileManager.default.removeItem(at: big) }
        var text = "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        for i in 0..<60_000 { text += "<trkpt lat=\"\(Double(i % 90) / 2)\" lon=\"1\"/>\n" }
        text += "</trkseg></trk></gpx>\n"
        try Data(text.utf8).write(to: big)
        let r = try Tools.shell("gpx2fix '\(big.path)' | head -1; echo \"status ${PIPESTATUS[0]}\"")
        #expect(r.lines == ["{\"lat\":0,\"lon\":1,\"trace\":\"\(big.lastPathComponent)\",\"seg\":0}", "status 0"])
        #expect(r.stderr.isEmpty)
    }

    @Test(arguments: CLIBehaviourTests.tools)
    func failedWriteIsReported(_ tool: String) throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let input = tool == "gpx2fix" ? CLIBehaviourTests.walk : "-"
        let r = try Tools.shell("echo '{\"lat\":1,\"lon\":2}' | \(tool) \(input) > /dev/full")
        #expect(r.status == 1)
        #expect(r.stderr == "\(tool): writing output failed: No space left on device\n")
    }

    /// A live GPX feed: libxml2 is given blocks of 64 KiB (so that its messages do not depend on
    /// how reads were cut, issue 15), so each point must reach the pipe once the block holding
    /// its end tag is full, while the input is still open. (NMEA and gpsd lines go out at once:
    /// LiveGPSDTests.)
    @Test func outputKeepsUpWithSlowInput() throws {
        let process = Process()
        process.executableURL = Tools.productsDirectory.appendingPathComponent("gpx2fix")
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        let head = "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"/>\n<trkpt lat=\"3\" lon=\"4\"/>\n"
        let padding = "<!--" + String(repeating: " ", count: 1 << 16) + "-->\n"
        stdin.fileHandleForWriting.write(Data((head + padding).utf8))
        var received = Data()
        let deadline = Date().addingTimeInterval(10)
        let fd = stdout.fileHandleForReading.fileDescriptor
        while received.filter({ $0 == 0x0A }).count < 2, Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 100) > 0 {
                var buf = [UInt8](repeating: 0, count: 4096)
                let n = read(fd, &buf, buf.count)
                if n > 0 { received.append(contentsOf: buf[..<n]) }
            }
        }
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2, "points written before the input ended")
        stdin.fileHandleForWriting.write(Data("</trkseg></trk></gpx>\n".utf8))
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
