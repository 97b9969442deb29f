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
        for kind in ["enter", "exit", "missed", "reselect"]
            + kinds.filter({
                !["enter", "exit", "missed", "reselect"].contains($0)
            }) where kinds.contains(kind)
        {
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
                (
                    .path(
                        shape, fill: filled ? Palette.event(kind) : "none",
                        stroke: filled ? "#000000" : Palette.event(kind)), kind
                ))
        }
        if !scene.visits.isEmpty {
            entries.append((.circle(fill: Palette.orange, stroke: "#8F6300"), "visit (circle: its hacc)"))
        }
        for (k, r) in scene.reasons.enumerated() {
            entries.append(
                (
                    .path("M4 -4l8 8m0-8l-8 8", fill: "none", stroke: Palette.reason(r)),
                    "rejected: \(r) (\(scene.reasonCounts[k]))"
                ))
        }
    }

    static let lineHeight = 18.0

    /// Each entry's width: its swatch and its text.
    func entryWidth(_ k: Int) -> Double {
        if case .gradient = entries[k].0 { return 50 + Double(Palette.time.count * 8) + 64 + 110 }
        return 30 + Double(entries[k].1.count) * 6.3 + 14
    }

    /// The rows the entries take, laid left to right across `width`.
    func layout(width: Double) -> [(x: Double, row: Int)] {
        var out: [(Double, Int)] = []
        var x = 0.0
        var row = 0
        for k in entries.indices {
            let w = entryWidth(k)
            if x > 0, x + w > width {
                x = 0
                row += 1
            }
            out.append((x, row))
            x += w
        }
        return out
    }

    func height(width: Double) -> Double {
        guard let last = layout(width: width).last else { return 0 }
        return Double(last.row + 1) * Legend.lineHeight + 8
    }

    /// The key as a band under the map, so that it never covers what is drawn.
    func draw(left: Double, top: Double, width: Double, scene: PlotScene, into w: inout SVGWriter) {
        guard !entries.isEmpty else { return }
        w.raw("<g class=\"legend\" font-size=\"11\">\n")
        for (k, place) in layout(width: width).enumerated() {
            let (swatch, text) = entries[k]
            let sx = left + place.x
            let cy = top + 13 + Double(place.row) * Legend.lineHeight
            w.raw("<g")
            w.attr("transform", "translate(\(MapLayer.pixels(sx)),\(MapLayer.pixels(cy)))")
            w.raw(">")
            switch swatch {
            case .line(let colour):
                w.raw("<path d=\"M0 0h16\" stroke=\"\(colour)\" stroke-width=\"3\" stroke-linecap=\"round\"/>")
            case .circle(let fill, let stroke):
                w.raw("<circle cx=\"8\" cy=\"0\" r=\"5\" fill=\"\(fill)\" fill-opacity=\"0.6\" stroke=\"\(stroke)\"/>")
            case .path(let d, let fill, let stroke):
                w.raw(
                    "<path d=\"\(d)\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"\(fill == "none" ? "2" : "0.75")\"/>"
                )
            case .gradient:
                let range = scene.timeRange
                w.raw("<text x=\"0\" y=\"4\">\(MapLayer.clock(Timestamp(seconds: range.min), open: ""))</text>")
                for (k, c) in Palette.time.enumerated() {
                    w.raw("<rect x=\"\(50 + k * 8)\" y=\"-5\" width=\"8\" height=\"10\" fill=\"\(c)\"/>")
                }
                w.raw(
                    "<text x=\"\(50 + Palette.time.count * 8 + 4)\" y=\"4\">\(MapLayer.clock(Timestamp(seconds: range.max), open: ""))</text>"
                )
            }
            if case .gradient = swatch {
                let day = String(Timestamp(seconds: scene.timeRange.min).rfc3339.prefix(10))
                w.label(
                    x: 50 + Double(Palette.time.count * 8) + 64, y: 4, "UTC, " + day, attributes: "fill=\"#333333\"")
            } else {
                w.label(x: 22, y: 4, text)
            }
            w.raw("</g>\n")
        }
        w.raw("</g>\n")
    }
}
