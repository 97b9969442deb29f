#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// gpx2fix: GPS files in, one fix a line out.
public struct Gpx2Fix: Tool {
    public static let description = ToolDescription(
        name: "gpx2fix",
        summary:
            "Read GPX, FIT, TCX, KML, GeoJSON, Google location history, OwnTracks, CSV, NMEA\u{00A0}0183 and gpsd JSON (gzip too), and write one fix (GPS position) a line as NDJSON.",
        details: """
            Each input's format is recognised from its content (--format help lists them);
            gzip input is decompressed as it is read. Track and route points are written in
            document order; waypoints only when the file has no track or route points (as in
            Xcode simulation files), or with --waypoints.
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
            .number(
                "uere", value: "M", in: 1e-6...1e6,
                help:
                    "Give fixes that have an HDOP but no accuracy hacc = HDOP x M metres (a receiver's user equivalent range error, typically 4 to 6)."
            ),
            OptionSpec(
                "date", value: "YYYY-MM-DD",
                help: "The UTC date of an NMEA log's first fixes when it has no RMC or ZDA date; dates in the log win."),
            OptionSpec(
                "format", value: "NAME", choices: InputFormats.all.map { $0.name } + ["help"],
                help:
                    "Read every input as format NAME instead of recognising each from its content; --format help lists the formats."
            ),
            OptionSpec(
                "trace-name", value: "NAME",
                help: "Give every fix read the trace NAME (standard input has no file name to take one from)."),
            OptionSpec(
                "progress",
                help:
                    "Show a progress line on standard error (files, MB read, MB/s) even when it is not a terminal; by default only a terminal shows one, on runs of over a second."
            ),
            OptionSpec("no-progress", help: "Never show the progress line (wins over --progress)."),
        ])

    let waypoints: Bool
    let uere: Double?
    /// `--date`: days since 1970-01-01.
    let date: Int64?
    /// `--format`: read every input as this format; nil recognises each from its content.
    let format: (any InputFormat.Type)?
    /// `--format help`: list the formats instead of reading.
    let listFormats: Bool
    let traceName: String?
    let progress: ProgressLine.Mode
    /// Whether a descriptor is a terminal, and the clock: injected by tests of the progress line.
    var isTerminal: (Int32) -> Bool = { System.isTerminal($0) }
    var clock: () -> Double = ProgressLine.monotonicSeconds

    public init(options: ParsedOptions) throws {
        waypoints = options.has("waypoints")
        uere = options.double("uere")
        if let text = options.string("date") {
            guard let t = Timestamp.parse(text + "T00:00:00Z"), text.count == 10 else {
                throw UsageError("--date '\(text)' is not a date such as 2026-01-31 (YYYY-MM-DD)")
            }
            date = t.milliseconds / 86_400_000
        } else {
            date = nil
        }
        listFormats = options.string("format") == "help"
        if let name = options.string("format"), !listFormats {
            guard let f = InputFormats.named(name) else {
                throw UsageError(
                    "--format '\(name)' is not a format gpx2fix reads (\(InputFormats.names); --format help lists them)"
                )
            }
            format = f
        } else {
            format = nil
        }
        if let name = options.string("trace-name") {
            guard !name.isEmpty else { throw UsageError("--trace-name needs a name that is not empty") }
            traceName = name
        } else {
            traceName = nil
        }
        progress = options.has("no-progress") ? .off : options.has("progress") ? .on : .automatic
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        if listFormats {
            try context.output.document(PlainText()) { try $0.write(InputFormats.helpText) }
            return
        }
        let line = ProgressLine.make(
            mode: progress, tool: Self.description.name, total: inputs.count, errorFD: context.diagnostics.fd,
            outputFD: context.output.fd, isTerminal: isTerminal, clock: clock)
        var context = context
        if let line {
            let hook = context.beforeEachRead
            context.beforeEachRead = {
                hook?()
                line.tick()
            }
            context.diagnostics.statusLine = line
        }
        defer {
            line?.end()
            context.diagnostics.statusLine = nil
        }
        let sink = sink(context)
        for name in inputs {
            guard let input = try context.open(name, decompressing: true) else {
                line?.finishInput()
                continue
            }
            line?.current = input
            try read(input, into: sink, context: context)
            line?.finishInput()
        }
    }

    /// Where this run's readers write.
    func sink(_ context: ToolContext) -> FixSink {
        FixSink(output: context.output, diagnostics: context.diagnostics, waypoints: waypoints, traceName: traceName)
    }

    /// Reads one input: recognises its format, then hands it to that format's reader.
    func read(_ input: InputReader, into sink: FixSink, context: ToolContext) throws {
        sink.begin(input.name, fileName: input.traceFileName)
        do {
            switch try InputFormats.open(input, forced: format) {
            case .empty(let whiteSpace):
                try sink.problem(
                    line: nil,
                    (whiteSpace ? "the input holds only white space" : "the input is empty")
                        + ": expected GPS data (\(InputFormats.names))")
            case .format(let type, let source):
                let settings = ReaderSettings(fileName: input.traceFileName, uere: uere, date: date)
                var reader = type.init(settings: settings)
                try reader.read(source, into: sink)
            }
        } catch let error as InputError {
            // Everything read before the failure is written, then the failure is reported, and
            // the next input is read.
            try sink.end()
            try context.diagnostics.problem(input.name, line: nil, error.reason)
            return
        } catch {
            sink.abandon()
            throw error
        }
        try sink.end()
    }
}
