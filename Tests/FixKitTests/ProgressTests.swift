import Foundation
import Testing

@testable import FixKit

/// gpx2fix's progress line: when it is shown, how often it is drawn, what it says, that it
/// leaves messages readable and the screen clean, and that it never changes the records.
struct ProgressTests {
    /// What a terminal shows after `bytes`: `\r` returns to the start of the line, and what
    /// follows overwrites it; `\n` starts a new line.
    static func screen(_ bytes: [UInt8]) -> [String] {
        var lines: [[Character]] = [[]]
        var column = 0
        for c in String(decoding: bytes, as: UTF8.self) {
            switch c {
            case "\r": column = 0
            case "\n":
                lines.append([])
                column = 0
            default:
                if column < lines[lines.count - 1].count {
                    lines[lines.count - 1][column] = c
                } else {
                    lines[lines.count - 1].append(c)
                }
                column += 1
            }
        }
        // Trailing spaces are what erasing leaves: invisible.
        return lines.map { String($0).replacingOccurrences(of: " +$", with: "", options: .regularExpression) }
    }

    final class Clock: @unchecked Sendable {
        var now = 100.0
        func read() -> Double { now }
    }

    final class Capture: @unchecked Sendable {
        var bytes: [UInt8] = []
        var writes = 0
    }

    static func line(delay: Double, total: Int = 2, clock: Clock, capture: Capture) -> ProgressLine {
        ProgressLine(
            tool: "gpx2fix", total: total, delay: delay, clock: clock.read,
            write: {
                capture.bytes += $0
                capture.writes += 1
            })
    }

    @Test func itIsShownOnATerminalOrWhenAskedAndNeverInPipes() {
        let clock = Clock()
        func shown(_ mode: ProgressLine.Mode, terminals: Set<Int32>) -> Bool {
            ProgressLine.make(
                mode: mode, tool: "gpx2fix", total: 1, errorFD: 2, outputFD: 1,
                isTerminal: { terminals.contains($0) }, clock: clock.read) != nil
        }
        #expect(shown(.automatic, terminals: [2]))
        #expect(!shown(.automatic, terminals: []), "standard error to a pipe or a log")
        #expect(!shown(.automatic, terminals: [1, 2]), "records written to the same terminal")
        #expect(shown(.on, terminals: []))
        #expect(!shown(.off, terminals: [2]))
    }

    @Test func itWaitsASecondThenDrawsAtMostFourTimesASecond() {
        let clock = Clock()
        let capture = Capture()
        let line = Self.line(delay: 1, clock: clock, capture: capture)
        // 20,000 reads over 3 seconds.
        var drawnAt: [Double] = []
        for k in 0..<20_000 {
            clock.now = 100 + Double(k) * 3.0 / 20_000
            let before = capture.writes
            line.tick()
            if capture.writes > before { drawnAt.append(clock.now - 100) }
        }
        #expect(drawnAt.first.map { $0 >= 1 && $0 < 1.001 } == true, "first drawn at \(drawnAt)")
        #expect(drawnAt.count == 8, "1.0, 1.25, ..., 2.75: \(drawnAt)")
        for (a, b) in zip(drawnAt, drawnAt.dropFirst()) { #expect(b - a >= 0.25 - 1e-9) }
    }

    @Test func itSaysFilesMegabytesAndRateAndIsErasedAtTheEnd() throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-progress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("big")
        try Data(repeating: 0x41, count: 3_000_000).write(to: file)

        let clock = Clock()
        let capture = Capture()
        let line = Self.line(delay: 0, total: 3, clock: clock, capture: capture)
        let reader = try InputReader(name: InputName(file.path), beforeRead: {})
        line.current = reader
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while try buffer.withUnsafeMutableBytes({ try reader.read(into: $0.baseAddress!, capacity: $0.count) }) > 0 {}
        clock.now += 1.5
        line.finishInput()
        // 3,000,000 bytes = 3.0 MB in 1.5 s = 2.0 MB/s; 1 of 3 files done.
        #expect(Self.screen(capture.bytes) == ["gpx2fix: 1/3 files, 3.0 MB, 2.0 MB/s"])
        clock.now += 1
        line.tick()
        // 3.0 MB in 2.5 s = 1.2 MB/s, drawn over the last line.
        #expect(Self.screen(capture.bytes) == ["gpx2fix: 1/3 files, 3.0 MB, 1.2 MB/s"])
        line.end()
        #expect(Self.screen(capture.bytes) == [""], "erased")
        #expect(capture.bytes.last == 0x0D)
        clock.now += 1
        line.tick()
        #expect(Self.screen(capture.bytes) == [""], "never drawn after the end")
    }

    @Test func messagesEraseItAndTheNextReadRedrawsIt() throws {
        let clock = Clock()
        let capture = Capture()
        let line = Self.line(delay: 0, clock: clock, capture: capture)
        // Diagnostics on a pipe, whose bytes are put in the same capture as the line's.
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let diagnostics = Diagnostics(tool: "gpx2fix", strict: false, fd: fds[1])
        diagnostics.statusLine = line
        func drain() {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fds[0], &chunk, chunk.count)
            if n > 0 { capture.bytes += chunk[..<n] }
        }
        line.tick()
        #expect(Self.screen(capture.bytes) == ["gpx2fix: 0/2 files, 0.0 MB, 0.0 MB/s"])
        clock.now += 0.01
        try diagnostics.problem(InputName("a.gpx"), line: 3, "something; point skipped")
        drain()
        #expect(Self.screen(capture.bytes) == ["gpx2fix: a.gpx:3: something; point skipped", ""])
        clock.now += 0.01
        line.tick()  // well within the interval, but the line is gone: drawn again at once
        #expect(
            Self.screen(capture.bytes) == [
                "gpx2fix: a.gpx:3: something; point skipped", "gpx2fix: 0/2 files, 0.0 MB, 0.0 MB/s",
            ])
        line.end()
        close(fds[1])
        #expect(Self.screen(capture.bytes) == ["gpx2fix: a.gpx:3: something; point skipped", ""])
    }

    /// gpx2fix's own run, with its terminal test and clock injected: on a "terminal" the line
    /// comes and goes; the records are the same bytes as without it.
    @Test func gpx2fixOnATerminalDrawsItAndWritesTheSameRecords() throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-progress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = Self.gpxInputs() + [dir.appendingPathComponent("missing.gpx").path]

        func run(terminal: Bool) throws -> (out: Data, err: [UInt8]) {
            let out = dir.appendingPathComponent("out-\(terminal)")
            let err = dir.appendingPathComponent("err-\(terminal)")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            FileManager.default.createFile(atPath: err.path, contents: nil)
            let outHandle = try FileHandle(forWritingTo: out)
            let errHandle = try FileHandle(forWritingTo: err)
            let options = try ParsedOptions(arguments: inputs, table: Gpx2Fix.description.options)
            var tool = try Gpx2Fix(options: options)
            tool.isTerminal = { terminal && $0 == errHandle.fileDescriptor }
            let clock = Clock()
            tool.clock = {
                clock.now += 0.2  // every look at the clock is 0.2 s later: a slow disk
                return clock.now
            }
            let context = ToolContext(
                output: OutputSink(fd: outHandle.fileDescriptor),
                diagnostics: Diagnostics(tool: "gpx2fix", strict: false, fd: errHandle.fileDescriptor))
            try tool.run(inputs: options.inputs, context: context)
            try context.output.flush()
            try outHandle.close()
            try errHandle.close()
            return (try Data(contentsOf: out), Array(try Data(contentsOf: err)))
        }
        let plain = try run(terminal: false)
        let shown = try run(terminal: true)
        #expect(!plain.out.isEmpty)
        #expect(shown.out == plain.out, "the records do not depend on the progress line")
        #expect(!plain.err.contains(0x0D), "no progress line off a terminal")
        let updates = shown.err.split(separator: 0x0D, omittingEmptySubsequences: true)
            .map { String(decoding: $0, as: UTF8.self) }.filter { $0.hasPrefix("gpx2fix: ") && $0.contains(" files, ") }
        #expect(updates.count >= 2, "\(updates)")
        let done = updates.compactMap { Int($0.dropFirst("gpx2fix: ".count).prefix { $0 != "/" }) }
        #expect(done.count == updates.count && done == done.sorted() && done.allSatisfy { $0 <= inputs.count })
        #expect(updates.allSatisfy { $0.contains("/\(inputs.count) files, ") })
        // What the terminal shows at the end is the messages alone, each whole.
        let plainScreen = Self.screen(plain.err)
        #expect(Self.screen(shown.err) == plainScreen)
        #expect(plainScreen.contains { $0.contains("missing.gpx: cannot read") })
    }

    static func gpxInputs() -> [String] {
        let dir = Tools.fixtures.appendingPathComponent("gpx")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".gpx") }.sorted().map { dir.appendingPathComponent($0).path }
    }

    @Test func gpx2fixProgressDrawsOffATerminalAndNoProgressWins() throws {
        let inputs = Self.gpxInputs()
        #expect(inputs.count >= 5)
        let plain = try Tools.run("gpx2fix", inputs)
        let asked = try Tools.run("gpx2fix", ["--progress"] + inputs)
        let both = try Tools.run("gpx2fix", ["--progress", "--no-progress"] + inputs)
        #expect(asked.stdout == plain.stdout && both.stdout == plain.stdout)
        #expect(asked.status == plain.status)
        #expect(!plain.stderr.contains("\r") && both.stderr == plain.stderr)
        #expect(asked.stderr.contains("\rgpx2fix: 0/\(inputs.count) files, "))
        #expect(asked.stderr.hasSuffix("\r"), "erased at the end")
        #expect(Self.screen(Array(asked.stderr.utf8)) == Self.screen(Array(plain.stderr.utf8)))
    }
}
