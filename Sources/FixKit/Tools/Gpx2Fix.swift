/// gpx2fix: GPS files in, one fix a line out.
public struct Gpx2Fix: Tool {
    public static let description = ToolDescription(
        name: "gpx2fix",
        summary:
            "Read GPX 1.0 and 1.1, NMEA 0183 logs and gpsd's JSON, and write one fix (GPS position) a line as NDJSON.",
        details: """
            Track and route points are written in document order; waypoints only when the file
            has no track or route points (as in Xcode simulation files), or with --waypoints.
            trace is the track's or route's <name>, else the file's name; seg counts the
            <trkseg> elements of a track from 0. Times without a zone are read as UTC.
            Accuracy extensions (Apple hAcc/vAcc, OpenTracks, Garmin TrackPointExtension speed
            and course) fill hacc, vacc, speed and course.

            Examples:
              gpx2fix ride.gpx | fixfilter | fix2gpx --xcode > Ride.gpx
              gpx2fix --uere 5 old-logger.gpx > fixes.ndjson
            """,
        options: [
            OptionSpec("waypoints", help: "Also write waypoints (<wpt>) in files that have track or route points."),
            OptionSpec(
                "uere", value: "M",
                help:
                    "Give fixes that have an HDOP but no accuracy hacc = HDOP x M metres (a receiver's user equivalent range error, typically 4 to 6)."
            ),
            OptionSpec(
                "date", value: "YYYY-MM-DD",
                help: "The UTC date of an NMEA log's first fixes when it has no RMC or ZDA date; dates in the log win."),
        ])

    let waypoints: Bool
    let uere: Double?
    /// `--date`: days since 1970-01-01.
    let date: Int64?

    public init(options: ParsedOptions) throws {
        waypoints = options.has("waypoints")
        uere = try options.double("uere", default: nil, range: 1e-6...1e6)
        if let text = options.string("date") {
            guard let t = Timestamp.parse(text + "T00:00:00Z"), text.count == 10 else {
                throw UsageError("--date '\(text)' is not a date such as 2026-01-31 (YYYY-MM-DD)")
            }
            date = t.milliseconds / 86_400_000
        } else {
            date = nil
        }
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        var names = TraceNames()
        for name in inputs {
            guard let input = try context.open(name) else { continue }
            names.beginInput(fileName: name.fileName)
            try read(input, context: context, names: &names)
        }
    }

    /// Reads one input; `names` keeps two recordings of the run from sharing a trace.
    func read(_ input: InputReader, context: ToolContext, names: inout TraceNames) throws {
        let diagnostics = context.diagnostics
        let problem: (Int?, String) throws -> Void = { line, message in
            try diagnostics.problem(input.name, line: line, message)
        }
        // Read until the first meaningful byte to tell the format from the content.
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var firstByte: UInt8?
        while firstByte == nil {
            let n = try chunk.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, capacity: $0.count) }
            if n == 0 { break }
            head.append(contentsOf: chunk[..<n])
            firstByte = Gpx2Fix.firstMeaningfulByte(head)
        }
        guard let firstByte else {
            try problem(
                nil,
                head.isEmpty
                    ? "the input is empty: expected a GPX file"
                    : "the input holds only white space: expected a GPX file")
            return
        }
        let output = context.output
        guard firstByte == UInt8(ascii: "<") else {
            var reader = NMEAReader(fileName: input.name.fileName, uere: uere, date: date)
            try reader.read(
                input, head: head,
                emit: { fix in
                    fix.trace = names.trace(for: fix.trace, recording: 0)
                    FixEncoder.encode(fix, into: &output.buffer)
                    try output.didAppend()
                },
                problem: { line, message in try problem(line, message) })
            if !reader.recognizedAnything {
                let shown = String(decoding: head.prefix(while: { $0 != 0x0A && $0 != 0x0D }).prefix(40), as: UTF8.self)
                try problem(1, "not GPX, NMEA 0183 or gpsd JSON: it starts with \"\(shown)\"")
                return
            }
            // Notes follow the fixes they speak of, on a terminal too.
            try output.flush()
            if let summary = reader.noiseSummary { diagnostics.note("\(input.name.path): \(summary)") }
            if reader.assembler.fixes == 0, reader.assembler.epochs > 0 {
                diagnostics.note(
                    "\(input.name.path): none of its \(reader.assembler.epochs) NMEA epochs has a valid position (all void): no fixes"
                )
            }
            if reader.assembler.wroteUndated {
                diagnostics.note(
                    "\(input.name.path): the log gives no date (no RMC or ZDA): fixes written without time; give --date YYYY-MM-DD"
                )
            }
            return
        }
        var spool = WaypointSpool()
        var sawTrackOrRoute = false
        let reader = GPXReader(fileName: input.name.fileName, uere: uere)
        try reader.read(
            input, prefix: head,
            onFix: { fix, kind, recording in
                if kind == .waypoint && !waypoints {
                    // Held back, and named when written: only if the file has no tracks.
                    fix.trace = names.peekTrace(for: fix.trace, recording: recording)
                    if !sawTrackOrRoute { try spool.append(fix) }
                    return
                }
                fix.trace = names.trace(for: fix.trace, recording: recording)
                if kind != .waypoint && !sawTrackOrRoute {
                    sawTrackOrRoute = true
                    spool.discard()
                }
                FixEncoder.encode(fix, into: &output.buffer)
                try output.didAppend()
            },
            problem: { line, message in try problem(line, message) })
        if !sawTrackOrRoute {
            _ = names.trace(for: input.name.fileName, recording: 0)  // the waypoints' name, as peeked
            try spool.drain(to: output)
        }
    }

    /// The first byte after a UTF-8 BOM and white space, or nil if there is none yet.
    static func firstMeaningfulByte(_ bytes: [UInt8]) -> UInt8? {
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        // UTF-16 files start with a BOM of FF FE or FE FF: libxml2 reads them as XML.
        if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) {
            return UInt8(ascii: "<")
        }
        while i < bytes.count {
            if !isXMLSpace(bytes[i]) { return bytes[i] }
            i += 1
        }
        return nil
    }
}
