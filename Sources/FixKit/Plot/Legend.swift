/// The map's key, in its top left corner: each trace's colour (or the time bands of `--color
/// time`, with the first and last times), then one line for each other kind of mark drawn,
/// rejects with their counts per reason. Only what is drawn is listed.
struct Legend {
    enum Swatch {
        case line(String)
        case circle(fill: String, stroke: String)
        case path(String, fill: String, stroke: String)
        case gradient
    }

    var entries: [(Swatch, String)] = []

    init(scene: PlotScene, fences: Int, options: PlotOptions) {
        if options.colorByTime, !scene.timeRange.isEmpty {
            entries.append((.gradient, "time"))
        } else {
            var drawn = 0
            var left = 0
            for k in scene.traceNames.indices where scene.fixCounts[k] > 0 {
                if drawn == 8 {
                    left += 1
                    continue
                }
                drawn += 1
                entries.append((.line(scene.colours[k]), k == 0 ? "(no trace)" : scene.traceNames[k]))
            }
            if left > 0 { entries.append((.line("#FFFFFF"), "and \(left) more traces")) }
        }
        if fences > 0 { entries.append((.circle(fill: "#DDDDDD", stroke: "#555555"), "fence")) }
        var kinds: [String] = []
        for e in scene.events where !kinds.contains(e.kind) { kinds.append(e.kind) }
        for kind in ["enter", "exit", "missed", "reselect"] + kinds.filter({
            !["enter", "exit", "missed", "reselect"].contains($0)
        }) where kinds.contains(kind) {
            let shape: String
            switch kind {
            case "enter": shape = "M8 -6l6 10h-12z"
            case "exit": shape = "M8 6l6-10h-12z"
            case "missed": shape = "M3 -5l10 10m0-10l-10 10"
            case "reselect": shape = "M8 -5l5 5-5 5-5-5z"
            default: shape = "M4 -4h8v8h-8z"
            }
            let filled = kind != "missed"
            entries.append(
                (.path(shape, fill: filled ? Palette.event(kind) : "none", stroke: filled ? "#FFFFFF" : Palette.event(kind)), kind))
        }
        if !scene.visits.isEmpty {
            entries.append((.circle(fill: Palette.orange, stroke: "#8F6300"), "visit (circle: its hacc)"))
        }
        for (k, r) in scene.reasons.enumerated() {
            entries.append((.path("M4 -4l8 8m0-8l-8 8", fill: "none", stroke: Palette.reason(r)), "rejected: \(r) (\(scene.reasonCounts[k]))"))
        }
    }

    func draw(at x: Double, _ y: Double, scene: PlotScene, into w: inout SVGWriter) {
        guard !entries.isEmpty else { return }
        let lineHeight = 16.0
        let widest = entries.map { $0.1.count }.max() ?? 0
        let boxWidth = min(Double(widest) * 6.3 + 40, 320) + (entries.contains { if case .gradient = $0.0 { return true }; return false } ? 110 : 0)
        w.raw("<g class=\"legend\" font-size=\"11\">")
        w.raw("<rect fill=\"#FFFFFF\" fill-opacity=\"0.88\" stroke=\"#BBBBBB\"")
        w.px("x", x)
        w.px("y", y)
        w.px("width", boxWidth)
        w.px("height", Double(entries.count) * lineHeight + 8)
        w.raw("/>\n")
        for (i, (swatch, text)) in entries.enumerated() {
            let sx = x + 8
            let cy = y + 12 + Double(i) * lineHeight
            w.raw("<g")
            w.attr("transform", "translate(\(MapLayer.pixels(sx)),\(MapLayer.pixels(cy)))")
            w.raw(">")
            switch swatch {
            case .line(let colour):
                w.raw("<path d=\"M0 0h16\" stroke=\"\(colour)\" stroke-width=\"3\" stroke-linecap=\"round\"/>")
            case .circle(let fill, let stroke):
                w.raw("<circle cx=\"8\" cy=\"0\" r=\"5\" fill=\"\(fill)\" fill-opacity=\"0.6\" stroke=\"\(stroke)\"/>")
            case .path(let d, let fill, let stroke):
                w.raw("<path d=\"\(d)\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"\(fill == "none" ? 2 : 1)\"/>")
            case .gradient:
                let range = scene.timeRange
                w.raw("<text x=\"0\" y=\"4\">\(MapLayer.clock(Timestamp(seconds: range.min), open: ""))</text>")
                for (k, c) in Palette.time.enumerated() {
                    w.raw("<rect x=\"\(40 + k * 8)\" y=\"-5\" width=\"8\" height=\"10\" fill=\"\(c)\"/>")
                }
                w.raw("<text x=\"\(40 + Palette.time.count * 8 + 4)\" y=\"4\">\(MapLayer.clock(Timestamp(seconds: range.max), open: ""))</text>")
            }
            if case .gradient = swatch {
                let day = String(Timestamp(seconds: scene.timeRange.min).rfc3339.prefix(10))
                w.label(x: 40 + Double(Palette.time.count * 8) + 48, y: 4, "UTC, " + day, attributes: "fill=\"#333333\"")
            } else {
                w.label(x: 22, y: 4, text)
            }
            w.raw("</g>\n")
        }
        w.raw("</g>\n")
    }
}
