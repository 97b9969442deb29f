/// fixplot's second pass: lays the picture out (title, map, P(inside) strip, visits
/// timeline, top to bottom), draws the spooled fixes and samples, and writes one SVG.
///
/// The map takes the height the panels leave of `--height`, but never less than
/// `PlotMetrics.minimumMapHeight`: a picture with tall panels grows instead.
struct PlotRenderer {
    let scene: PlotScene
    let fences: [Fence]
    let options: PlotOptions

    struct Result {
        var svg: [UInt8]
        /// The traces' hover data, as a JSON array of `{"trace":…,"v":[[x,y,time,hacc,speed],…]}`.
        var hover: [UInt8]
        var width: Double
        var height: Double
    }

    /// The fences the map shows: with records to draw, those that reach into the records'
    /// extent (widened by a tenth, at least 50 m), so that a city's fences do not shrink a walk
    /// to a dot; with none, all of them.
    static func extent(scene: PlotScene, fences: [Fence]) -> (DegreeBox, [Fence]) {
        var box = scene.extent
        guard !box.isEmpty else {
            for f in fences { box.add(lat: f.lat, lon: f.lon, radius: f.radius) }
            return (box, fences)
        }
        let near = box.widened(fraction: 0.1, metres: 50)
        let shown = fences.filter { near.touches(lat: $0.lat, lon: $0.lon, radius: $0.radius) }
        for f in shown { box.add(lat: f.lat, lon: f.lon, radius: f.radius) }
        return (box, shown)
    }

    func render() throws -> Result {
        scene.assignColours()
        let (box, shownFences) = PlotRenderer.extent(scene: scene, fences: fences)
        let (shown, hiddenSeries) = PInsidePanel.choose(scene, options: options)
        let stripH = scene.sampleTimes.isEmpty ? 0 : PInsidePanel.height(rows: shown.count)
        let timeline = TimelinePanel(scene: scene)
        let timelineH = TimelinePanel.height(rows: timeline.rows.count)
        let titleH = options.title == nil ? 0 : PlotMetrics.titleHeight
        let width = options.width
        let legend = Legend(scene: scene, fences: shownFences.count, options: options)
        let legendH = legend.height(width: width - 2 * PlotMetrics.margin)
        var mapH = max(options.height - titleH - stripH - timelineH - legendH, PlotMetrics.minimumMapHeight)

        let projection: LocalProjection
        var minE = 0.0, maxE = 0.0, minN = 0.0, maxN = 0.0
        if box.isEmpty {
            projection = LocalProjection(lat0: 0, lon0: 0)
        } else {
            (projection, minE, maxE, minN, maxN) = box.projection()
        }
        func fit(_ h: Double) -> Viewport {
            Viewport(
                projection: projection, minEast: minE, maxEast: maxE, minNorth: minN, maxNorth: maxN,
                left: 0, top: titleH, width: width, height: h, margin: PlotMetrics.mapMargin)
        }
        var viewport = fit(mapH)
        // A wide, flat extent does not need the whole height: the map is cut to what it fills
        // (the scale stays, being set by the width).
        let needed = ((maxN - minN) * viewport.scale + 2 * PlotMetrics.mapMargin).rounded(.up)
        if needed < mapH {
            mapH = max(needed, PlotMetrics.minimumMapHeight)
            viewport = fit(mapH)
        }
        let height = titleH + mapH + legendH + stripH + timelineH

        var w = SVGWriter()
        w.raw("<svg xmlns=\"http://www.w3.org/2000/svg\"")
        w.px("width", width)
        w.px("height", height)
        w.attr("viewBox", "0 0 \(MapLayer.pixels(width)) \(MapLayer.pixels(height))")
        w.raw(" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n")
        w.raw("<title>")
        w.text(options.title ?? "fixplot")
        w.raw("</title>\n")
        w.raw("<rect width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>\n")
        if let title = options.title {
            w.label(
                x: PlotMetrics.margin, y: 22, title, attributes: "class=\"title\" font-size=\"16\" font-weight=\"bold\""
            )
        }
        w.raw("<defs><clipPath id=\"map-clip\"><rect")
        w.px("x", viewport.left)
        w.px("y", viewport.top)
        w.px("width", viewport.width)
        w.px("height", viewport.height)
        w.raw("/></clipPath></defs>\n")
        // The projection, for scripts and tests that check where things are drawn.
        w.raw("<g class=\"map\"")
        w.number("data-lat0", projection.lat0)
        w.number("data-lon0", projection.lon0)
        w.number("data-px-per-metre", viewport.scale)
        w.number("data-x0", viewport.originX)
        w.number("data-y0", viewport.originY)
        w.raw(" clip-path=\"url(#map-clip)\">\n")
        w.raw("<rect fill=\"#FBFBF8\" stroke=\"#CCCCCC\"")
        w.px("x", viewport.left + 0.5)
        w.px("y", viewport.top + 0.5)
        w.px("width", viewport.width - 1)
        w.px("height", viewport.height - 1)
        w.raw("/>\n")
        MapLayer.fences(shownFences, viewport: viewport, into: &w)

        var traces = TraceLayer(viewport: viewport, options: options, scene: scene)
        try scene.fixes.forEach { traces.add($0) }
        traces.finish()
        if options.drawHacc {
            for k in traces.traces.indices where !traces.traces[k].hacc.isEmpty {
                w.raw("<g class=\"hacc\"")
                w.attr("data-trace", scene.traceNames[k])
                w.raw(" fill=\"\(scene.colours[k])\" fill-opacity=\"0.06\" stroke=\"\(scene.colours[k])\"")
                w.raw(" stroke-opacity=\"0.35\" stroke-width=\"0.75\">\n")
                w.raw(traces.traces[k].hacc)
                w.raw("</g>\n")
            }
        }
        var hover: [UInt8] = [UInt8(ascii: "[")]
        var firstHover = true
        for k in traces.traces.indices where !traces.traces[k].paths.isEmpty {
            w.raw("<g class=\"trace\"")
            w.attr("data-trace", scene.traceNames[k])
            w.attr("data-fixes", String(scene.fixCounts[k]))
            w.attr("data-vertices", String(traces.traces[k].vertices))
            if !options.colorByTime { w.attr("stroke", scene.colours[k]) }
            w.raw(" fill=\"none\" stroke-width=\"1.5\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n")
            w.raw(traces.traces[k].paths)
            w.raw("</g>\n")
            if options.html {
                if !firstHover { hover.append(UInt8(ascii: ",")) }
                firstHover = false
                hover.append(contentsOf: "\n{\"trace\":".utf8)
                writeString(scene.traceNames[k], into: &hover)
                hover.append(contentsOf: ",\"v\":[".utf8)
                hover.append(contentsOf: traces.traces[k].hover)
                hover.append(contentsOf: "]}".utf8)
            }
        }
        hover.append(UInt8(ascii: "]"))
        w.raw("<g class=\"rejects\" fill=\"none\" stroke-width=\"1.5\">\n")
        w.raw(traces.rejects.out)
        w.raw("</g>\n")
        var labels = LabelPlacer()
        MapLayer.visits(scene.visits, viewport: viewport, labels: &labels, into: &w)
        MapLayer.events(scene.events, viewport: viewport, into: &w)
        MapLayer.fenceLabels(shownFences, viewport: viewport, labels: &labels, into: &w)
        if box.isEmpty {
            w.label(
                x: width / 2, y: viewport.top + mapH / 2, "nothing to draw",
                attributes: "text-anchor=\"middle\" font-size=\"14\" fill=\"#777777\"")
        } else {
            MapLayer.scaleBar(viewport: viewport, into: &w)
            MapLayer.northArrow(viewport: viewport, into: &w)
        }
        w.raw("</g>\n")
        legend.draw(
            left: PlotMetrics.margin, top: titleH + mapH, width: width - 2 * PlotMetrics.margin, scene: scene, into: &w)

        var y = titleH + mapH + legendH
        if stripH > 0 {
            var strip = PInsidePanel(
                scene: scene, shown: shown, hidden: hiddenSeries, top: y, width: width, options: options)
            try scene.samples.forEach { strip.add($0) }
            strip.draw(scene: scene, into: &w)
            y += stripH
        }
        if timelineH > 0 {
            timeline.draw(scene: scene, top: y, width: width, into: &w)
        }
        w.raw("</svg>\n")
        return Result(svg: w.out, hover: hover, width: width, height: height)
    }
}
