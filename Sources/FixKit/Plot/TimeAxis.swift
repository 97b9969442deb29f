#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A time axis in UTC: `t0...t1` seconds onto `left...left + width` pixels, with ticks at a
/// round step (1 s to 1 day) at least 70 px apart.
struct TimeAxis {
    let t0: Double
    let t1: Double
    let left: Double
    let width: Double

    init(t0: Double, t1: Double, left: Double, width: Double) {
        self.t0 = t0
        // One instant still gets an axis: a minute about it.
        self.t1 = t1 > t0 ? t1 : t0 + 60
        self.left = left
        self.width = width
    }

    @inline(__always)
    func x(_ t: Double) -> Double {
        left + (t - t0) / (t1 - t0) * width
    }

    static let steps: [Double] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    ]

    var step: Double {
        let perPixel = (t1 - t0) / max(width, 1)
        return TimeAxis.steps.first { $0 / perPixel >= 70 } ?? 86400 * ceil(perPixel * 70 / 86400)
    }

    /// The ticks and their labels: `HH:MM`, or `HH:MM:SS` below a minute's step.
    func ticks() -> [(t: Double, label: String)] {
        let s = step
        var t = ceil(t0 / s) * s
        var out: [(Double, String)] = []
        while t <= t1 + 1e-9, out.count < 200 {
            let text = Timestamp(seconds: t).rfc3339
            out.append((t, String(text.dropFirst(11).prefix(s < 60 ? 8 : 5))))
            t += s
        }
        return out
    }

    /// Tick marks and labels along `y`, and a thin baseline.
    func draw(y: Double, gridTop: Double?, into w: inout SVGWriter) {
        w.raw("<g class=\"time-axis\" font-size=\"10\" fill=\"#333333\" text-anchor=\"middle\">")
        w.raw("<path stroke=\"#999999\" stroke-width=\"1\" d=\"M")
        PathGrid.write(pixels: left, into: &w.out)
        w.raw(" ")
        PathGrid.write(pixels: y, into: &w.out)
        w.raw("h")
        PathGrid.write(pixels: width, into: &w.out)
        for (t, _) in ticks() {
            w.raw("M")
            PathGrid.write(pixels: x(t), into: &w.out)
            w.raw(" ")
            PathGrid.write(pixels: gridTop ?? y, into: &w.out)
            w.raw("V")
            PathGrid.write(pixels: y + 4, into: &w.out)
        }
        w.raw("\"/>")
        for (t, label) in ticks() { w.label(x: x(t), y: y + 15, label) }
        w.raw("</g>\n")
    }
}
