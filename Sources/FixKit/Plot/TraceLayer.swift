/// The traces of the map, drawn in the second pass from the spooled fixes: one `<g
/// class="trace" data-trace="NAME">` per trace with a `<path data-seg="N">` per segment
/// (under `--color time`, per segment and colour band), each thinned by `ScreenSimplifier`;
/// with `--hacc`, each fix's accuracy circle; and the rejected fixes, marked by reason.
struct TraceLayer {
    let viewport: Viewport
    let options: PlotOptions
    let timeRange: TimeRange
    var traces: [TraceDrawing]
    var rejects = SVGWriter()
    var rejectCells = Set<Int64>()
    var haccSeen = Set<HaccKey>()
    let reasons: [String]
    /// The vertices written so far, all traces; past `options.vertexBudget`, a segment is
    /// written only when no segment of its trace and colour joins the same two pixels
    /// (`drawnPairs`), so that the picture stops growing with fixes that go over the same
    /// places again.
    var written = 0
    var drawnPairs = Set<PixelPair>()

    /// A segment's two ends as whole pixels (the lower first), with its trace and colour band.
    struct PixelPair: Hashable {
        var trace: Int32
        var bin: Int32
        var x0: Int32, y0: Int32, x1: Int32, y1: Int32
    }

    struct HaccKey: Hashable {
        var trace: Int32
        var x: Int, y: Int, r: Int
    }

    init(viewport: Viewport, options: PlotOptions, scene: PlotScene) {
        self.viewport = viewport
        self.options = options
        timeRange = scene.timeRange
        traces = Array(repeating: TraceDrawing(), count: scene.traceNames.count)
        reasons = scene.reasons
    }

    /// Draws one spooled fix.
    @inline(__always)
    mutating func add(_ f: SpooledFix) {
        let (x, y) = viewport.pixel(lat: f.lat, lon: f.lon)
        if f.reason >= 0 { return addReject(f, x: x, y: y) }
        let k = Int(f.trace)
        let ux = PathGrid.units(x)
        let uy = PathGrid.units(y)
        let details = VertexDetails(time: f.time, hacc: f.hacc, speed: f.speed)
        var bin = traces[k].bin
        if options.colorByTime, !f.time.isNaN {
            let span = timeRange.max - timeRange.min
            let u = span > 0 ? (f.time - timeRange.min) / span : 0
            bin = min(max(Int(u * Double(Palette.time.count)), 0), Palette.time.count - 1)
        }
        if traces[k].open {
            if f.seg != traces[k].seg {
                close(k)
            } else if bin != traces[k].bin {
                // The band ends at this fix and the next begins there: no gap in the line.
                if let v = traces[k].simplifier.add(x: ux, y: uy, payload: details) { draw(v, k) }
                close(k)
            }
        }
        if !traces[k].open {
            traces[k].bin = max(bin, 0)
            traces[k].openPath(seg: f.seg, stroke: options.colorByTime ? Palette.time[max(bin, 0)] : nil)
        }
        if let v = traces[k].simplifier.add(x: ux, y: uy, payload: details) { draw(v, k) }
        if options.drawHacc, !f.hacc.isNaN, f.hacc >= 0 {
            let r = f.hacc * viewport.scale
            guard r >= 0.5 else { return }
            // A circle is drawn once however many fixes would draw it again to half a pixel.
            let key = HaccKey(trace: f.trace, x: ux / 5, y: uy / 5, r: PathGrid.units(r) / 5)
            guard haccSeen.insert(key).inserted else { return }
            var w = SVGWriter(out: [])
            w.raw("<circle")
            w.px("cx", x)
            w.px("cy", y)
            w.px("r", r)
            w.raw("/>\n")
            traces[k].hacc.append(contentsOf: w.out)
        }
    }

    mutating func addReject(_ f: SpooledFix, x: Double, y: Double) {
        // One mark per reason and pixel: a million rejects at one place draw as one.
        let cell =
            Int64(f.reason) << 48 ^ (Int64(PathGrid.units(x) / 10) & 0xFF_FFFF) << 24
            ^ (Int64(PathGrid.units(y) / 10) & 0xFF_FFFF)
        guard rejectCells.insert(cell).inserted else { return }
        let reason = reasons[Int(f.reason)]
        rejects.raw("<g class=\"reject\"")
        rejects.attr("data-reason", reason)
        if !f.time.isNaN { rejects.time("data-time", Timestamp(seconds: f.time)) }
        if !f.hacc.isNaN { rejects.number("data-hacc", f.hacc) }
        rejects.attr("stroke", Palette.reason(reason))
        rejects.raw("><path d=\"M")
        PathGrid.write(pixels: x - 3, into: &rejects.out)
        rejects.raw(" ")
        PathGrid.write(pixels: y - 3, into: &rejects.out)
        rejects.raw("l6 6m0-6l-6 6\"/></g>\n")
    }

    /// Ends every open path.
    mutating func finish() {
        for k in traces.indices where traces[k].open { close(k) }
    }

    private mutating func close(_ k: Int) {
        if let v = traces[k].simplifier.finish() { draw(v, k) }
        traces[k].endPath()
    }

    /// Writes vertex `v` of trace `k`, or, past the budget, moves the pen there when the
    /// segment to it joins two pixels that a segment of the trace's colour already joins.
    @inline(__always)
    private mutating func draw(_ v: ScreenSimplifier<VertexDetails>.Vertex, _ k: Int) {
        if written >= options.vertexBudget, traces[k].verticesInPath > 0 {
            let a = (PathGrid.pixel(traces[k].penX), PathGrid.pixel(traces[k].penY))
            let b = (PathGrid.pixel(v.x), PathGrid.pixel(v.y))
            let (p, q) = a < b ? (a, b) : (b, a)
            let pair = PixelPair(
                trace: Int32(k), bin: Int32(traces[k].bin), x0: p.0, y0: p.1, x1: q.0, y1: q.1)
            guard drawnPairs.insert(pair).inserted else { return traces[k].skip(v) }
        }
        written += 1
        traces[k].vertex(v, html: options.html)
    }
}

/// One trace's paths as they are drawn.
struct TraceDrawing {
    var simplifier = ScreenSimplifier<VertexDetails>(tolerance: PlotMetrics.tolerance)
    var open = false
    var seg: Int32 = 0
    var bin = 0
    var penX = 0
    var penY = 0
    /// The path's vertices, those skipped (`skip`) among them.
    var verticesInPath = 0
    /// The vertices written, all paths.
    var vertices = 0
    /// The vertex before was skipped: the next one written begins a new subpath at the pen.
    var moved = false
    var paths: [UInt8] = []
    /// The page's hover data: `[x,y,time,hacc,speed]` per vertex, x and y in grid units.
    var hover: [UInt8] = []
    var hacc: [UInt8] = []

    mutating func openPath(seg: Int32, stroke: String?) {
        self.seg = seg
        open = true
        verticesInPath = 0
        moved = false
        paths.append(contentsOf: "<path data-seg=\"".utf8)
        writeInteger(Int(seg), into: &paths)
        paths.append(UInt8(ascii: "\""))
        if let stroke { paths.append(contentsOf: " stroke=\"\(stroke)\"".utf8) }
        paths.append(contentsOf: " d=\"".utf8)
    }

    @inline(__always)
    mutating func vertex(_ v: ScreenSimplifier<VertexDetails>.Vertex, html: Bool) {
        if verticesInPath == 0 {
            paths.append(UInt8(ascii: "M"))
            PathGrid.write(v.x, into: &paths)
            paths.append(UInt8(ascii: " "))
            PathGrid.write(v.y, into: &paths)
        } else {
            let dx = v.x - penX
            let dy = v.y - penY
            if moved {
                paths.append(UInt8(ascii: "M"))
                PathGrid.write(penX, into: &paths)
                paths.append(UInt8(ascii: " "))
                PathGrid.write(penY, into: &paths)
                paths.append(UInt8(ascii: "l"))
                moved = false
            } else if verticesInPath == 1 {
                paths.append(UInt8(ascii: "l"))
            } else if dx >= 0 {
                paths.append(UInt8(ascii: " "))
            }
            PathGrid.write(dx, into: &paths)
            if dy >= 0 { paths.append(UInt8(ascii: " ")) }
            PathGrid.write(dy, into: &paths)
        }
        penX = v.x
        penY = v.y
        verticesInPath += 1
        vertices += 1
        if html {
            if !hover.isEmpty { hover.append(UInt8(ascii: ",")) }
            hover.append(UInt8(ascii: "["))
            writeInteger(v.x, into: &hover)
            hover.append(UInt8(ascii: ","))
            writeInteger(v.y, into: &hover)
            hover.append(UInt8(ascii: ","))
            if v.payload.time.isNaN {
                hover.append(contentsOf: "null".utf8)
            } else {
                writeInteger(Int((v.payload.time * 1000).rounded()), into: &hover)
            }
            for value in [v.payload.hacc, v.payload.speed] {
                hover.append(UInt8(ascii: ","))
                if value.isNaN {
                    hover.append(contentsOf: "null".utf8)
                } else {
                    DecimalNumber.write(value, into: &hover)
                }
            }
            hover.append(UInt8(ascii: "]"))
        }
    }

    /// Moves the pen to `v` without drawing the segment to it (it is drawn already).
    mutating func skip(_ v: ScreenSimplifier<VertexDetails>.Vertex) {
        penX = v.x
        penY = v.y
        verticesInPath += 1
        moved = true
    }

    mutating func close(html: Bool) {
        if let v = simplifier.finish() { vertex(v, html: html) }
        endPath()
    }

    mutating func endPath() {
        // A segment of one fix is a dot: a zero-length line with round caps.
        if verticesInPath == 1 { paths.append(contentsOf: "l0 0".utf8) }
        paths.append(contentsOf: "\"/>\n".utf8)
        open = false
        moved = false
    }
}
