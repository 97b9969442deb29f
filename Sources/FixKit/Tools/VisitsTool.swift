/// visits: where the user stayed, and from when to when.
public struct VisitsTool: Tool {
    public static let description = ToolDescription(
        name: "visits",
        summary: "Find stays at places in a log of fixes, as Core Location's CLVisit reports them.",
        details: """
            Each fix is measured against the stay's centre, the weighted median of its fixes
            (each weighted by the time it stands for over its hacc^2); it belongs to the stay
            within --radius plus its own hacc. A stay
            ends after 3 fixes in a row outside it spanning a minute, or a gap longer than
            --max-gap; it is a visit when it lasted --min-stay. A visit is written as soon as it
            is over: {"lat","lon","hacc","arrival","departure","fixes"} with "trace" copied;
            arrival is null when the trace begins inside the visit, departure null when it
            ends inside it.

            Examples:
              gpx2fix day.gpx | visits
              gpx2fix day.nmea | fixfilter --min-move off |
                visits --geojson > visits.geojson
            """,
        options: [
            .number(
                "radius", value: "M", in: 0...1e7,
                help: "How far a fix may lie from the stay's centre beyond its own hacc (default 50 m)."),
            .number(
                "min-stay", value: "S", in: 0...1e9,
                help: "The shortest stay that is a visit, in seconds (default 300)."),
            .number(
                "max-gap", value: "S", in: 1...1e9,
                help: "The longest stretch without fixes inside a stay, in seconds (default 3600); longer ends it."),
            .number(
                "default-hacc", value: "M", in: 0...1e7,
                help:
                    "The hacc taken for fixes without one (default 10 m, as fencerule's), said once on standard error."),
            OptionSpec(
                "geojson",
                help:
                    "Write one GeoJSON FeatureCollection of Points (arrival, departure, duration, fixes, hacc) instead of NDJSON."
            ),
        ])

    let settings: StaySettings
    let geoJSON: Bool
    /// A trace is parked (`StayDetector.park`) once this many fixes of other traces have come
    /// since its last one, if it holds at least `parkAtBytes`. Parking changes no visit; these
    /// only trade memory for the time to write and read a stay back (the tests park at every
    /// change of trace).
    var parkAfter = 65_536
    var parkAtBytes = 16_384
    /// How many times the last run parked a trace.
    private(set) var parks = 0

    public init(options: ParsedOptions) throws {
        var s = StaySettings()
        s.radius = options.double("radius", default: s.radius)
        s.minStay = options.double("min-stay", default: s.minStay)
        s.maxGap = options.double("max-gap", default: s.maxGap)
        s.defaultHacc = options.double("default-hacc", default: s.defaultHacc)
        settings = s
        geoJSON = options.has("geojson")
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        let output = context.output
        let settings = self.settings
        // Each stay's arrays and heaps are freed at its end and grown again for the next.
        System.keepFreedMemory()
        // A trace that has had no fix while `parkAfter` fixes of others came is parked: its
        // stays wait in a temporary file, so memory does not grow with the number of traces.
        let (parkAfter, parkAtBytes) = (Double(self.parkAfter), self.parkAtBytes)
        let spool = StaySpool()
        var traces = TraceStore(
            make: { Trace(detector: StayDetector(settings: settings, trace: $0)) },
            idleDeadline: { t in
                t.detector.isParked || t.detector.parkableBytes < parkAtBytes ? nil : t.touched + parkAfter
            })
        var clock = 0.0
        var parked = 0
        defer { parks = parked }
        var untimed = 0
        var invalid = 0
        var saidDefault = false
        // However the run ends (--strict, a failed read), the GeoJSON document is closed.
        var visits = output.open(VisitWriter(geoJSON: geoJSON))
        defer { visits.close() }
        let emit: (Visit) throws -> Void = { visit in try visits.write(visit) }
        // A fix older than the last of its trace cannot be placed in a stay: it is skipped, the
        // first one reported with its line, the rest counted (reversed or shuffled input).
        var backwards = 0
        var firstBackwards: (input: InputName, line: Int)?
        func goesBack(_ detector: StayDetector, _ fix: Fix, _ time: Timestamp, _ name: InputName, _ line: Int) throws
            -> Bool
        {
            guard let last = detector.lastTime, time.seconds < last.seconds else { return false }
            backwards += 1
            if firstBackwards == nil {
                firstBackwards = (name, line)
                let trace = fix.trace.map { "trace \(quoted($0))" } ?? "the fixes without trace"
                try output.flush()
                try context.diagnostics.problem(
                    name, line: line,
                    "time goes back from \(last.rfc3339) to \(time.rfc3339) on \(trace): visits needs each trace's fixes in time order (sort them by time first); fix skipped, and so is every later fix older than the last kept on its trace"
                )
            }
            return true
        }
        try context.forEachFix(inputs) { fix, _, name, number in
            guard let time = fix.time else {
                untimed += 1
                return
            }
            if let h = fix.hacc, h < 0 {
                invalid += 1  // SPEC: negative means invalid
                return
            }
            let hacc = fix.hacc
            if hacc == nil, !saidDefault {
                saidDefault = true
                context.diagnostics.note(DefaultHacc.note(settings.defaultHacc))
            }
            clock += 1
            try traces.withState(fix.trace) { t in
                if try goesBack(t.detector, fix, time, name, number) { return }
                try t.detector.unpark(from: spool)
                t.touched = clock
                try t.detector.add(lat: fix.lat, lon: fix.lon, hacc: hacc, time: time, emit: emit)
            }
            try traces.shrinkIdle(clock: clock) {
                try $0.detector.park(in: spool)
                parked += 1
            }
        }
        // The fixes without a trace first, then the traces in order of first appearance.
        if var untraced = traces.state(nil) {
            try untraced.detector.unpark(from: spool)
            try untraced.detector.finish(emit: emit)
        }
        try traces.forEach { trace, t in
            guard trace != nil else { return }
            try t.detector.unpark(from: spool)
            try t.detector.finish(emit: emit)
        }
        visits.close()
        if untimed > 0 || invalid > 0 || backwards > 1 { try output.flush() }
        if backwards > 1, let first = firstBackwards {
            context.diagnostics.note(
                "\(backwards) fixes older than the last kept on their trace skipped, the first at \(first.input.shown):\(first.line): sort the input by time (per trace) to use them"
            )
        }
        if untimed > 0 {
            context.diagnostics.note(
                "\(untimed) \(untimed == 1 ? "fix" : "fixes") without time skipped: a stay needs times")
        }
        if invalid > 0 {
            context.diagnostics.note(
                "\(invalid) \(invalid == 1 ? "fix" : "fixes") with a negative (invalid) hacc skipped")
        }
    }

    /// A trace's detector, and the number of the fix (over all traces) that last reached it.
    struct Trace {
        var detector: StayDetector
        var touched = 0.0
    }

    static func write(_ v: Visit, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"lat":"#.utf8)
        DecimalNumber.write(v.lat, into: &out)
        out.append(contentsOf: #","lon":"#.utf8)
        DecimalNumber.write(v.lon, into: &out)
        out.append(UInt8(ascii: ","))
        properties(v, duration: false, into: &out)
        out.append(contentsOf: "}\n".utf8)
    }

    static func writeFeature(_ v: Visit, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#.utf8)
        DecimalNumber.write(v.lon, into: &out)
        out.append(UInt8(ascii: ","))
        DecimalNumber.write(v.lat, into: &out)
        out.append(contentsOf: #"]},"properties":{"#.utf8)
        properties(v, duration: true, into: &out)
        out.append(contentsOf: "}}".utf8)
    }

    /// The members both forms share: `"hacc"`, `"arrival"` and `"departure"` (null for an open
    /// end), the GeoJSON form's `"duration"` in seconds, `"fixes"`, and `"trace"` when known.
    static func properties(_ v: Visit, duration: Bool, into out: inout [UInt8]) {
        func time(_ name: String, _ t: Timestamp?) {
            out.append(contentsOf: ",\"\(name)\":".utf8)
            guard let t else { return out.append(contentsOf: "null".utf8) }
            out.append(UInt8(ascii: "\""))
            t.write(into: &out)
            out.append(UInt8(ascii: "\""))
        }
        out.append(contentsOf: #""hacc":"#.utf8)
        DecimalNumber.write((v.hacc * 10).rounded() / 10, into: &out)
        time("arrival", v.arrival)
        time("departure", v.departure)
        if duration {
            out.append(contentsOf: #","duration":"#.utf8)
            if let a = v.arrival, let d = v.departure {
                DecimalNumber.write(d.seconds - a.seconds, into: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(contentsOf: #","fixes":"#.utf8)
        writeInteger(v.fixes, into: &out)
        if let t = v.trace {
            out.append(contentsOf: #","trace":"#.utf8)
            writeString(t, into: &out)
        }
    }
}
