/// Where readers put what they read: it writes each fix as a record, applies gpx2fix's
/// waypoint rule and `--trace-name`, keeps two recordings from sharing a trace
/// (`TraceNames`), and turns a reader's problems into messages with the input's name.
///
/// One sink serves a whole run; `begin` and `end` bracket each input.
public final class FixSink {
    let output: OutputSink
    /// The fixes written: NDJSON has no framing, so this document is open for the whole run.
    /// Unchecked: `emit` is its only mutator and never re-enters (no callback, one thread), and
    /// the run-time exclusivity check on a class's stored property costs gpx2fix 0.5% of its
    /// instructions per fix (callgrind).
    @exclusivity(unchecked) private var lines: RecordOutput<FixLines>
    let diagnostics: Diagnostics
    /// `--waypoints`: write waypoints even when the input has track or route points.
    let waypoints: Bool
    /// `--trace-name`: the trace of every fix.
    let traceName: String?

    private var input: InputName?
    // Unchecked, as `lines`: the four that `emit` reads or changes on every fix are touched
    // only by this class's own methods, none of which calls back into the sink or runs on
    // another thread; the run-time checks cost 240 instructions an NMEA epoch (callgrind).
    @exclusivity(unchecked) private var spool = WaypointSpool()
    @exclusivity(unchecked) private var sawTrackOrRoute = false
    private var notes: [String] = []
    @exclusivity(unchecked) private var names = TraceNames()
    /// The trace the format gave the first waypoint held back, named when written.
    @exclusivity(unchecked) private var heldName: String??

    init(output: OutputSink, diagnostics: Diagnostics, waypoints: Bool, traceName: String?) {
        self.output = output
        lines = output.open(FixLines())
        self.diagnostics = diagnostics
        self.waypoints = waypoints
        self.traceName = traceName
    }

    /// Starts an input; `fileName` is the name its traces are told apart by (without `.gz`).
    func begin(_ name: InputName, fileName: String?) {
        input = name
        names.beginInput(fileName: fileName)
        heldName = nil
        spool = WaypointSpool()
        sawTrackOrRoute = false
        notes = []
    }

    /// Writes what the input's waypoint rule held back, then the notes, after the fixes they
    /// speak of.
    func end() throws {
        if !sawTrackOrRoute {
            // The held waypoints' name is taken now that they are written, as peeked.
            if traceName == nil, let held = heldName { _ = names.trace(for: held, recording: 0) }
            try spool.drain(to: output)
        }
        spool.discard()
        try output.flush()
        diagnostics.endInput()
        for note in notes { diagnostics.note(note) }
        notes = []
    }

    /// Drops what the input's waypoint rule held back (the input failed).
    func abandon() {
        spool.discard()
        notes = []
    }

    /// Takes one fix. Waypoints are held until the input turns out to have no track or route
    /// points (GPX puts `<wpt>` first), unless `--waypoints`. `recording` tells the input's
    /// recordings apart (a GPX file's `<trk>` or `<rte>`, from 1; 0 for waypoints and for
    /// formats with one recording per input): see `TraceNames`.
    @inline(__always)
    public func emit(_ fix: inout Fix, kind: PointKind = .track, recording: Int = 0) throws {
        if let traceName {
            fix.trace = traceName
        } else if kind == .waypoint && !waypoints {
            if !sawTrackOrRoute {
                if heldName == nil { heldName = .some(fix.trace) }
                fix.trace = names.peekTrace(for: fix.trace, recording: 0)
            }
        } else {
            fix.trace = names.trace(for: fix.trace, recording: kind == .waypoint ? 0 : recording)
        }
        if kind == .waypoint && !waypoints {
            if !sawTrackOrRoute { try spool.append(fix) }
            return
        }
        if kind != .waypoint && !sawTrackOrRoute {
            sawTrackOrRoute = true
            spool.discard()
        }
        try lines.write(fix)
    }

    /// Reports input that could not be used, at a 1-based line (nil: the input as a whole).
    /// Throws under `--strict`.
    public func problem(line: Int?, _ message: String) throws {
        try diagnostics.problem(input, line: line, message)
    }

    /// A note about the input (a summary of expected noise), written after its fixes.
    /// The input's path is put in front.
    public func note(_ message: String) {
        notes.append("\(input?.shown ?? "-"): \(message)")
    }
}
