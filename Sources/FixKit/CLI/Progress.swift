#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A status line on standard error for long runs: `gpx2fix: 3/120 files, 45.2 MB, 12.3 MB/s`,
/// rewritten in place after a carriage return at most `interval` apart (on reads, never per
/// fix), erased before any message (`Diagnostics` calls `clear`) and redrawn at the next read,
/// and erased at the end. It uses no terminal escapes: erasing is `\r`, spaces, `\r`.
///
/// The clock and the writer are injected, so tests drive it without a terminal or a wait.
public final class ProgressLine {
    /// `--progress` (`on`), `--no-progress` (`off`), or neither (`automatic`).
    public enum Mode: Sendable {
        case automatic, on, off
    }

    let tool: String
    let total: Int
    let clock: () -> Double
    let write: ([UInt8]) -> Void
    /// When the run started, in the clock's seconds.
    let start: Double
    /// The shortest time between two drawings.
    let interval: Double
    private var nextDraw: Double
    /// Inputs finished (read, or failed to open).
    public private(set) var filesDone = 0
    /// Bytes read from the inputs finished.
    private var bytesDone: Int64 = 0
    /// The input being read, whose `bytesRead` grows.
    var current: InputReader?
    /// Characters of the line on the screen; 0 when none is.
    private var shownWidth = 0
    private var ended = false

    /// Nothing is drawn before `delay` seconds from the start (so that short runs stay quiet),
    /// then at most once every `interval`.
    init(
        tool: String, total: Int, delay: Double, interval: Double = 0.25, clock: @escaping () -> Double,
        write: @escaping ([UInt8]) -> Void
    ) {
        self.tool = tool
        self.total = total
        self.clock = clock
        self.write = write
        self.interval = interval
        start = clock()
        nextDraw = start + delay
    }

    /// The line for a run, or nil when none is wanted: `on` always; `automatic` only when
    /// standard error is a terminal and standard output is not (records written to the same
    /// terminal would land on the line), after the first second.
    static func make(
        mode: Mode, tool: String, total: Int, errorFD: Int32, outputFD: Int32,
        isTerminal: (Int32) -> Bool, clock: @escaping () -> Double
    ) -> ProgressLine? {
        let delay: Double
        switch mode {
        case .off: return nil
        case .on: delay = 0
        case .automatic:
            guard isTerminal(errorFD), !isTerminal(outputFD) else { return nil }
            delay = 1
        }
        return ProgressLine(
            tool: tool, total: total, delay: delay, clock: clock, write: { bytes in System.writeAll(errorFD, bytes) })
    }

    /// Seconds on the monotonic clock.
    static func monotonicSeconds() -> Double { System.monotonicSeconds() }

    /// Bytes read so far, from the files (gzip data counts as stored, not as decompressed).
    public var bytes: Int64 { bytesDone + (current?.bytesRead ?? 0) }

    /// Called before every read: redraws the line when it is due.
    func tick() {
        guard !ended else { return }
        let now = clock()
        guard now >= nextDraw else { return }
        nextDraw = now + interval
        draw(now)
    }

    /// One input is finished (or could not be opened).
    func finishInput() {
        bytesDone += current?.bytesRead ?? 0
        current = nil
        filesDone += 1
        tick()
    }

    /// The text of the line at `now`.
    func text(at now: Double) -> String {
        let elapsed = now - start
        let mb = Double(bytes) / 1e6
        let rate = elapsed > 0 ? mb / elapsed : 0
        return "\(tool): \(filesDone)/\(total) files, \(Self.oneDecimal(mb)) MB, \(Self.oneDecimal(rate)) MB/s"
    }

    private func draw(_ now: Double) {
        let line = text(at: now)
        var out = "\r" + line
        // A shorter line than the last leaves none of the last one's tail.
        if line.count < shownWidth { out += String(repeating: " ", count: shownWidth - line.count) + "\r" + line }
        shownWidth = line.count
        write(Array(out.utf8))
    }

    /// Erases the line (before a message); the next read draws it again.
    func clear() {
        guard shownWidth > 0 else { return }
        write(Array(("\r" + String(repeating: " ", count: shownWidth) + "\r").utf8))
        shownWidth = 0
        nextDraw = min(nextDraw, clock())
    }

    /// Erases the line for good.
    func end() {
        clear()
        ended = true
    }

    static func oneDecimal(_ x: Double) -> String {
        let tenths = Int64((x * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
