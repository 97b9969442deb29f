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
            "trace" copied and, on an exit, "duration": the seconds since its enter; under --limit also "reselect" (the fences now watched, and the
            refresh circle) and "missed" (a fence entered while unwatched).

            Examples:
              gpx2fix walk.gpx | fencerule --fences shops.json
              fixsim --origin 51.5,-0.12 --route -300,0:300,0 | fencerule --fences f.json --trace
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
            var reported: [(Int, Double, Double, Bool)] = []
            let collect: ((Int, Double, Double, Bool) -> Void)? =
                traceOutput ? { reported.append(($0, $1, $2, $3)) } : nil
            let events = traces.withState(fix.trace) { engine.process(point, trace: &$0, fences: collect) }
            if traceOutput {
                var member = Array("\"fences\":{".utf8)
                for (k, (index, p, d, inside)) in reported.enumerated() {
                    if k > 0 { member.append(UInt8(ascii: ",")) }
                    writeString(fences.id(index), into: &member)
                    member.append(contentsOf: ":{\"p\":".utf8)
                    DecimalNumber.writeCompact(p, into: &member)
                    member.append(contentsOf: ",\"distance\":".utf8)
                    DecimalNumber.write(d, into: &member)
                    member.append(contentsOf: (inside ? ",\"inside\":true}" : ",\"inside\":false}").utf8)
                }
                member.append(UInt8(ascii: "}"))
                try tracedLines.write(.appending(member, to: line))
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

    /// One event record: time, event, fence (or fences), lat, lon, distance (or radius), p,
    /// then trace.
    static func write(_ event: FenceEvent, fix: Fix, fences: FenceTable, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let t = fix.time {
            out.append(contentsOf: "\"time\":\"".utf8)
            t.write(into: &out)
            out.append(contentsOf: "\",".utf8)
        }
        func located(_ kind: String, _ k: Int, _ d: Double, _ p: Double, duration: Double? = nil) {
            out.append(contentsOf: "\"event\":\"\(kind)\",\"fence\":".utf8)
            writeString(fences.id(k), into: &out)
            out.append(contentsOf: ",\"lat\":".utf8)
            DecimalNumber.write(fix.lat, into: &out)
            out.append(contentsOf: ",\"lon\":".utf8)
            DecimalNumber.write(fix.lon, into: &out)
            out.append(contentsOf: ",\"distance\":".utf8)
            DecimalNumber.write(d, into: &out)
            out.append(contentsOf: ",\"p\":".utf8)
            DecimalNumber.writeCompact(p, into: &out)
            if let duration {
                out.append(contentsOf: ",\"duration\":".utf8)
                DecimalNumber.write(duration, into: &out)
            }
        }
        switch event {
        case .enter(let k, let d, let p): located("enter", k, d, p)
        case .exit(let k, let d, let p, let duration): located("exit", k, d, p, duration: duration)
        case .missed(let k, let d, let p): located("missed", k, d, p)
        case .reselect(let watched, let radius):
            out.append(contentsOf: "\"event\":\"reselect\",\"fences\":[".utf8)
            for (i, k) in watched.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(fences.id(k), into: &out)
            }
            out.append(contentsOf: "],\"lat\":".utf8)
            DecimalNumber.write(fix.lat, into: &out)
            out.append(contentsOf: ",\"lon\":".utf8)
            DecimalNumber.write(fix.lon, into: &out)
            if let radius {
                out.append(contentsOf: ",\"radius\":".utf8)
                DecimalNumber.write(radius, into: &out)
            }
        }
        if let trace = fix.trace {
            out.append(contentsOf: ",\"trace\":".utf8)
            writeString(trace, into: &out)
        }
        out.append(contentsOf: "}\n".utf8)
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
