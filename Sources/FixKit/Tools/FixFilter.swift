#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// fixfilter: drops the fixes that should never reach a user, each for a named reason.
public struct FixFilter: Tool {
    public static let description = ToolDescription(
        name: "fixfilter",
        summary:
            "Drop fixes that should never reach a user (bad accuracy, stale, impossible speed, course without accuracy, too little movement).",
        details: """
            Rules, in the order that names a rejection's reason: hacc, age, speed, course,
            move. Give any rule the value off to turn it off. State (the clock, the last fix
            passed) is kept per trace. Fixes that pass are written unchanged, byte for byte,
            except for a stripped course.

            Presets (--preset NAME[,NAME...]; options given explicitly win):
            \(ToolDescription.table(FilterPreset.all.map { ($0.name, $0.summary) }, nameWidth: 20, width: ToolDescription.helpWidth))

            Examples:
              gpx2fix ride.gpx | fixfilter --stats > clean.ndjson
              fixfilter --preset significant-change --rejects dropped.ndjson day.ndjson
            """,
        options: [
            .number(
                "max-hacc", value: "M", in: 0...Double.greatestFiniteMagnitude, orOff: true,
                help: "Reject hacc negative or >= M metres (default 100, or off)."),
            OptionSpec("require-hacc", help: "Reject fixes without hacc (reason hacc); by default they pass."),
            .number(
                "max-age", value: "S", in: 1e-3...Double.greatestFiniteMagnitude, orOff: true,
                help:
                    "Reject a fix S or more seconds older than the clock: the newest time seen on its trace, or --now (default 15, or off)."
            ),
            .time(
                "now",
                help: "Fix the clock at TIME (RFC 3339); fixes S or more seconds in the future are rejected too."),
            .number(
                "max-speed", value: "V", in: 0...Double.greatestFiniteMagnitude, orOff: true,
                help: "Reject a reported speed above V m/s (default 80, or off)."),
            OptionSpec(
                "course", value: "MODE", choices: CourseMode.self,
                help:
                    "A course without a valid cacc (present, >= 0): strip it (default), reject the fix, or keep it (also: off)."
            ),
            .number(
                "min-move", value: "M", in: 0...Double.greatestFiniteMagnitude, orOff: true,
                help: "Reject a fix less than M metres from the last fix passed on its trace (default 10, or off)."),
            OptionSpec(
                "preset", value: "NAME", choices: FilterPreset.all.map(\.name),
                help: "Start from a preset's values (see below); several: a,b."),
            OptionSpec(
                "rejects", value: "FILE",
                help:
                    "Write every rejected fix there, unchanged, with \"reason\" added (-: to standard output, among the fixes passed)."
            ),
            OptionSpec("stats", help: "Write counts per reason on standard error at the end."),
        ])

    public let rules: FilterRules
    let rejects: OutputSink?
    let rejectsPath: String?
    /// `--rejects -`: rejects go to standard output, in input order among the fixes passed.
    let rejectsToOutput: Bool
    let stats: Bool

    public init(options: ParsedOptions) throws {
        var rules = FilterRules()
        if let names = options.string("preset") {
            for name in names.split(separator: ",").map(String.init) {
                guard let preset = FilterPreset.named(name) else {
                    throw UsageError(
                        "--preset '\(name)' is not a preset: expected one of \(FilterPreset.all.map(\.name).joined(separator: ", "))"
                    )
                }
                preset.apply(to: &rules)
            }
        }
        rules.maxHacc = options.double("max-hacc", default: rules.maxHacc)
        rules.maxAge = options.double("max-age", default: rules.maxAge)
        rules.maxSpeed = options.double("max-speed", default: rules.maxSpeed)
        rules.minMove = options.double("min-move", default: rules.minMove)
        rules.requireHacc = options.has("require-hacc")
        rules.now = options.time("now")
        if let mode = options.choice("course", CourseMode.self) { rules.course = mode }
        self.rules = rules
        stats = options.has("stats")
        rejectsPath = options.string("rejects")
        rejectsToOutput = rejectsPath == "-"
        if let path = rejectsPath, !rejectsToOutput {
            try FileIdentity.refuse("--rejects \(shownPath(path))", at: path, ifAmong: options.inputs)
            do throws(SystemError) { rejects = OutputSink(fd: try System.createForWriting(path, mode: 0o644)) } catch {
                throw OptionFileError("cannot write --rejects \(shownPath(path)): \(error.reason)")
            }
        } else {
            rejects = nil
        }
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        let output = context.output
        var traces = TraceStore(make: { _ in TraceFilterState() })
        // Rejections per reason, indexed by `RejectReason.index` (a dictionary's hashing was
        // 4% of a run where most fixes are rejected).
        var counts = [Int](repeating: 0, count: RejectReason.allCases.count)
        var read = 0
        let rules = self.rules
        let rejects = self.rejects
        let rejectsPath = self.rejectsPath
        let rejectsToOutput = self.rejectsToOutput
        // The rejects file is written and closed however the run ends (--strict, a closed pipe).
        defer {
            if let rejects {
                try? rejects.flush()
                System.close(rejects.fd)
            }
        }
        // A failure to write the rejects file is its own error, not standard output's.
        func rejectsFailed(_ error: OutputError) -> ToolFailure {
            let reason: String
            switch error {
            case .closed: reason = "the reader closed it"
            case .failed(let e): reason = SystemError.describe(e)
            }
            return ToolFailure("writing --rejects \(shownPath(rejectsPath ?? "")) failed: \(reason)")
        }
        let diagnostics = context.diagnostics
        let maxAge = rules.maxAge
        // A trace whose time jumps back by more than --max-age loses every fix until its time
        // catches up: said once per trace, at the second fix of such a run, since two
        // recordings given one trace name look like that.
        func watchAge(_ verdict: Verdict, _ fix: Fix, _ state: inout TraceFilterState, _ name: InputName, _ number: Int)
        {
            guard rules.now == nil, let maxAge else { return }
            guard case .reject(.age) = verdict else {
                state.ageRun = 0
                return
            }
            state.ageRun += 1
            if state.ageRun == 1 { state.ageRunStart = (number, name, fix.time) }
            guard state.ageRun == 2, !state.saidBackInTime, let start = state.ageRunStart, let clock = state.clock
            else { return }
            state.saidBackInTime = true
            let trace = fix.trace.map { "trace \"\($0)\"" } ?? "the fixes without trace"
            let to = start.time.map { " to \($0.rfc3339)" } ?? ""
            try? output.flush()
            diagnostics.note(
                "\(start.input.shown):\(start.line): \(trace) goes back in time from \(clock.rfc3339)\(to), more than --max-age (\(DecimalNumber.text(maxAge)) s): its fixes are rejected as age until they are newer than that (two recordings with one trace name?); said once per trace"
            )
        }
        // Fixes passed (and rejects under --rejects -) go to standard output; rejects to their file.
        var kept = output.open(RawLines())
        var rejected = rejects.map { $0.open(RawLines()) }
        defer {
            kept.close()
            rejected?.close()
        }
        try context.forEachFix(inputs) { fix, line, course, name, number in
            read += 1
            let verdict = traces.withState(fix.trace) { state in
                let verdict = rules.judge(fix, state: &state)
                watchAge(verdict, fix, &state, name, number)
                return verdict
            }
            switch verdict {
            case .pass(let strip):
                // Two calls, so that each record's case is known where it is made (nothing to
                // release after it).
                if strip {
                    try kept.write(.removing("course", course, from: line))
                } else {
                    try kept.write(.unchanged(line))
                }
            case .reject(let reason):
                counts[reason.index] += 1
                if rejectsToOutput {
                    try kept.write(.appending(reason.member, to: line))
                } else if rejected != nil {
                    do throws(OutputError) {
                        try rejected?.write(.appending(reason.member, to: line))
                    } catch { throw rejectsFailed(error) }
                }
            }
        }
        let stripped = kept.writer.removed
        do throws(OutputError) { try rejects?.flush() } catch { throw rejectsFailed(error) }
        if stats {
            let rejected = counts.reduce(0, +)
            let perReason = RejectReason.allCases.map { "\($0.rawValue) \(counts[$0.index])" }.joined(
                separator: ", ")
            context.diagnostics.note(
                "\(read) fixes read, \(read - rejected) passed, \(rejected) rejected (\(perReason)); course stripped from \(stripped)"
            )
        }
    }
}

extension RejectReason {
    /// Its place in `allCases`.
    var index: Int {
        switch self {
        case .hacc: 0
        case .age: 1
        case .speed: 2
        case .course: 3
        case .move: 4
        }
    }

    /// The `"reason":"…"` member added to a rejected fix.
    var member: [UInt8] { Array("\"reason\":\"\(rawValue)\"".utf8) }
}

extension CourseMode: OptionChoice {
    public static let what = "a mode"
    /// `--course off`: no course rule, which keeps the course.
    public static let aliases: [(word: String, value: CourseMode)] = [("off", .keep)]
}
