/// Where readers put what they read: it writes each fix as a record, applies gpx2fix's
/// waypoint rule and `--trace-name`, and turns a reader's problems into messages with the
/// input's name.
///
/// One sink serves a whole run; `begin` and `end` bracket each input.
public final class FixSink {
    let output: OutputSink
    let diagnostics: Diagnostics
    /// `--waypoints`: write waypoints even when the input has track or route points.
    let waypoints: Bool
    /// `--trace-name`: the trace of every fix.
    let traceName: String?

    private var input: InputName?
    private var spool = WaypointSpool()
    private var sawTrackOrRoute = false
    private var notes: [String] = []

    init(output: OutputSink, diagnostics: Diagnostics, waypoints: Bool, traceName: String?) {
        self.output = output
        self.diagnostics = diagnostics
        self.waypoints = waypoints
        self.traceName = traceName
    }

    func begin(_ name: InputName) {
        input = name
        spool = WaypointSpool()
        sawTrackOrRoute = false
        notes = []
    }

    /// Writes what the input's waypoint rule held back, then the notes, after the fixes they
    /// speak of.
    func end() throws {
        if !sawTrackOrRoute { try spool.drain(to: output) }
        spool.discard()
        try output.flush()
        for note in notes { diagnostics.note(note) }
        notes = []
    }

    /// Drops what the input's waypoint rule held back (the input failed).
    func abandon() {
        spool.discard()
        notes = []
    }

    /// Takes one fix. Waypoints are held until the input turns out to have no track or route
    /// points (GPX puts `<wpt>` first), unless `--waypoints`.
    @inline(__always)
    public func emit(_ fix: inout Fix, kind: PointKind = .track) throws {
        if let traceName { fix.trace = traceName }
        if kind == .waypoint && !waypoints {
            if !sawTrackOrRoute { try spool.append(fix) }
            return
        }
        if kind != .waypoint && !sawTrackOrRoute {
            sawTrackOrRoute = true
            spool.discard()
        }
        FixEncoder.encode(fix, into: &output.buffer)
        try output.didAppend()
    }

    /// Reports input that could not be used, at a 1-based line (nil: the input as a whole).
    /// Throws under `--strict`.
    public func problem(line: Int?, _ message: String) throws {
        try diagnostics.problem(input, line: line, message)
    }

    /// A note about the input (a summary of expected noise), written after its fixes.
    /// The input's path is put in front.
    public func note(_ message: String) {
        notes.append("\(input?.path ?? "-"): \(message)")
    }
}
