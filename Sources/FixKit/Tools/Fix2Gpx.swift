#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// fix2gpx: fixes in, GPX out: what gpx2fix reads, or an Xcode location-simulation file.
public struct Fix2Gpx: Tool {
    public static let description = ToolDescription(
        name: "fix2gpx",
        summary: "Write fixes (NDJSON) as a GPX 1.1 file, or as an Xcode location-simulation file.",
        details: """
            By default one <trk> per trace and one <trkseg> per seg; speed and course go into
            Garmin's TrackPointExtension v2, hacc, vacc, cacc and any other member into an
            extension of our own (urn:x-fixkit:gpx:1), so gpx2fix | fix2gpx | gpx2fix loses
            nothing. With --xcode, one <wpt> with its <time> per fix, as Xcode's Simulate
            Location reads it; a fix without time then needs --pace.

            Examples:
              gpx2fix ride.gpx | fix2gpx --xcode > Ride.gpx
              fix2gpx --xcode --pace 1.4 < walk.ndjson > Walk.gpx
            """,
        options: [
            OptionSpec(
                "xcode",
                help:
                    "Write an Xcode location-simulation file: <gpx creator=\"Xcode\"> with one <wpt> and <time> per fix."
            ),
            OptionSpec(
                "geojson",
                help:
                    "Write a GeoJSON FeatureCollection instead: a LineString per run of fixes of one trace and seg (a Point for one fix), every field as a per-position array."
            ),
            .number(
                "pace", value: "V", in: 1e-9...Double.greatestFiniteMagnitude,
                help: "Give fixes without time a time at V metres per second from the last known time (or --start)."),
            OptionSpec("only", value: "NAME", help: "Keep the fixes of trace NAME alone."),
            OptionSpec(
                "split", value: "DIR",
                help:
                    "Write one file per trace into DIR (made if missing), named from the trace; list the files written on standard output."
            ),
            .time(
                "start",
                help:
                    "With --pace, the time of the first fix when no earlier fix has one (default 2000-01-01T00:00:00Z)."
            ),
        ])

    let mode: GPXWriter.Mode
    /// `--geojson`.
    let geojson: Bool
    let pace: Double?
    let start: Timestamp
    let only: String?
    let split: String?

    public init(options: ParsedOptions) throws {
        mode = options.has("xcode") ? .xcode : .track
        geojson = options.has("geojson")
        if geojson && options.has("xcode") {
            throw UsageError("--geojson and --xcode each choose what is written: give one")
        }
        pace = options.double("pace")
        start = options.time("start") ?? .y2k
        if options.string("start") != nil && pace == nil {
            throw UsageError("--start is used with --pace, which gives fixes without time their times")
        }
        only = options.string("only")
        split = options.string("split")
        if let dir = split {
            guard !dir.isEmpty else { throw UsageError("--split needs a directory") }
            // `-` is standard input or output everywhere; a directory cannot be either.
            guard dir != "-" else {
                throw UsageError(
                    "--split - names no directory: - is standard output, and --split writes one file per trace (use ./- for a directory named -)"
                )
            }
            if let kind = System.kind(of: dir) {
                guard kind == .directory else {
                    throw OptionFileError("--split \(shownPath(dir)) is not a directory")
                }
            } else {
                do throws(SystemError) { try System.makeDirectory(dir) } catch {
                    throw OptionFileError("cannot make the --split directory \(shownPath(dir)): \(error.reason)")
                }
            }
        }
    }

    /// One trace's part of the output: its writer's state and what the spool holds for it
    /// (the trace written straight to standard output has its writer in the document).
    struct Part {
        var trace: String?
        var writer: TraceDocument
        var spooled: Int
        var fixes = 0
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        let output = context.output
        var timing = PaceClock(pace: pace, start: start)
        var spool = TraceSpool()
        defer { spool.close() }
        var parts: [Part] = []
        // Without --split the first trace goes straight to standard output, in the document
        // opened here; the others wait in the spool and follow it, each in one <trk>. Under
        // --xcode only the first is written. The document is closed however the run ends.
        var document = split == nil ? output.open(TraceDocument(geojson: geojson, mode: mode)) : nil
        defer { document?.close() }

        // Whatever stops the run (--strict), what was read is written and the documents closed.
        do {
            try read(inputs, context: context, parts: &parts, spool: &spool, timing: &timing, document: &document)
        } catch let stop as StrictStop {
            try finish(&parts, spool: &spool, inputs: inputs, context: context, document: &document)
            throw stop
        }
        try finish(&parts, spool: &spool, inputs: inputs, context: context, document: &document)
    }

    private func read(
        _ inputs: [InputName], context: ToolContext, parts: inout [Part], spool: inout TraceSpool,
        timing: inout PaceClock, document: inout RecordOutput<TraceDocument>?
    ) throws {
        var index: [String?: Int] = [:]
        var currentTrace: String?
        var current = -1
        let mode = self.mode
        let geojson = self.geojson
        let only = self.only
        let split = self.split
        try context.forEachFix(inputs) { fix, _, name, number in
            if let only, fix.trace != only { return }
            var fix = fix
            guard timing.fill(&fix) else {
                try context.diagnostics.problem(
                    name, line: number,
                    "--pace gives this fix a time past 9999-12-31T23:59:59.999Z, the last that RFC 3339 can write; fix skipped"
                )
                return
            }
            if mode == .xcode, fix.time == nil {
                try context.diagnostics.problem(
                    name, line: number,
                    "this fix has no time, which an Xcode simulation file needs for every point: give --pace V (metres per second) to make times; fix skipped"
                )
                return
            }
            if current < 0 || fix.trace != currentTrace {
                if let k = index[fix.trace] {
                    current = k
                } else {
                    let k = parts.count
                    // A later trace's features follow the first trace's in the same collection.
                    // Under --split each file's document is opened when it is written (`writeSplit`).
                    let writer = TraceDocument(geojson: geojson, mode: mode, continuing: split == nil && k > 0)
                    let spooled = split == nil && k == 0 ? -1 : spool.add()
                    parts.append(Part(trace: fix.trace, writer: writer, spooled: spooled))
                    index[fix.trace] = k
                    current = k
                }
                currentTrace = fix.trace
            }
            parts[current].fixes += 1
            if parts[current].spooled < 0 {
                try document?.write(fix)
            } else if mode == .track || split != nil {
                try spool.append(parts[current].spooled) { parts[current].writer.write(fix, into: &$0) }
            }
        }
    }

    private func finish(
        _ parts: inout [Part], spool: inout TraceSpool, inputs: [InputName], context: ToolContext,
        document: inout RecordOutput<TraceDocument>?
    ) throws {
        let output = context.output
        if let dir = split {
            try writeSplit(&parts, spool: &spool, into: dir, inputs: inputs, output: output)
            return
        }
        // `run` closes the document after this.
        if !parts.isEmpty { try document?.withWriter { writer, out in writer.finishTrack(into: &out) } }
        if mode == .xcode, parts.count > 1 {
            try output.flush()
            let shown = parts.prefix(10).enumerated().map { k, p in
                "\(p.trace.map { "\"\($0)\"" } ?? "(no trace)") (\(p.fixes) \(p.fixes == 1 ? "fix" : "fixes")\(k == 0 ? ", written" : ""))"
            }
            let more = parts.count > 10 ? " and \(parts.count - 10) more" : ""
            document?.close()
            try context.diagnostics.problem(
                nil, line: nil,
                "the input has \(parts.count) traces, and an Xcode simulation file plays one: \(shown.joined(separator: ", "))\(more); only the first was written: pick one with --only NAME, or write a file each with --split DIR"
            )
            return
        }
        for k in parts.indices.dropFirst() {
            try document?.write(spooled: parts[k].spooled, from: &spool)
            var tail: [UInt8] = []
            parts[k].writer.finishTrack(into: &tail)
            try document?.write(made: tail)
        }
    }

    /// `--split DIR`: each trace's document from the spool into a file of its own, named by
    /// `SplitFileNames`; the paths written are listed on standard output.
    private func writeSplit(
        _ parts: inout [Part], spool: inout TraceSpool, into dir: String, inputs: [InputName], output: OutputSink
    ) throws {
        var names = SplitFileNames(fileExtension: geojson ? "geojson" : "gpx")
        let paths = parts.map { (dir.hasSuffix("/") ? dir : dir + "/") + names.name(for: $0.trace) }
        // Every file is checked before any is written: none may be an input.
        for path in paths { try FileIdentity.refuse("--split's file \(shownPath(path))", at: path, ifAmong: inputs) }
        var list = output.open(PlainText())
        defer { list.close() }
        for k in parts.indices {
            let path = paths[k]
            let fd: Int32
            do throws(SystemError) { fd = try System.createForWriting(path, mode: 0o666) } catch {
                throw ToolFailure("cannot write \(shownPath(path)): \(error.reason)")
            }
            let file = OutputSink(fd: fd)
            // What was written is kept, and closed, however the file's writing ends.
            defer {
                try? file.flush()
                System.close(fd)
            }
            do {
                // The trace's writer wrote its records into the spool; its document opens and
                // closes around them.
                try file.document(parts[k].writer) { document in
                    try document.write(spooled: parts[k].spooled, from: &spool)
                }
                try file.flush()
            } catch let error as OutputError {
                throw ToolFailure("writing \(shownPath(path)) failed: \(error.message)")
            }
            try list.write(path + "\n")
        }
    }
}

/// One trace's document: GPX (a track file or Xcode's) or GeoJSON, so that one spool and one
/// ordering serve both.
enum TraceDocument: RecordWriter {
    case gpx(GPXWriter)
    case geojson(GeoJSONWriter)

    /// `continuing`: the features follow others in the same collection.
    init(geojson: Bool, mode: GPXWriter.Mode, continuing: Bool = false) {
        self = geojson ? .geojson(GeoJSONWriter(continuing: continuing)) : .gpx(GPXWriter(mode: mode))
    }

    mutating func open(into out: inout [UInt8]) {
        switch self {
        case .gpx(var w):
            w.begin(into: &out)
            self = .gpx(w)
        case .geojson(var w):
            w.begin(into: &out)
            self = .geojson(w)
        }
    }

    mutating func write(_ fix: Fix, into out: inout [UInt8]) {
        switch self {
        case .gpx(var w):
            w.write(fix, into: &out)
            self = .gpx(w)
        case .geojson(var w):
            w.write(fix, into: &out)
            self = .geojson(w)
        }
    }

    /// Ends the trace's last track (GPX) or feature (GeoJSON), leaving the document open.
    mutating func finishTrack(into out: inout [UInt8]) {
        switch self {
        case .gpx(var w):
            w.finishTrack(into: &out)
            self = .gpx(w)
        case .geojson(var w):
            w.finishFeature(into: &out)
            self = .geojson(w)
        }
    }

    /// Ends the document, and the trace's last track or feature if it is still open.
    mutating func close(into out: inout [UInt8]) {
        switch self {
        case .gpx(var w):
            w.end(into: &out)
            self = .gpx(w)
        case .geojson(var w):
            w.end(into: &out)
            self = .geojson(w)
        }
    }
}

/// Gives fixes without time a time from the distance walked at a pace: `--pace`.
struct PaceClock {
    let pace: Double?
    let start: Timestamp
    private var last: (time: Timestamp, lat: Double, lon: Double)?

    init(pace: Double?, start: Timestamp) {
        self.pace = pace
        self.start = start
    }

    /// Gives `fix` its time; false when that time would be past what RFC 3339 can write (a
    /// tiny pace, a start near the end of 9999), and then the fix is left as it was.
    mutating func fill(_ fix: inout Fix) -> Bool {
        guard let pace else { return true }
        let time: Timestamp
        if let t = fix.time {
            time = t
        } else if let last {
            let d = Geodesy.distance(lat1: last.lat, lon1: last.lon, lat2: fix.lat, lon2: fix.lon)
            guard let t = last.time.adding(seconds: d / pace) else { return false }
            time = t
        } else {
            time = start
        }
        fix.time = time
        last = (time, fix.lat, fix.lon)
        return true
    }
}
