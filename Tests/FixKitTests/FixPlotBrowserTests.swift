import Foundation
import Testing

/// fixplot's HTML page in a real browser (headless Chromium, Debian's `chromium`): it loads
/// without a word on the console, what is drawn is where an independent projection puts it,
/// a fence's radius in pixels is its metres against the scale bar, and hovering shows a fix.
@Suite(.serialized)
struct FixPlotBrowserTests {
    static let chromium = Tools.which("chromium") ?? Tools.which("chromium-browser")
    static let missing: Comment = "chromium is not installed (apt-get install chromium): the browser tests are skipped"
    static let directory = Tools.fixtures.appendingPathComponent("fixplot")

    /// Measures the page once it has loaded and writes the result into the DOM, which
    /// `--dump-dom` prints.
    static let measure = """
        <script>
        window.addEventListener("load", function () {
          function box(el) { var r = el.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; }
          var out = {fences: {}, traces: [], marks: 0};
          document.querySelectorAll("circle.fence").forEach(function (c) { out.fences[c.getAttribute("data-fence")] = box(c); });
          document.querySelectorAll("g.trace").forEach(function (g) { out.traces.push(box(g)); });
          var bar = document.querySelector("g.scale-bar");
          out.bar = box(bar.querySelector("rect.bar"));
          out.barMetres = Number(bar.getAttribute("data-metres"));
          out.svg = box(document.querySelector("svg"));
          out.marks = document.querySelectorAll("g.event, circle.fence, g.trace path").length;
          // Hover over the first vertex of the trace: the details box names its fix.
          var d = JSON.parse(document.getElementById("fixplot-data").textContent);
          var v = d[0].v[0], svg = document.querySelector("svg"), m = svg.getScreenCTM();
          var p = new DOMPoint(v[0] / 10, v[1] / 10).matrixTransform(m);
          svg.dispatchEvent(new MouseEvent("mousemove", {clientX: p.x, clientY: p.y, bubbles: true}));
          out.hover = document.getElementById("details").textContent;
          var pre = document.createElement("pre");
          pre.id = "measured";
          pre.textContent = JSON.stringify(out);
          document.body.appendChild(pre);
        });
        </script>
        """

    struct Page {
        var measured: [String: Any]
        var console: [String]
    }

    static func load(_ html: Data) throws -> Page {
        let dir = TestScratch.root.appendingPathComponent("fixplot-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var text = String(decoding: html, as: UTF8.self)
        let range = try #require(text.range(of: "</body>"))
        text.replaceSubrange(range, with: measure + "\n</body>")
        let page = dir.appendingPathComponent("page.html")
        try Data(text.utf8).write(to: page)
        let r = try Tools.runExecutable(
            chromium!,
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=\(dir.appendingPathComponent("profile").path)", "--window-size=1100,900",
                "--dump-dom", page.absoluteString,
            ])
        let dom = r.out
        guard let start = dom.range(of: "<pre id=\"measured\">"),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else { throw TestFailure("the page did not write its measurements: \(r.stderr.suffix(2000))") }
        let json = String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&amp;", with: "&")
        let measured = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let console = r.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
        return Page(measured: measured, console: console)
    }

    @Test(
        .enabled(if: chromium != nil, missing),
        .enabled(if: FixPlotSVGTests.geographiclib, "needs python3 with geographiclib"))
    func thePageDrawsWhereTheProjectionSays() throws {
        let r = try Tools.run("fixplot", ["--fences", "fences.json", "--html", "walk.ndjson"], in: Self.directory)
        #expect(r.status == 0)
        let page = try Self.load(r.stdout)
        #expect(page.console.isEmpty, "console: \(page.console)")
        let m = page.measured
        let fences = try #require(m["fences"] as? [String: [String: Double]])
        let cafe = try #require(fences["cafe"])
        let kiosk = try #require(fences["kiosk"])
        let bar = try #require(m["bar"] as? [String: Double])
        let barMetres = try #require(m["barMetres"] as? Double)
        let scale = bar["w"]! / barMetres  // CSS pixels per metre, as the page shows it
        #expect((m["marks"] as? Int ?? 0) >= 8, "the page is blank")
        // The fences' radii in pixels are their metres against the scale bar.
        #expect(abs(cafe["w"]! / 2 / scale - 40) <= 0.1, "cafe: \(cafe["w"]! / 2 / scale) m")
        #expect(abs(kiosk["w"]! / 2 / scale - 25) <= 0.1, "kiosk: \(kiosk["w"]! / 2 / scale) m")
        #expect(abs(cafe["w"]! - cafe["h"]!) <= 0.01, "a fence must be a circle")
        // From the cafe's centre, the kiosk's centre and the trace's extremes where
        // GeographicLib puts them.
        let cafeCentre = (cafe["x"]! + cafe["w"]! / 2, cafe["y"]! + cafe["h"]! / 2)
        let kioskCentre = (kiosk["x"]! + kiosk["w"]! / 2, kiosk["y"]! + kiosk["h"]! / 2)
        let lines = try Tools.objects(try Data(contentsOf: Self.directory.appendingPathComponent("walk.ndjson")))
        let fixes = lines.filter { $0["event"] == nil }.map { ($0["lat"] as! Double, $0["lon"] as! Double) }
        let en = try FixPlotSVGTests.oracle(lat0: 51.5002, lon0: -0.12, [(51.4998, -0.1185)] + fixes)
        #expect(abs(kioskCentre.0 - cafeCentre.0 - en[0].0 * scale) <= 0.5)
        #expect(abs(kioskCentre.1 - cafeCentre.1 + en[0].1 * scale) <= 0.5)
        let trace = try #require((m["traces"] as? [[String: Double]])?.first)
        let east = en.dropFirst().map(\.0)
        let north = en.dropFirst().map(\.1)
        // The path's box is that of its vertices, each within 0.6 px of its fix.
        #expect(abs(trace["x"]! - (cafeCentre.0 + east.min()! * scale)) <= 1)
        #expect(abs(trace["x"]! + trace["w"]! - (cafeCentre.0 + east.max()! * scale)) <= 1)
        #expect(abs(trace["y"]! - (cafeCentre.1 - north.max()! * scale)) <= 1)
        #expect(abs(trace["y"]! + trace["h"]! - (cafeCentre.1 - north.min()! * scale)) <= 1)
        // Hover: the first fix's details.
        let hover = m["hover"] as? String ?? ""
        #expect(hover.contains("trace: walk"), "\(hover)")
        #expect(hover.contains("time: 2026-01-01T09:00:00Z"), "\(hover)")
        #expect(hover.contains("hacc: 5 m"), "\(hover)")
    }

    @Test(.enabled(if: chromium != nil, missing))
    func everyGoldenPageLoadsWithoutConsoleErrors() throws {
        for args in [
            ["--html", "day.ndjson"], ["--html", "--fences", "fences.json", "trace.ndjson"],
            ["--html", "--color", "time", "--hacc", "rejects.ndjson"],
        ] {
            let r = try Tools.run("fixplot", args, in: Self.directory)
            let page = try Self.load(r.stdout)
            #expect(page.console.isEmpty, "\(args): \(page.console)")
            #expect(!(page.measured["traces"] as? [Any] ?? []).isEmpty)
        }
    }
}
