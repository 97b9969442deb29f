#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The timeline under the map for visits: a row per UTC day (and trace, when there are
/// several), with each stay as a bar from arrival to departure, numbered as on the map, and
/// the moves between a trace's consecutive stays as a line.
///
/// An end the input does not show (`null`) is drawn from the earliest, or to the latest, time
/// of anything in the input, when that is beyond the other end; otherwise the bar is cut at
/// the day's edge. Such an end is drawn ragged (a dashed edge). The hours shown are those the
/// stays and moves cover, rounded out to whole hours; 00:00 to 24:00 when one crosses midnight.
struct TimelinePanel {
    struct Piece {
        var row: Int
        var from: Double
        var to: Double
        var visit: Int?
        var openStart: Bool
        var openEnd: Bool
    }

    struct RowKey: Hashable {
        var day: Int64
        var trace: Int32
    }

    var rows: [RowKey] = []
    var pieces: [Piece] = []
    var hidden = 0
    var hourFrom = 0.0
    var hourTo = 24.0

    static let day = 86_400.0

    init(scene: PlotScene) {
        struct Span {
            var visit: Int
            var trace: Int32
            var from: Double
            var to: Double
            var openStart: Bool
            var openEnd: Bool
        }
        var spans: [Span] = []
        let earliest = scene.timeRange.min
        let latest = scene.timeRange.max
        for (n, v) in scene.visits.enumerated() {
            let k = scene.traceIndex[v.trace ?? ""] ?? 0
            var from = v.arrival?.seconds
            var to = v.departure?.seconds
            if from == nil, let t = to { from = earliest < t ? earliest : floor(t / Self.day) * Self.day }
            if to == nil, let f = from { to = latest > f ? latest : floor(f / Self.day) * Self.day + Self.day }
            guard let f = from, let t = to, t >= f else { continue }
            spans.append(
                Span(visit: n, trace: k, from: f, to: t, openStart: v.arrival == nil, openEnd: v.departure == nil))
        }
        spans.sort { ($0.trace, $0.from, $0.visit) < ($1.trace, $1.from, $1.visit) }
        var keys: [RowKey] = []
        var raw: [(key: RowKey, piece: Piece)] = []
        func cut(_ from: Double, _ to: Double, trace: Int32, visit: Int?, openStart: Bool, openEnd: Bool) {
            var d = floor(from / Self.day)
            while d * Self.day < to || (from == to && d * Self.day <= from) {
                let a = max(from, d * Self.day)
                let b = min(to, (d + 1) * Self.day)
                let key = RowKey(day: Int64(d), trace: trace)
                keys.append(key)
                raw.append(
                    (
                        key,
                        Piece(
                            row: 0, from: a, to: b, visit: visit, openStart: openStart && a == from,
                            openEnd: openEnd && b == to)
                    ))
                d += 1
                if from == to { break }
            }
        }
        for (i, s) in spans.enumerated() {
            cut(s.from, s.to, trace: s.trace, visit: s.visit, openStart: s.openStart, openEnd: s.openEnd)
            if i + 1 < spans.count, spans[i + 1].trace == s.trace, spans[i + 1].from > s.to {
                cut(s.to, spans[i + 1].from, trace: s.trace, visit: nil, openStart: false, openEnd: false)
            }
        }
        let ordered = Array(Set(keys)).sorted { ($0.day, $0.trace) < ($1.day, $1.trace) }
        rows = Array(ordered.prefix(PlotMetrics.maxTimelineRows))
        hidden = ordered.count - rows.count
        var rowIndex: [RowKey: Int] = [:]
        for (i, k) in rows.enumerated() { rowIndex[k] = i }
        var lo = 24.0
        var hi = 0.0
        for (key, var piece) in raw {
            guard let r = rowIndex[key] else { continue }
            piece.row = r
            let base = Double(key.day) * Self.day
            lo = min(lo, floor((piece.from - base) / 3600))
            hi = max(hi, ceil((piece.to - base) / 3600))
            pieces.append(piece)
        }
        if lo < hi {
            hourFrom = lo
            hourTo = hi
        } else if !pieces.isEmpty {
            hourFrom = max(lo - 1, 0)
            hourTo = min(lo + 1, 24)
        }
    }

    var isEmpty: Bool { rows.isEmpty }

    static func height(rows: Int) -> Double {
        rows == 0 ? 0 : PlotMetrics.panelHeader + Double(rows) * PlotMetrics.timelineRow + PlotMetrics.panelAxis
    }

    func draw(scene: PlotScene, top: Double, width: Double, into w: inout SVGWriter) {
        let labelWidth = 96.0
        let left = PlotMetrics.margin + labelWidth
        let plotWidth = width - left - PlotMetrics.margin
        // The axis reads hours of the day: laid out on the first day shown.
        let axis = TimeAxis(t0: hourFrom * 3600, t1: hourTo * 3600, left: left, width: plotWidth)
        w.raw("<g class=\"panel timeline\" font-size=\"11\">\n")
        var header = "Visits by day (UTC): bars are stays, lines the moves between them"
        if hidden > 0 { header += "; \(hidden) more days not shown" }
        w.label(x: PlotMetrics.margin, y: top + 17, header, attributes: "font-weight=\"bold\"")
        let multipleTraces = Set(rows.map(\.trace)).count > 1
        // The axis first, so that its hour lines run behind the bars.
        let axisY = top + PlotMetrics.panelHeader + Double(rows.count) * PlotMetrics.timelineRow
        axis.draw(y: axisY, gridTop: top + PlotMetrics.panelHeader, into: &w)
        for (r, key) in rows.enumerated() {
            let y = top + PlotMetrics.panelHeader + Double(r) * PlotMetrics.timelineRow
            let dayText = String(Timestamp(seconds: Double(key.day) * Self.day).rfc3339.prefix(10))
            w.raw("<g class=\"day\"")
            w.attr("data-day", dayText)
            if multipleTraces || key.trace != 0 { w.attr("data-trace", scene.traceNames[Int(key.trace)]) }
            w.raw(">")
            w.raw("<rect fill=\"#EBEBEB\" fill-opacity=\"0.5\"")
            w.px("x", left)
            w.px("y", y + 3)
            w.px("width", plotWidth)
            w.px("height", PlotMetrics.timelineRow - 6)
            w.raw("/>")
            var label = dayText
            if multipleTraces { label += " " + scene.traceNames[Int(key.trace)] }
            w.label(x: PlotMetrics.margin, y: y + 17, label)
            let base = Double(key.day) * Self.day
            for p in pieces where p.row == r {
                let x0 = axis.x(p.from - base)
                let x1 = axis.x(p.to - base)
                if let n = p.visit {
                    let v = scene.visits[n]
                    w.raw("<rect class=\"stay\"")
                    MapLayer.writeData(v, number: n + 1, into: &w)
                    w.raw(" fill=\"\(Palette.orange)\" stroke=\"#8F6300\" stroke-width=\"1\"")
                    if p.openStart || p.openEnd { w.raw(" stroke-dasharray=\"3 2\"") }
                    w.px("x", x0)
                    w.px("y", y + 5)
                    w.px("width", max(x1 - x0, 1))
                    w.px("height", PlotMetrics.timelineRow - 10)
                    w.raw("/>")
                    if x1 - x0 >= 14 {
                        w.label(
                            x: (x0 + x1) / 2, y: y + 17, String(n + 1),
                            attributes: "text-anchor=\"middle\" font-size=\"10\" fill=\"#000000\"")
                    }
                } else {
                    w.raw("<line class=\"move\" stroke=\"#555555\" stroke-width=\"2\"")
                    w.px("x1", x0)
                    w.px("x2", x1)
                    w.px("y1", y + PlotMetrics.timelineRow / 2)
                    w.px("y2", y + PlotMetrics.timelineRow / 2)
                    w.raw("/>")
                }
            }
            w.raw("</g>\n")
        }
        w.raw("</g>\n")
    }
}
