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
            OptionSpec(
                "pace", value: "V",
                help: "Give fixes without time a time at V metres per second from the last known time (or --start)."),
            OptionSpec(
                "start", value: "TIME",
                help:
                    "With --pace, the time of the first fix when no earlier fix has one (default 2000-01-01T00:00:00Z)."
            ),
        ])

    let writer: GPXWriter
    /// `--geojson`.
    let geojson: Bool
    let pace: Double?
    let start: Timestamp

    public init(options: ParsedOptions) throws {
        writer = GPXWriter(mode: options.has("xcode") ? .xcode : .track)
        geojson = options.has("geojson")
        if geojson && options.has("xcode") {
            throw UsageError("--geojson and --xcode each choose what is written: give one")
        }
        pace = try options.double("pace", default: nil, range: 1e-9...Double.greatestFiniteMagnitude)
        start = try options.time("start") ?? .y2k
        if options.string("start") != nil && pace == nil {
            throw UsageError("--start is used with --pace, which gives fixes without time their times")
        }
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        if geojson { return try runGeoJSON(inputs: inputs, context: context) }
        let output = context.output
        var writer = self.writer
        var timing = PaceClock(pace: pace, start: start)
        writer.begin(into: &output.buffer)
        // Whatever stops the run (--strict), the document written so far is closed.
        defer { writer.end(into: &output.buffer) }
        try context.forEachFix(inputs) { fix, _, name, number in
            var fix = fix
            guard timing.fill(&fix) else {
                try context.diagnostics.problem(
                    name, line: number,
                    "--pace gives this fix a time past 9999-12-31T23:59:59.999Z, the last that RFC 3339 can write; fix skipped"
                )
                return
            }
            if writer.mode == .xcode, fix.time == nil {
                try context.diagnostics.problem(
                    name, line: number,
                    "this fix has no time, which an Xcode simulation file needs for every point: give --pace V (metres per second) to make times; fix skipped"
                )
                return
            }
            writer.write(fix, into: &output.buffer)
            try output.didAppend()
        }
    }
}

extension Fix2Gpx {
    /// `--geojson`: see `GeoJSONWriter`.
    func runGeoJSON(inputs: [InputName], context: ToolContext) throws {
        let output = context.output
        var writer = GeoJSONWriter()
        var timing = PaceClock(pace: pace, start: start)
        writer.begin(into: &output.buffer)
        defer { writer.end(into: &output.buffer) }
        try context.forEachFix(inputs) { fix, _, _, _ in
            var fix = fix
            timing.fill(&fix)
            writer.write(fix, into: &output.buffer)
            try output.didAppend()
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
