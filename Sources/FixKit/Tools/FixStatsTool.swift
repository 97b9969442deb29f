/// fixstats: one summary record per trace (distance, times, climb, top speed, box).
public struct FixStatsTool: Tool {
    public static let description = ToolDescription(
        name: "fixstats",
        summary:
            "Write one summary record per trace: distance, duration, moving time, ascent, descent, top speed, box.",
        details: """
            distance sums the WGS 84 distances between consecutive fixes of a trace with the
            same seg. duration is the latest time minus the earliest. moving_time sums the
            intervals between consecutive fixes of a segment that last at most --max-gap and
            whose distance over time is at least --moving-speed. ascent and descent are the
            swings of alt between alternating extrema at least --climb-threshold apart (a
            swing starts at the lowest or highest point before it: 100, 98, 110 climbs 12).
            max_speed is the largest reported speed. A figure whose inputs are absent is
            absent. Records are written at the end, in the order the traces first appear.

            Examples:
              gpx2fix rides/*.gpx | fixfilter | fixstats --total
              fixstats --only "Morning Ride" --climb-threshold 3 rides.ndjson
            """,
        options: [
            .number(
                "max-gap", value: "S", in: 0...1e12, orOff: true,
                help: "The longest interval between fixes that counts as moving, seconds (default 60, or off)."),
            .number(
                "moving-speed", value: "V", in: 0...1e9,
                help: "The slowest distance over time between fixes that counts as moving, m/s (default 0.5)."),
            .number(
                "climb-threshold", value: "M", in: 0...1e6,
                help: "Ignore reversals of altitude smaller than M metres in ascent and descent (default 5)."),
            OptionSpec("total", help: "Write one more record, \"trace\":null, over all traces."),
            OptionSpec("only", value: "NAME", help: "Keep the fixes of trace NAME alone."),
        ])

    let settings: StatsSettings
    let total: Bool
    let only: String?

    public init(options: ParsedOptions) throws {
        var s = StatsSettings()
        s.maxGap = options.double("max-gap", default: s.maxGap)
        s.movingSpeed = options.double("moving-speed", default: s.movingSpeed)
        s.climbThreshold = options.double("climb-threshold", default: s.climbThreshold)
        settings = s
        total = options.has("total")
        only = options.string("only")
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        let settings = self.settings
        var traces = TraceStore(make: { _ in TraceStats(settings: settings) })
        let only = self.only
        try context.forEachFix(inputs) { fix, _, _, _ in
            if let only, fix.trace != only { return }
            traces.withState(fix.trace) { $0.add(fix) }
        }
        let total = self.total
        try context.output.document(StatsLines()) { out in
            var sum = StatsRecord()
            // In order of first appearance, the fixes without a trace among them.
            try traces.forEach { trace, s in
                let record = StatsRecord(s)
                try out.write((record, trace.map { .name($0) } ?? .none))
                sum.add(record)
            }
            if total { try out.write((sum, .total)) }
        }
    }
}
