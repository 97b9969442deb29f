/// The strip under the map for `fencerule --trace` input: a row per trace and fence, with the
/// fence's P(inside) against time, the enter and exit thresholds dashed, the state the rule
/// held shaded, and the trace's events marked where they were written.
///
/// The rows shown are the series whose P reached the exit threshold or that were held inside
/// (a fence the trace never came near has nothing to show), in order of first appearance, at
/// most `PlotMetrics.maxStripRows`; the header counts the rest. A fence a --trace record leaves
/// out has P below 1e-12 there, and is drawn at 0.
struct PInsidePanel {
    let top: Double
    let left: Double
    let width: Double
    let shown: [Int32]
    let hidden: Int
    let axis: TimeAxis
    let options: PlotOptions
    var rows: [Row]
    /// Row of each series index, -1 when not shown.
    var rowOf: [Int]
    /// Shown rows of each trace.
    var rowsOfTrace: [[Int]]
    var generation = 0

    struct Row {
        var trace: Int32
        var fence: String
        var maxP: Double
        var simplifier = ScreenSimplifier<Double>(tolerance: PlotMetrics.tolerance)
        var path = TraceDrawing()
        var held: [UInt8] = []
        var heldFrom: Double?
        var pendingHeld: (Double, Double)?
        var lastX: Double?
        var seen = -1
    }

    static func choose(_ scene: PlotScene, options: PlotOptions) -> (shown: [Int32], hidden: Int) {
        let candidates = scene.series.indices.filter {
            scene.series[$0].maxP >= options.exit || scene.series[$0].everInside
        }
        let shown = candidates.prefix(PlotMetrics.maxStripRows).map(Int32.init)
        return (Array(shown), candidates.count - shown.count)
    }

    static func height(rows: Int) -> Double {
        rows == 0 ? 0 : PlotMetrics.panelHeader + Double(rows) * PlotMetrics.stripRow + PlotMetrics.panelAxis
    }

    init(scene: PlotScene, shown: [Int32], hidden: Int, top: Double, width: Double, options: PlotOptions) {
        self.top = top
        left = PlotMetrics.margin
        self.width = width - PlotMetrics.margin - 80
        self.shown = shown
        self.hidden = hidden
        self.options = options
        axis = TimeAxis(t0: scene.sampleTimes.min, t1: scene.sampleTimes.max, left: left, width: self.width)
        rowOf = Array(repeating: -1, count: scene.series.count)
        rowsOfTrace = Array(repeating: [], count: scene.traceNames.count)
        rows = []
        for (r, s) in shown.enumerated() {
            let series = scene.series[Int(s)]
            rowOf[Int(s)] = r
            rowsOfTrace[Int(series.trace)].append(r)
            rows.append(Row(trace: series.trace, fence: series.fence, maxP: series.maxP))
        }
    }

    func rowTop(_ r: Int) -> Double { top + PlotMetrics.panelHeader + Double(r) * PlotMetrics.stripRow }
    func plotTop(_ r: Int) -> Double { rowTop(r) + 16 }
    func plotBottom(_ r: Int) -> Double { rowTop(r) + PlotMetrics.stripRow - 6 }
    func y(_ r: Int, _ p: Double) -> Double { plotBottom(r) - p * (plotBottom(r) - plotTop(r)) }

    mutating func add(_ s: SpooledSample) {
        if s.series < 0 {
            // The end of one --trace record: the shown fences it left out are at P = 0.
            let k = Int(-1 - s.series)
            for r in rowsOfTrace[k] where rows[r].seen != generation {
                sample(r, time: s.time, p: 0, inside: false)
            }
            generation += 1
            return
        }
        let r = rowOf[Int(s.series)]
        guard r >= 0 else { return }
        rows[r].seen = generation
        sample(r, time: s.time, p: s.p, inside: s.inside != 0)
    }

    mutating func sample(_ r: Int, time: Double, p: Double, inside: Bool) {
        let x = axis.x(time)
        if rows[r].path.verticesInPath == 0, !rows[r].path.open { rows[r].path.openPath(seg: 0, stroke: nil) }
        if let v = rows[r].simplifier.add(x: PathGrid.units(x), y: PathGrid.units(y(r, p)), payload: time) {
            rows[r].path.vertex((v.x, v.y, VertexDetails(time: v.payload, hacc: .nan, speed: .nan)), html: false)
        }
        rows[r].lastX = x
        if inside, rows[r].heldFrom == nil { rows[r].heldFrom = x }
        if !inside, let from = rows[r].heldFrom {
            endHeld(r, from, x)
            rows[r].heldFrom = nil
        }
    }

    /// Held stretches less than half a pixel apart are drawn as one rectangle.
    mutating func endHeld(_ r: Int, _ from: Double, _ to: Double) {
        if let (a, b) = rows[r].pendingHeld {
            if from - b < 0.5 {
                rows[r].pendingHeld = (a, to)
                return
            }
            writeHeld(r, a, b)
        }
        rows[r].pendingHeld = (from, to)
    }

    mutating func writeHeld(_ r: Int, _ a: Double, _ b: Double) {
        var w = SVGWriter()
        w.raw("<rect class=\"held\"")
        w.px("x", a)
        w.px("y", plotTop(r))
        w.px("width", max(b - a, 0.5))
        w.px("height", plotBottom(r) - plotTop(r))
        w.raw("/>")
        rows[r].held.append(contentsOf: w.out)
    }

    mutating func draw(scene: PlotScene, into w: inout SVGWriter) {
        let right = left + width
        w.raw("<g class=\"panel p-inside\" font-size=\"11\">\n")
        var header = "P(inside) against time (UTC); dashed: enter \(DecimalNumber.text(options.enter)), exit "
        header += "\(DecimalNumber.text(options.exit)); shaded: held inside"
        if hidden > 0 { header += "; \(hidden) more not shown" }
        w.label(x: left, y: top + 17, header, attributes: "font-weight=\"bold\"")
        let multipleTraces = Set(rows.map(\.trace)).count > 1
        for r in rows.indices {
            if let from = rows[r].heldFrom, let x = rows[r].lastX { endHeld(r, from, x) }
            if let (a, b) = rows[r].pendingHeld { writeHeld(r, a, b) }
            if let v = rows[r].simplifier.finish() {
                rows[r].path.vertex((v.x, v.y, VertexDetails(time: v.payload, hacc: .nan, speed: .nan)), html: false)
            }
            if rows[r].path.open { rows[r].path.close(html: false) }
            let row = rows[r]
            let colour = scene.colours[Int(row.trace)]
            w.raw("<g class=\"series\"")
            w.attr("data-trace", scene.traceNames[Int(row.trace)])
            w.attr("data-fence", row.fence)
            w.number("data-max-p", row.maxP)
            w.raw(">\n<rect fill=\"#F4F4F4\"")
            w.px("x", left)
            w.px("y", plotTop(r))
            w.px("width", width)
            w.px("height", plotBottom(r) - plotTop(r))
            w.raw("/>\n<g fill=\"\(Palette.bluishGreen)\" fill-opacity=\"0.22\">")
            w.raw(row.held)
            w.raw("</g>\n")
            for (name, p) in [("enter", options.enter), ("exit", options.exit)] {
                w.raw("<line class=\"threshold\"")
                w.attr("data-threshold", name)
                w.number("data-p", p)
                w.px("x1", left)
                w.px("x2", right)
                w.px("y1", y(r, p))
                w.px("y2", y(r, p))
                w.raw(" stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"5 3\"/>")
                w.label(
                    x: right + 4, y: y(r, p) + 4, "\(name) \(DecimalNumber.text(p))",
                    attributes: "font-size=\"10\" fill=\"#555555\"")
            }
            w.raw("<g class=\"p\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\" stroke-linejoin=\"round\">")
            w.raw(row.path.paths)
            w.raw("</g>\n")
            for e in scene.events {
                guard e.fence == row.fence, let t = e.time, scene.traceIndex[e.trace ?? ""] ?? 0 == row.trace
                else { continue }
                let x = axis.x(t.seconds)
                let up = e.kind == "enter"
                w.raw("<path class=\"event-mark\"")
                w.attr("data-event", e.kind)
                w.attr("fill", Palette.event(e.kind))
                w.raw(" d=\"M")
                PathGrid.write(pixels: x, into: &w.out)
                w.raw(" ")
                PathGrid.write(pixels: up ? plotTop(r) - 1 : plotTop(r) - 9, into: &w.out)
                w.raw(up ? "l-4-8h8z\"/>" : "l-4 0h8l-4 8z\"/>")
            }
            var label = row.fence
            if multipleTraces || row.trace != 0 {
                label = scene.traceNames[Int(row.trace)] + " · " + row.fence
            }
            w.label(x: left, y: rowTop(r) + 12, label, attributes: "fill=\"#000000\"")
            w.raw("</g>\n")
        }
        let axisY = plotBottom(rows.count - 1) + 6
        axis.draw(y: axisY, gridTop: nil, into: &w)
        w.raw("</g>\n")
    }
}
