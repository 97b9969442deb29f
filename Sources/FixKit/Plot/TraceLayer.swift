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
                traces[k].close(html: options.html)
            } else if bin != traces[k].bin {
                // The band ends at this fix and the next begins there: no gap in the line.
                if let v = traces[k].simplifier.add(x: ux, y: uy, payload: details) {
                    traces[k].vertex(v, html: options.html)
                }
                traces[k].close(html: options.html)
            }
        }
        if !traces[k].open {
            traces[k].bin = max(bin, 0)
            traces[k].openPath(seg: f.seg, stroke: options.colorByTime ? Palette.time[max(bin, 0)] : nil)
        }
        if let v = traces[k].simplifier.add(x: ux, y: uy, payload: details) {
            traces[k].vertex(v, html: options.html)
        }
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
        for k in traces.indices where traces[k].open { traces[k].close(html: options.html) }
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
    var verticesInPath = 0
    var vertices = 0
    var paths: [UInt8] = []
    /// The page's hover data: `[x,y,time,hacc,speed]` per vertex, x and y in grid units.
    var hover: [UInt8] = []
    var hacc: [UInt8] = []

    mutating func openPath(seg: Int32, stroke: String?) {
        self.seg = seg
        open = true
        verticesInPath = 0
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
            if verticesInPath == 1 {
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

    mutating func close(html: Bool) {
        if let v = simplifier.finish() { vertex(v, html: html) }
        // A segment of one fix is a dot: a zero-length line with round caps.
        if verticesInPath == 1 { paths.append(contentsOf: "l0 0".utf8) }
        paths.append(contentsOf: "\"/>\n".utf8)
        open = false
    }
}
