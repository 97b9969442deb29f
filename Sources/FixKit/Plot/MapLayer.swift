#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The map's parts other than the traces: fences, events, visits, their labels, the scale
/// bar and the north arrow. Each drawn record carries the class and data attributes SPEC
/// names, so that scripts and tests can find it.
enum MapLayer {
    /// `<circle class="fence" data-fence="ID">`, for the fences that reach into the map.
    static func fences(_ fences: [Fence], viewport: Viewport, into w: inout SVGWriter) {
        w.raw("<g class=\"fences\" fill=\"#7F7F7F\" fill-opacity=\"0.12\" stroke=\"#555555\" stroke-width=\"1.5\">\n")
        for f in fences {
            let (x, y) = viewport.pixel(lat: f.lat, lon: f.lon)
            let r = f.radius * viewport.scale
            guard viewport.touches(x: x, y: y, radius: r) else { continue }
            w.raw("<circle class=\"fence\"")
            w.attr("data-fence", f.id)
            w.number("data-radius", f.radius)
            w.number("data-lat", f.lat)
            w.number("data-lon", f.lon)
            w.px("cx", x)
            w.px("cy", y)
            w.px("r", r)
            w.raw("/>\n")
        }
        w.raw("</g>\n")
    }

    /// Fence ids beside their circles; a label that would sit on one already placed is left out.
    static func fenceLabels(_ fences: [Fence], viewport: Viewport, labels: inout LabelPlacer, into w: inout SVGWriter) {
        w.raw("<g class=\"fence-labels\" font-size=\"11\" fill=\"#333333\" text-anchor=\"middle\">\n")
        for f in fences {
            let (x, y) = viewport.pixel(lat: f.lat, lon: f.lon)
            let r = f.radius * viewport.scale
            guard viewport.touches(x: x, y: y, radius: r) else { continue }
            let ly = r > 14 ? y - r - 4 : y - max(r, 3) - 4
            let width = Double(f.id.count) * 6.2 + 4
            guard labels.place(x: x - width / 2, y: ly - 10, width: width, height: 12, shift: false) != nil else {
                continue
            }
            w.label(x: x, y: ly, f.id, attributes: "class=\"fence-label\" data-fence=\"\(escaped(f.id))\"")
        }
        w.raw("</g>\n")
    }

    /// `<g class="event" data-event="…" data-fence="ID">` at the fix that decided it: enter ▲,
    /// exit ▼, missed ×, reselect ◆ with its refresh circle dashed.
    static func events(_ events: [PlotEvent], viewport: Viewport, into w: inout SVGWriter) {
        w.raw("<g class=\"events\">\n")
        for e in events {
            let (x, y) = viewport.pixel(lat: e.lat, lon: e.lon)
            let colour = Palette.event(e.kind)
            w.raw("<g class=\"event\"")
            w.attr("data-event", e.kind)
            if let f = e.fence { w.attr("data-fence", f) }
            if !e.fences.isEmpty { w.attr("data-fences", e.fences.joined(separator: " ")) }
            if let t = e.time { w.time("data-time", t) }
            if let p = e.p { w.number("data-p", p) }
            if let d = e.distance { w.number("data-distance", d) }
            if let d = e.duration { w.number("data-duration", d) }
            if let r = e.radius { w.number("data-radius", r) }
            if let t = e.trace { w.attr("data-trace", t) }
            w.number("data-lat", e.lat)
            w.number("data-lon", e.lon)
            w.raw(">")
            var d: [UInt8] = Array("M".utf8)
            func at(_ dx: Double, _ dy: Double) {
                PathGrid.write(pixels: x + dx, into: &d)
                d.append(UInt8(ascii: " "))
                PathGrid.write(pixels: y + dy, into: &d)
            }
            switch e.kind {
            case "enter":
                at(0, -9)
                d.append(contentsOf: "l8 13h-16z".utf8)
                w.raw("<path fill=\"\(colour)\" stroke=\"#000000\" stroke-width=\"0.75\" d=\"")
            case "exit":
                at(0, 9)
                d.append(contentsOf: "l8-13h-16z".utf8)
                w.raw("<path fill=\"\(colour)\" stroke=\"#000000\" stroke-width=\"0.75\" d=\"")
            case "missed":
                at(-6, -6)
                d.append(contentsOf: "l12 12m0-12l-12 12".utf8)
                w.raw("<path fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.5\" d=\"")
            case "reselect":
                if let r = e.radius {
                    w.raw("<circle fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1\" stroke-dasharray=\"4 3\"")
                    w.px("cx", x)
                    w.px("cy", y)
                    w.px("r", r * viewport.scale)
                    w.raw("/>")
                }
                at(0, -7)
                d.append(contentsOf: "l7 7-7 7-7-7z".utf8)
                w.raw("<path fill=\"\(colour)\" stroke=\"#000000\" stroke-width=\"0.75\" d=\"")
            default:
                at(-4, -4)
                d.append(contentsOf: "h8v8h-8z".utf8)
                w.raw("<path fill=\"\(colour)\" stroke=\"#000000\" stroke-width=\"0.75\" d=\"")
            }
            w.raw(d)
            w.raw("\"/></g>\n")
        }
        w.raw("</g>\n")
    }

    /// `<g class="visit">`: a circle of the visit's hacc (at least 4 px, so it can be seen),
    /// its number, and its arrival and departure (`…` for an end the input does not show).
    static func visits(
        _ visits: [PlotVisit], viewport: Viewport, labels: inout LabelPlacer, into w: inout SVGWriter
    ) {
        w.raw("<g class=\"visits\">\n")
        for (n, v) in visits.enumerated() {
            let (x, y) = viewport.pixel(lat: v.lat, lon: v.lon)
            let r = max(v.hacc * viewport.scale, 4)
            w.raw("<g class=\"visit\"")
            writeData(v, number: n + 1, into: &w)
            w.raw("><circle fill=\"\(Palette.orange)\" fill-opacity=\"0.55\" stroke=\"#000000\" stroke-width=\"1.5\"")
            w.px("cx", x)
            w.px("cy", y)
            w.px("r", r)
            w.raw("/>")
            let text = "\(n + 1)  \(clock(v.arrival, open: "…"))–\(clock(v.departure, open: "…"))"
            let width = Double(text.count) * 7.4 + 4
            // Right of the circle, or left of it where the map ends.
            let lx = x + r + 3 + width > viewport.left + viewport.width ? x - r - 3 - width : x + r + 3
            let at = labels.place(x: lx, y: y - 6, width: width, height: 13, shift: true) ?? (lx, y - 6)
            w.label(
                x: at.0 + 2, y: at.1 + 10, text,
                attributes:
                    "font-size=\"12\" font-weight=\"bold\" fill=\"#000000\" stroke=\"#FFFFFF\" stroke-width=\"3\" paint-order=\"stroke\""
            )
            w.raw("</g>\n")
        }
        w.raw("</g>\n")
    }

    static func writeData(_ v: PlotVisit, number: Int, into w: inout SVGWriter) {
        w.attr("data-n", String(number))
        if let a = v.arrival { w.time("data-arrival", a) } else { w.attr("data-arrival", "") }
        if let d = v.departure { w.time("data-departure", d) } else { w.attr("data-departure", "") }
        w.number("data-hacc", v.hacc)
        if let f = v.fixes { w.attr("data-fixes", String(f)) }
        if let t = v.trace { w.attr("data-trace", t) }
        w.number("data-lat", v.lat)
        w.number("data-lon", v.lon)
    }

    /// A bar of round metres (1, 2 or 5 times a power of ten), at most a quarter of the map's
    /// width, at its bottom left: `<g class="scale-bar" data-metres="M">` with a `<rect
    /// class="bar">` exactly M metres long.
    static func scaleBar(viewport: Viewport, into w: inout SVGWriter) {
        let metres = roundMetres(below: viewport.width / 4 / viewport.scale)
        let length = metres * viewport.scale
        let x = viewport.left + 16
        let y = viewport.top + viewport.height - 12
        w.raw("<g class=\"scale-bar\"")
        w.number("data-metres", metres)
        w.raw(">")
        w.raw("<rect fill=\"#FFFFFF\" fill-opacity=\"0.8\"")
        w.px("x", x - 6)
        w.px("y", y - 17)
        w.px("width", length + 12)
        w.px("height", 24)
        w.raw("/>")
        w.raw("<rect class=\"bar\" fill=\"#000000\"")
        w.px("x", x)
        w.px("y", y)
        w.px("width", length)
        w.px("height", 4)
        w.raw("/>")
        w.label(
            x: x, y: y - 5,
            metres >= 1000 ? "\(DecimalNumber.text(metres / 1000)) km" : "\(DecimalNumber.text(metres)) m",
            attributes: "font-size=\"11\"")
        w.raw("</g>\n")
    }

    /// The largest 1, 2 or 5 × 10^k not above `limit` (and at least 1e-3).
    static func roundMetres(below limit: Double) -> Double {
        guard limit.isFinite, limit > 0.001 else { return 0.001 }
        let p = pow(10, floor(log10(limit)))
        for m in [5.0, 2, 1] where m * p <= limit { return m * p }
        return p
    }

    static func northArrow(viewport: Viewport, into w: inout SVGWriter) {
        let x = viewport.left + viewport.width - 22
        let y = viewport.top + 14
        w.raw("<g class=\"north\" fill=\"#333333\"><path d=\"M")
        PathGrid.write(pixels: x, into: &w.out)
        w.raw(" ")
        PathGrid.write(pixels: y + 2, into: &w.out)
        w.raw("l6 16-6-4-6 4z\"/>")
        w.label(x: x, y: y + 32, "N", attributes: "font-size=\"11\" text-anchor=\"middle\"")
        w.raw("</g>\n")
    }

    /// `09:38` (UTC), `09:38:05` when the second is not whole minutes, or `open` for nil.
    static func clock(_ t: Timestamp?, open: String) -> String {
        guard let t else { return open }
        let text = t.rfc3339
        let hm = String(text.dropFirst(11).prefix(5))
        let s = text.dropFirst(17).prefix(2)
        return s == "00" ? hm : hm + ":" + s
    }

    static func escaped(_ s: String) -> String {
        var out: [UInt8] = []
        SVGWriter.escape(s, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// Keeps labels from covering each other: rectangles already placed, looked up in a grid.
struct LabelPlacer {
    var placed: [(x: Double, y: Double, w: Double, h: Double)] = []
    var cells: [Int64: [Int]] = [:]
    static let cell = 64.0

    /// Places a rectangle; when it overlaps one placed, moves it down by its height (with
    /// `shift`, up to 8 times) or gives up (nil).
    mutating func place(x: Double, y: Double, width: Double, height: Double, shift: Bool) -> (Double, Double)? {
        var y = y
        for _ in 0..<(shift ? 9 : 1) {
            if !overlaps(x, y, width, height) {
                add(x, y, width, height)
                return (x, y)
            }
            y += height
        }
        return nil
    }

    func keys(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> [Int64] {
        let x0 = Int64(floor(x / LabelPlacer.cell))
        let x1 = Int64(floor((x + w) / LabelPlacer.cell))
        let y0 = Int64(floor(y / LabelPlacer.cell))
        let y1 = Int64(floor((y + h) / LabelPlacer.cell))
        var out: [Int64] = []
        for i in x0...max(x0, min(x1, x0 + 64)) {
            for j in y0...max(y0, min(y1, y0 + 64)) { out.append(i << 32 ^ (j & 0xFFFF_FFFF)) }
        }
        return out
    }

    func overlaps(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Bool {
        for key in keys(x, y, w, h) {
            for k in cells[key] ?? [] {
                let p = placed[k]
                if x < p.x + p.w, p.x < x + w, y < p.y + p.h, p.y < y + h { return true }
            }
        }
        return false
    }

    mutating func add(_ x: Double, _ y: Double, _ w: Double, _ h: Double) {
        placed.append((x, y, w, h))
        for key in keys(x, y, w, h) { cells[key, default: []].append(placed.count - 1) }
    }
}

extension MapLayer {
    /// Pixels on the grid, as text.
    static func pixels(_ v: Double) -> String {
        var out: [UInt8] = []
        PathGrid.write(pixels: v, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
