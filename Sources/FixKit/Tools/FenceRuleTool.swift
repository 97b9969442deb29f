/// fencerule: geofence enter and exit events from noisy fixes.
public struct FenceRuleTool: Tool {
    public static let description = ToolDescription(
        name: "fencerule",
        summary: "Turn fixes into geofence enter/exit events from the probability of being inside each circle.",
        details: """
            P(inside) = 1 - Q1(d/s, R/s), Marcum's Q function: a fix at distance d from the
            centre of a fence of radius R, with hacc as s, the standard deviation per axis.
            confident enters when P > --enter and exits when P < --exit, once the evidence has
            held for --dwell fixes; adaptive also ends the dwell after --dwell-distance metres
            of movement (from reported speed, else displacement beyond the fixes' accuracy);
            naive is inside whenever d <= R. steady is honest under errors correlated over
            --tau seconds: its dwell counts effective observations, 1 + sum tanh(dt/2tau), and
            while the Doppler speed is at most --still-speed it judges the pooled position of
            the stay and changes at most once. State is kept per trace.

            Events: {"time","event":"enter"|"exit","fence","lat","lon","distance","p"}, with
            "trace" copied and, on an exit, "duration": the seconds since its enter; under
            --limit also "reselect" (the fences now watched, and the refresh circle) and
            "missed" (a fence entered while unwatched).

            Examples:
              gpx2fix walk.gpx | fencerule --fences shops.json
              fixsim --origin 51.5,-0.12 --route -300,0:300,0 |
                fencerule --fences f.json --trace
              gpx2fix day.gpx | fencerule --fences shops.geojson --limit 20
            """,
        options: [
            OptionSpec(
                "fences", value: "FILE",
                help:
                    "The fences: a JSON array of {id, lat, lon, radius} or a GeoJSON FeatureCollection of Points with a radius property (required; -: standard input, the fixes then from operands)."
            ),
            OptionSpec(
                "rule", value: "RULE", choices: FenceRuleKind.self,
                help: "\(FenceRuleKind.listed(default: .confident))."),
            .number("enter", value: "P", in: 0...1, help: "Enter when P(inside) is above P (default 0.9)."),
            .number("exit", value: "P", in: 0...1, help: "Exit when P(inside) is below P (default 0.1)."),
            .integer(
                "dwell", value: "N", in: 1...1_000_000_000,
                help: "Consecutive contradicting fixes before a change (default 3)."),
            .number(
                "dwell-distance", value: "M", in: 0...1e9,
                help: "adaptive, steady: movement in metres that also ends the dwell (default 20)."),
            .number(
                "tau", value: "S", in: 0...1e9,
                help: "steady: the time constant of the position error in seconds (default 30)."),
            .number(
                "still-speed", value: "V", in: 0...1e9,
                help: "steady: a Doppler speed of at most V m/s is a user standing still (default 0.5)."),
            OptionSpec(
                "assume", value: "STATE", choices: FenceStart.self,
                help: "How a fence starts: \(FenceStart.listed(default: .outside))."),
            .number(
                "default-hacc", value: "M", in: 0...1e9,
                help: "The hacc of fixes that have none (default 10), said once on standard error."),
            .integer(
                "limit", value: "N", in: 2...1_000_000_000,
                help:
                    "Replay Core Location's budget of N monitored regions: the N-1 nearest fences and a refresh circle."
            ),
            OptionSpec(
                "trace", help: "Write every fix with a \"fences\" object (p, distance, inside) instead of events."),
        ])

    let engine: FenceEngine
    let defaultHacc: Double
    let traceOutput: Bool

    public init(options: ParsedOptions) throws {
        guard let path = try options.file("fences", readsStandardInput: true) else {
            throw UsageError("--fences FILE is required: the fences to watch")
        }
        var settings = FenceRuleSettings()
        if let kind = options.choice("rule", FenceRuleKind.self) { settings.kind = kind }
        settings.enter = options.double("enter", default: settings.enter)
        settings.exit = options.double("exit", default: settings.exit)
        guard settings.exit < settings.enter else {
            throw UsageError(
                "--exit \(DecimalNumber.text(settings.exit)) must be below --enter \(DecimalNumber.text(settings.enter))"
            )
        }
        settings.dwell = options.integer("dwell", default: settings.dwell)
        settings.dwellDistance = options.double("dwell-distance", default: settings.dwellDistance)
        settings.tau = options.double("tau", default: settings.tau)
        settings.stillSpeed = options.double("still-speed", default: settings.stillSpeed)
        if let start = options.choice("assume", FenceStart.self) { settings.assumeInside = start == .inside }
        defaultHacc = options.double("default-hacc", default: DefaultHacc.metres)
        let limit = options.integer("limit")
        traceOutput = options.has("trace")
        let fences = try FenceFile.loadTable(path: path)
        guard fences.count <= FenceIndex.capacity else {
            throw OptionFileError(
                "--fences \(shownPath(path)): \(fences.count) fences; at most \(FenceIndex.capacity) can be watched")
        }
        engine = FenceEngine(index: FenceIndex(fences), settings: settings, limit: limit)
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        let output = context.output
        var traces = TraceStore(make: { _ in TraceFences() })
        var saidDefault = false
        var skippedNegative = 0
        let engine = self.engine
        let fences = engine.index.table
        // Events, or under --trace every fix with its fences; neither has framing.
        var eventLines = output.open(FenceEventLines(fences: fences))
        var tracedLines = output.open(RawLines())
        defer {
            eventLines.close()
            tracedLines.close()
        }
        // --trace's fences for the fix at hand, emptied for each: made once, as the closure
        // that fills it captures it (declared in the loop, it was a heap box allocated for
        // every fix, --trace or not).
        var reported: [(Int, Double, Double, Bool)] = []
        let collect: ((Int, Double, Double, Bool) -> Void)? =
            traceOutput ? { reported.append(($0, $1, $2, $3)) } : nil
        // A fix's events, emptied for each and kept, so that a fix with events allocates nothing.
        var events: [FenceEvent] = []
        try context.forEachFix(inputs) { fix, line, _, _ in
            var sigma = defaultHacc
            if let h = fix.hacc {
                guard h >= 0 else {
                    skippedNegative += 1
                    return
                }
                sigma = h
            } else if !saidDefault {
                saidDefault = true
                context.diagnostics.note(DefaultHacc.note(defaultHacc))
            }
            let point = FixPoint(lat: fix.lat, lon: fix.lon, time: fix.time, speed: fix.speed, sigma: sigma)
            // Only when there is something to remove: an empty array's removeAll is a generic
            // call all the same.
            if !reported.isEmpty { reported.removeAll(keepingCapacity: true) }
            if !events.isEmpty { events.removeAll(keepingCapacity: true) }
            traces.withState(fix.trace) { engine.process(point, trace: &$0, fences: collect, into: &events) }
            if traceOutput {
                try FenceRuleTool.writeTraced(line, reported, fences: fences, to: &tracedLines)
            } else {
                for e in events { try eventLines.write((e, fix)) }
            }
        }
        if skippedNegative > 0 {
            try output.flush()
            context.diagnostics.note(
                "\(skippedNegative) \(skippedNegative == 1 ? "fix" : "fixes") with a negative (invalid) hacc skipped")
        }
    }

    /// A fix's line under --trace: the line with a `fences` member of every entry, written a
    /// few hundred entries at a time, so that the output buffer stays small however many there
    /// are (a fix with a hacc of thousands of kilometres among a million fences has a million:
    /// made whole, its line took 83 MB and the run 412 MiB). The same bytes as `RawLines`'
    /// `.appending` of the whole member, its newline included.
    static func writeTraced(
        _ line: UnsafeBufferPointer<UInt8>, _ reported: [(Int, Double, Double, Bool)], fences: FenceTable,
        to document: inout RecordOutput<RawLines>
    ) throws(OutputError) {
        // SAFETY: `at`'s head and tail lie inside `line`, the caller's for the call.
        guard let at = RawRecord.memberInsertion(in: line) else {
            try document.write(.unchanged(line))
            return
        }
        try document.withWriter { _, out in
            out.append(contentsOf: at.head)
            if at.comma { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\"fences\":{".utf8)
        }
        var from = 0
        while from < reported.count {
            let to = min(reported.count, from + 256)
            try document.withWriter { _, out in
                for k in from..<to {
                    let (index, p, d, inside) = reported[k]
                    if k > 0 { out.append(UInt8(ascii: ",")) }
                    fences.withID(index) { writeString(utf8: $0, into: &out) }
                    out.append(contentsOf: ":{\"p\":".utf8)
                    DecimalNumber.writeCompact(p, into: &out)
                    out.append(contentsOf: ",\"distance\":".utf8)
                    DecimalNumber.write(d, into: &out)
                    out.append(contentsOf: (inside ? ",\"inside\":true}" : ",\"inside\":false}").utf8)
                }
            }
            from = to
        }
        try document.withWriter { _, out in
            out.append(UInt8(ascii: "}"))
            out.append(contentsOf: at.tail)
            out.append(0x0A)
        }
    }

    /// One event record: time, event, fence (or fences), lat, lon, distance (or radius), p,
    /// then trace.
    static func write(_ event: FenceEvent, fix: Fix, fences: FenceTable, into out: inout [UInt8]) {
        switch event {
        case .enter(let k, let d, let p): writeLocated("enter", k, d, p, nil, fix: fix, fences: fences, into: &out)
        case .exit(let k, let d, let p, let duration):
            writeLocated("exit", k, d, p, duration, fix: fix, fences: fences, into: &out)
        case .missed(let k, let d, let p): writeLocated("missed", k, d, p, nil, fix: fix, fences: fences, into: &out)
        case .reselect(let watched, let radius):
            out.append(UInt8(ascii: "{"))
            if let t = fix.time {
                out.append(contentsOf: "\"time\":\"".utf8)
                t.write(into: &out)
                out.append(contentsOf: "\",".utf8)
            }
            out.append(contentsOf: "\"event\":\"reselect\",\"fences\":[".utf8)
            for (i, k) in watched.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                fences.withID(k) { writeString(utf8: $0, into: &out) }
            }
            out.append(contentsOf: "],\"lat\":".utf8)
            DecimalNumber.write(fix.lat, into: &out)
            out.append(contentsOf: ",\"lon\":".utf8)
            DecimalNumber.write(fix.lon, into: &out)
            if let radius {
                out.append(contentsOf: ",\"radius\":".utf8)
                DecimalNumber.write(radius, into: &out)
            }
            if let trace = fix.trace {
                out.append(contentsOf: ",\"trace\":".utf8)
                writeString(trace, into: &out)
            }
            out.append(contentsOf: "}\n".utf8)
        }
    }

    /// An enter, exit or missed record, written into a stack buffer of its widest length and
    /// appended at once: a noisy run writes one for every 15 fixes, and appending each key
    /// and value on its own was 4,400 instructions an event.
    private static func writeLocated(
        _ kind: StaticString, _ k: Int, _ d: Double, _ p: Double, _ duration: Double?, fix: Fix,
        fences: FenceTable, into out: inout [UInt8]
    ) {
        fences.withID(k) { id in writeLocated(kind, id, d, p, duration, fix: fix, into: &out) }
    }

    /// The keys, quotes and punctuation of the longest record `writeLocated` writes (an exit
    /// with a time, a duration and a trace: 90 bytes), with room to spare.
    static let locatedSyntaxWidth = 128

    // SAFETY: `id` is the caller's (the fence table's bytes), valid for the call.
    private static func writeLocated(
        _ kind: StaticString, _ id: UnsafeBufferPointer<UInt8>, _ d: Double, _ p: Double, _ duration: Double?,
        fix: Fix, into out: inout [UInt8]
    ) {
        // The keys and punctuation, and each value's widest text.
        var width = locatedSyntaxWidth + Timestamp.maxWidth + 2 + 6 * id.count + DecimalNumber.maxWidth(fix.lat)
        width += DecimalNumber.maxWidth(fix.lon) + DecimalNumber.maxWidth(d) + DecimalNumber.maxCompactWidth(p)
        if let duration { width += DecimalNumber.maxWidth(duration) }
        if let trace = fix.trace { width += stringWidth(trace) }
        // SAFETY: a stack buffer of `width` bytes, alive for the closure only: every piece written
        // is counted in `width` above, and the bytes are copied into `out` before it ends.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: width) { b in
            guard var at = b.baseAddress else { return }
            let start = at
            @inline(__always) func raw(_ s: StaticString) {
                // SAFETY: a StaticString's bytes are in the binary, `utf8CodeUnitCount` of them;
                // `at` has room for them (counted in `width`).
                UnsafeMutableRawPointer(at).copyMemory(from: s.utf8Start, byteCount: s.utf8CodeUnitCount)
                at += s.utf8CodeUnitCount
            }
            if let t = fix.time {
                raw(#"{"time":""#)
                at += t.write(to: at)
                raw(#"","event":""#)
            } else {
                raw(#"{"event":""#)
            }
            raw(kind)
            raw(#"","fence":"#)
            at += writeString(utf8: id, to: at)
            raw(#","lat":"#)
            at += DecimalNumber.write(fix.lat, to: at)
            raw(#","lon":"#)
            at += DecimalNumber.write(fix.lon, to: at)
            raw(#","distance":"#)
            at += DecimalNumber.write(d, to: at)
            raw(#","p":"#)
            at += DecimalNumber.writeCompact(p, to: at)
            if let duration {
                raw(#","duration":"#)
                at += DecimalNumber.write(duration, to: at)
            }
            if let trace = fix.trace {
                raw(#","trace":"#)
                at += writeString(trace, to: at)
            }
            raw("}\n")
            assert(at - start <= width, "an event record wider than its buffer")
            out.append(contentsOf: UnsafeBufferPointer(start: start, count: at - start))
        }
    }
}

extension FenceRuleKind: OptionChoice {
    /// In the order --help lists them: the default first.
    public static let allCases: [FenceRuleKind] = [.confident, .adaptive, .steady, .naive]
    public static let what = "a rule"
}

/// How a fence starts (`--assume`).
enum FenceStart: String, OptionChoice {
    case outside, inside
    static let what = "a state"
}
