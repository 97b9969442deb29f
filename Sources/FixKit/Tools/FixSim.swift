/// fixsim: scripted, noisy walks as fixes.
public struct FixSim: Tool {
    public static let description = ToolDescription(
        name: "fixsim",
        operands: "",
        summary:
            "Write fixes for scripted walks: along waypoints at a speed and rate, with seeded noise as receivers make it.",
        details: """
            The route is --waypoints in degrees, or --route in metres east,north of --origin.
            Each trace walks it with its own noise (seed + trace number); traces are written
            one after another. speed is a receiver's Doppler speed (true speed plus
            --speed-noise), course the direction of travel (absent while standing).
            The position error is fresh every fix, or with --noise-tau a Gauss-Markov error
            that wanders with that time constant; --outliers throws some fixes away.

            Examples:
              fixsim --origin 51.5,-0.12 --route -300,95:300,95 --traces 100 |
                fencerule --fences fence.json --rule naive
              fixsim --waypoints 51.5,-0.13:51.501,-0.125:51.5,-0.12 --pause 60 |
                fix2gpx --xcode > Walk.gpx
            """,
        options: [
            OptionSpec(
                "waypoints", value: "LAT,LON:...", help: "The route in WGS 84 degrees, points separated by ':'."),
            OptionSpec("origin", value: "LAT,LON", help: "The origin of --route."),
            OptionSpec(
                "route", value: "E,N:...", help: "The route in metres east,north of --origin, points separated by ':'."),
            .number("speed", value: "V", in: 1e-6...1e5, help: "Walking speed in m/s (default 1.4)."),
            .number("rate", value: "HZ", in: 1e-6...1000, help: "Fixes per second (default 1)."),
            .number(
                "noise", value: "S", in: 0...1e6,
                help: "Position noise, metres per axis, standard deviation (default 8)."),
            .number(
                "noise-tau", value: "S", in: 0...1e9,
                help:
                    "Time constant of the position error in seconds: a first-order Gauss-Markov error with the same σ (default 0: independent per fix)."
            ),
            .number(
                "outliers", value: "P", in: 0...1,
                help: "Probability that a fix is replaced by one --outlier-size metres away (default 0)."),
            .number(
                "outlier-size", value: "M", in: 0...1e7,
                help: "How far an outlier is thrown from its fix, metres (default 100)."),
            .number("hacc", value: "M", in: 0...1e6, help: "The hacc written (default: --noise times --hacc-scale)."),
            .number(
                "hacc-scale", value: "K", in: 0...1e6,
                help: "Write hacc as K times the true noise, a receiver that over- or understates it (default 1)."),
            .number(
                "speed-noise", value: "S", in: 0...1e6,
                help: "Standard deviation of the reported speed, m/s (default 0.1)."),
            .number(
                "pause", value: "S", in: 0...1e9,
                help: "Seconds standing at each waypoint between the first and the last (default 0)."),
            .time("start", help: "Time of the first fix (default 2026-01-01T09:00:00Z)."),
            .integer(
                "seed", value: "N", in: 0...1_000_000_000_000_000,
                help: "Random seed (default 1); trace k uses seed + k - 1."),
            .integer(
                "traces", value: "K", in: 1...10_000_000,
                help: "Number of walks (default 1), named sim-1, sim-2, ... (one walk: sim)."),
            OptionSpec("name", value: "NAME", help: "Trace name prefix (default sim)."),
        ])

    let script: WalkScript
    let traces: Int
    let name: String

    public init(options: ParsedOptions) throws {
        guard options.operands.isEmpty else {
            throw UsageError("fixsim reads no files: give the route with --waypoints or --origin and --route")
        }
        var points: [(lat: Double, lon: Double)] = []
        if let text = options.string("waypoints") {
            guard options.string("route") == nil else { throw UsageError("give --waypoints or --route, not both") }
            points = try FixSim.pairs(text, option: "waypoints").map { (lat: $0.0, lon: $0.1) }
            for p in points where abs(p.lat) > 90 || abs(p.lon) > 180 {
                throw UsageError(
                    "--waypoints \(DecimalNumber.text(p.lat)),\(DecimalNumber.text(p.lon)) is out of range")
            }
        } else if let text = options.string("route") {
            guard let originText = options.string("origin") else { throw UsageError("--route needs --origin LAT,LON") }
            let origin = try FixSim.pairs(originText, option: "origin")
            guard origin.count == 1, abs(origin[0].0) <= 90, abs(origin[0].1) <= 180 else {
                throw UsageError("--origin '\(originText)' is not one LAT,LON in range")
            }
            let frame = LocalFrame(lat: origin[0].0, lon: origin[0].1)
            let metres = try FixSim.pairs(text, option: "route")
            for (e, n) in metres where !frame.contains(east: e, north: n) {
                throw UsageError(
                    "--route point \(DecimalNumber.text(e)),\(DecimalNumber.text(n)) is off the map from --origin \(originText): a route in metres must stay within the poles and half way round the Earth"
                )
            }
            points = metres.map { frame.degrees(east: $0.0, north: $0.1) }
        } else {
            throw UsageError("give the route: --waypoints LAT,LON:LAT,LON... or --origin LAT,LON --route E,N:E,N...")
        }
        var script = WalkScript(waypoints: points)
        script.speed = options.double("speed", default: script.speed)
        script.rate = options.double("rate", default: script.rate)
        script.noise = options.double("noise", default: script.noise)
        script.noiseTau = options.double("noise-tau", default: script.noiseTau)
        script.outliers = options.double("outliers", default: script.outliers)
        script.outlierSize = options.double("outlier-size", default: script.outlierSize)
        script.hacc = options.double("hacc")
        script.haccScale = options.double("hacc-scale", default: script.haccScale)
        guard script.hacc == nil || options.string("hacc-scale") == nil else {
            throw UsageError("give --hacc or --hacc-scale, not both")
        }
        script.speedNoise = options.double("speed-noise", default: script.speedNoise)
        script.pause = options.double("pause", default: script.pause)
        if let start = options.time("start") { script.start = start }
        guard script.start.adding(seconds: script.duration) != nil else {
            throw UsageError(
                "the walk lasts \(DecimalNumber.text(script.duration.rounded())) s and would end past 9999-12-31T23:59:59.999Z, the last time RFC 3339 can write: give an earlier --start or a shorter walk"
            )
        }
        if let seed = options.integer("seed") { script.seed = UInt64(seed) }
        traces = options.integer("traces", default: 1)
        self.script = script
        name = options.string("name") ?? "sim"
    }

    static func pairs(_ text: String, option: String) throws -> [(Double, Double)] {
        try text.split(separator: ":").map { pair in
            let parts = pair.split(separator: ",")
            guard parts.count == 2, let a = DecimalNumber.parse(String(parts[0])),
                let b = DecimalNumber.parse(String(parts[1]))
            else {
                throw UsageError("--\(option) '\(pair)' is not a pair of numbers X,Y")
            }
            return (a, b)
        }
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        try context.output.document(FixLines()) { out in
            for k in 0..<traces {
                var s = script
                s.seed = script.seed &+ UInt64(k)
                let trace = traces == 1 ? name : "\(name)-\(k + 1)"
                for fix in s.fixes(trace: trace) { try out.write(fix) }
            }
        }
    }
}
