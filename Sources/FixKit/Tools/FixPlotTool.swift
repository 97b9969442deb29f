/// fixplot: one picture of what the other tools wrote.
public struct FixPlotTool: Tool {
    public static let description = ToolDescription(
        name: "fixplot",
        summary: "Draw fixes, fences, events, visits, rejects and P(inside) as one SVG, or an HTML page with --html.",
        details: """
            Reads any mix of fix records, fencerule events and --trace output, visits, and
            fixfilter rejects, and draws them on one map: north up, equal metres on both axes
            at the centre (fences are circles of their true radius), a scale bar, a colour per
            trace. With --trace output, a strip of each fence's P(inside) against time with the
            thresholds and the state held; with visits, a timeline of each day. Each drawn record
            carries its class and data attributes. The same input always gives the same bytes.

            Examples:
              gpx2fix walk.gpx | fencerule --fences shops.json |
                cat - <(gpx2fix walk.gpx) | fixplot --fences shops.json > walk.svg
              gpx2fix day.gpx | visits | fixplot --html > day.html
            """,
        options: [
            OptionSpec(
                "fences", value: "FILE",
                help: "The fences to draw, in the form fencerule --fences reads (-: standard input)."),
            OptionSpec("html", help: "Write one self-contained HTML page (legend, details on hover) instead of SVG."),
            .number("width", value: "PX", in: 200...20000, help: "The picture's width in pixels (default 960)."),
            .number(
                "height", value: "PX", in: 200...20000,
                help: "The picture's height in pixels (default 720); panels take theirs from the map's."),
            OptionSpec("title", value: "TEXT", help: "A title above the map."),
            OptionSpec("only", value: "NAME", help: "Draw the records of trace NAME alone."),
            OptionSpec(
                "color", value: "BY", choices: PlotColoring.self,
                help: "trace (default): a colour per trace; time: colour by time, with a key."),
            OptionSpec("hacc", help: "Draw each fix's accuracy circle (hacc)."),
            .number(
                "enter", value: "P", in: 0...1, help: "The enter threshold drawn on the P(inside) strip (default 0.9)."),
            .number(
                "exit", value: "P", in: 0...1, help: "The exit threshold drawn on the P(inside) strip (default 0.1)."),
        ])

    let options: PlotOptions
    let fences: [Fence]

    public init(options parsed: ParsedOptions) throws {
        var o = PlotOptions()
        o.width = parsed.double("width", default: o.width)
        o.height = parsed.double("height", default: o.height)
        o.title = parsed.string("title")
        o.only = parsed.string("only")
        o.html = parsed.has("html")
        o.drawHacc = parsed.has("hacc")
        if let by = parsed.choice("color", PlotColoring.self) { o.colorByTime = by == .time }
        o.enter = parsed.double("enter", default: o.enter)
        o.exit = parsed.double("exit", default: o.exit)
        guard o.exit < o.enter else {
            throw UsageError(
                "--exit \(DecimalNumber.text(o.exit)) must be below --enter \(DecimalNumber.text(o.enter))")
        }
        options = o
        fences =
            try parsed.file("fences", readsStandardInput: true).map { path throws(OptionFileError) in
                try FenceFile.load(path: path)
            } ?? []
    }

    public mutating func run(inputs: [InputName], context: ToolContext) throws {
        let scene = try PlotScene()
        let only = options.only
        try context.forEachFix(inputs) { fix, _, name, number in
            let record: PlotRecord
            do throws(PlotRecordError) {
                record = try PlotRecord.classify(fix)
            } catch {
                try context.diagnostics.problem(name, line: number, error.message + "; line skipped")
                return
            }
            if let only, !PlotScene.belongs(record, to: only) { return }
            try scene.add(record)
        }
        let result = try PlotRenderer(scene: scene, fences: fences, options: options).render()
        let output = context.output
        try output.document(PlotDocument(html: options.html, title: options.title)) { try $0.write(result) }
        try output.flush()
        if scene.tracedWithoutTime > 0 {
            context.diagnostics.note(
                "\(scene.tracedWithoutTime) --trace \(scene.tracedWithoutTime == 1 ? "record" : "records") without time left out of the P(inside) strip"
            )
        }
    }
}

/// What colours a trace (`--color`).
enum PlotColoring: String, OptionChoice {
    case trace, time
    static let what = "a colouring"
}
