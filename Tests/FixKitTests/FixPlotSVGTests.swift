import Foundation
import Testing

@testable import FixKit

/// fixplot on streams made afresh by the other tools (fixsim at several places, its fixes
/// through fencerule, fencerule --trace, visits and fixfilter --rejects): the elements and data
/// attributes SPEC names, and every position and radius against an independent projection
/// (GeographicLib's geodesic from the picture's centre, Tests/oracle/plot_projection.py).
@Suite(.serialized)
struct FixPlotSVGTests {
    struct Place: CustomTestStringConvertible, Sendable {
        var lat: Double
        var lon: Double
        var seed: Int
        var rate = 0.5
        var noise = 8.0
        var testDescription: String { "\(lat),\(lon) seed \(seed) rate \(rate)" }
    }

    static let places = [
        Place(lat: 51.5, lon: -0.12, seed: 3), Place(lat: -33.86, lon: 151.21, seed: 7),
        Place(lat: 64.15, lon: -21.94, seed: 11), Place(lat: 0.5, lon: 179.9995, seed: 5),
        // Dense and smooth: fixes a third of a pixel apart, so that most are thinned away.
        Place(lat: 45.07, lon: 7.69, seed: 2, rate: 10, noise: 0.5),
    ]

    static var geographiclib: Bool { DistanceTests.geographiclibAvailable }

    struct Stream {
        var dir: URL
        var fixes: [[String: Any]]
        var events: [[String: Any]]
        var visits: [[String: Any]]
        var rejects: [[String: Any]]
        var fences: [(id: String, lat: Double, lon: Double, radius: Double)]
        var svg: SVGDocument
        var status: Int32
    }

    /// A walk past two fences with a stop, through every tool, then drawn.
    static func make(_ place: Place) throws -> Stream {
        let dir = TestScratch.root.appendingPathComponent("fixplot-svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let p = LocalProjection(lat0: place.lat, lon0: place.lon)
        let f2 = p.unproject(east: 150, north: -30)
        let fences = [
            (id: "a", lat: place.lat, lon: place.lon, radius: 60.0), (id: "b", lat: f2.lat, lon: f2.lon, radius: 35.0),
        ]
        let json =
            "["
            + fences.map { "{\"id\":\"\($0.id)\",\"lat\":\($0.lat),\"lon\":\($0.lon),\"radius\":\($0.radius)}" }
            .joined(separator: ",") + "]\n"
        try Data(json.utf8).write(to: dir.appendingPathComponent("fences.json"))
        let script = """
            set -e
            cd '\(dir.path)'
            fixsim --origin \(place.lat),\(place.lon) --route -200,20:0,20:0,20:150,-10:260,-60 --pause 400 \
              --rate \(place.rate) --noise \(place.noise) --seed \(place.seed) > fixes.ndjson
            fencerule --fences fences.json --rule naive fixes.ndjson > events.ndjson
            fencerule --fences fences.json --trace fixes.ndjson > traced.ndjson
            visits --min-stay 120 fixes.ndjson > visits.ndjson
            fixfilter --min-move 12 --rejects rejects.ndjson fixes.ndjson > passed.ndjson
            cat traced.ndjson events.ndjson visits.ndjson rejects.ndjson > all.ndjson
            fixplot --fences fences.json all.ndjson > out.svg
            """
        let r = try Tools.shell(script + "\necho status=$?")
        #expect(r.out.hasSuffix("status=0\n"), "\(r.out) \(r.stderr)")
        func read(_ name: String) throws -> [[String: Any]] {
            try Tools.objects(try Data(contentsOf: dir.appendingPathComponent(name)))
        }
        return Stream(
            dir: dir, fixes: try read("fixes.ndjson"), events: try read("events.ndjson"),
            visits: try read("visits.ndjson"),
            rejects: try read("rejects.ndjson"), fences: fences,
            svg: try SVGDocument(try Data(contentsOf: dir.appendingPathComponent("out.svg"))), status: 0)
    }

    /// GeographicLib's east and north of each point from the centre.
    static func oracle(lat0: Double, lon0: Double, _ points: [(Double, Double)]) throws -> [(Double, Double)] {
        let script = Tools.packageRoot.appendingPathComponent("Tests/oracle/plot_projection.py").path
        let input = points.map { "\(lat0) \(lon0) \($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
        let r = try Tools.runExecutable(Tools.which("python3")!, [script], stdin: Data(input.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        return r.lines.map { line in
            let v = line.split(separator: " ").compactMap { Double($0) }
            return (v[0], v[1])
        }
    }

    /// A member's number as written, parsed by Swift (correctly rounded; Foundation's JSON
    /// reader is not always).
    static func rawNumber(_ key: String, in line: String) -> Double? {
        guard let r = line.range(of: "\"\(key)\":") else { return nil }
        return Double(line[r.upperBound...].prefix { "0123456789.eE+-".contains($0) })
    }

    @Test(arguments: FixPlotSVGTests.places)
    func recordsCarryWhatSPECNames(_ place: Place) throws {
        let s = try Self.make(place)
        defer { try? FileManager.default.removeItem(at: s.dir) }
        let svg = s.svg
        #expect(svg.elements.first?.name == "svg")
        // <g class="trace" data-trace="NAME"> with a path per segment.
        let traces = svg.all("g", class: "trace")
        #expect(traces.map { $0.attributes["data-trace"] } == ["sim"])
        let paths = svg.elements.filter { $0.name == "path" && $0.ancestors.last == "trace" }
        #expect(!paths.isEmpty && paths.allSatisfy { $0.attributes["data-seg"] == "0" })
        #expect(traces[0].attributes["data-fixes"] == String(s.fixes.count))
        // <circle class="fence" data-fence="ID">
        #expect(svg.all("circle", class: "fence").compactMap { $0.attributes["data-fence"] } == ["a", "b"])
        // <g class="event" data-event="enter|exit|…" data-fence="ID">, one per event, in order.
        let events = svg.all("g", class: "event")
        #expect(events.count == s.events.count)
        #expect(s.events.count >= 2)
        let rawEvents = try String(contentsOf: s.dir.appendingPathComponent("events.ndjson"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        for ((e, want), raw) in zip(zip(events, s.events), rawEvents) {
            #expect(e.attributes["data-event"] == want["event"] as? String)
            #expect(e.attributes["data-fence"] == want["fence"] as? String)
            #expect(e.attributes["data-time"] == want["time"] as? String)
            // Compared as text parsed by Swift: Foundation's JSON reader rounds some doubles.
            #expect(e.number("data-p") == Self.rawNumber("p", in: raw))
        }
        // <g class="visit">, one per visit, with its times.
        let visits = svg.all("g", class: "visit")
        #expect(visits.count == s.visits.count)
        #expect(s.visits.count >= 1)
        for (v, want) in zip(visits, s.visits) {
            #expect(v.attributes["data-arrival"] == (want["arrival"] as? String ?? ""))
            #expect(v.attributes["data-departure"] == (want["departure"] as? String ?? ""))
        }
        // <g class="reject" data-reason="REASON">: every reason marked, at most one mark a reject.
        let rejects = svg.all("g", class: "reject")
        #expect(!rejects.isEmpty && rejects.count <= s.rejects.count)
        #expect(
            Set(rejects.compactMap { $0.attributes["data-reason"] })
                == Set(s.rejects.compactMap { $0["reason"] as? String }))
        // The panels: P(inside) per fence the walk came near, and the timeline of the visits.
        let series = svg.all("g", class: "series")
        #expect(Set(series.compactMap { $0.attributes["data-fence"] }) == ["a", "b"])
        #expect(
            svg.elements.filter { $0.name == "line" && $0.has("threshold") }.compactMap { $0.number("data-p") }.prefix(
                2) == [0.9, 0.1])
        #expect(svg.all("rect", class: "stay").count == s.visits.count)
        #expect(svg.all("g", class: "day").count == 1)
    }

    @Test(
        .enabled(if: geographiclib, "needs python3 with geographiclib (pip install geographiclib)"),
        arguments: FixPlotSVGTests.places)
    func positionsAndRadiiAgreeWithAnIndependentProjection(_ place: Place) throws {
        let s = try Self.make(place)
        defer { try? FileManager.default.removeItem(at: s.dir) }
        let map = try #require(s.svg.all("g", class: "map").first)
        let lat0 = try #require(map.number("data-lat0"))
        let lon0 = try #require(map.number("data-lon0"))
        let scale = try #require(map.number("data-px-per-metre"))
        let x0 = try #require(map.number("data-x0"))
        let y0 = try #require(map.number("data-y0"))
        func px(_ en: (Double, Double)) -> (Double, Double) { (x0 + en.0 * scale, y0 - en.1 * scale) }

        // The scale bar is its metres long, and the fences are circles of their radius.
        let bar = try #require(s.svg.all("rect", class: "bar").first)
        let barMetres = try #require(s.svg.all("g", class: "scale-bar").first?.number("data-metres"))
        #expect(abs(try #require(bar.number("width")) - barMetres * scale) <= 0.05)
        let fences = s.svg.all("circle", class: "fence")
        let fencePx = try Self.oracle(lat0: lat0, lon0: lon0, s.fences.map { ($0.lat, $0.lon) }).map(px)
        for (k, f) in s.fences.enumerated() {
            let c = fences[k]
            #expect(abs(try #require(c.number("r")) - f.radius * scale) <= 0.05)
            #expect(abs(try #require(c.number("cx")) - fencePx[k].0) <= 0.1, "fence \(f.id) cx")
            #expect(abs(try #require(c.number("cy")) - fencePx[k].1) <= 0.1, "fence \(f.id) cy")
        }
        // Every fix lies within 0.75 px of the drawn trace: 0.5 px of thinning, 0.07 of
        // rounding to the grid, the rest for the two projections' difference.
        let lines = try s.svg.elements.filter { $0.name == "path" && $0.ancestors.last == "trace" }
            .flatMap { try pathVertices($0.attributes["d"] ?? "") }
        let fixPx = try Self.oracle(
            lat0: lat0, lon0: lon0, s.fixes.map { ($0["lat"] as! Double, $0["lon"] as! Double) }
        ).map(px)
        var worst = 0.0
        for p in fixPx {
            worst = max(worst, lines.map { distance(p, toPolyline: $0) }.min() ?? .infinity)
        }
        print(
            "\(place.testDescription): \(s.fixes.count) fixes, \(lines.map(\.count).reduce(0, +)) vertices, worst \(worst) px"
        )
        #expect(worst <= 0.75)
        // Visits are circles of their hacc about their centre (at least 4 px).
        let visits = s.svg.elements.filter { $0.name == "circle" && $0.ancestors.last == "visit" }
        let visitPx = try Self.oracle(
            lat0: lat0, lon0: lon0, s.visits.map { ($0["lat"] as! Double, $0["lon"] as! Double) }
        ).map(px)
        for (k, v) in s.visits.enumerated() {
            #expect(abs(try #require(visits[k].number("cx")) - visitPx[k].0) <= 0.1)
            #expect(abs(try #require(visits[k].number("cy")) - visitPx[k].1) <= 0.1)
            #expect(abs(try #require(visits[k].number("r")) - max((v["hacc"] as! Double) * scale, 4)) <= 0.05)
        }
        // The centre is the middle of what is drawn, which fills the map to its margin.
        let xs =
            (fixPx
                + fencePx.enumerated().flatMap { k, c in
                    [
                        (c.0 - s.fences[k].radius * scale, c.1 - s.fences[k].radius * scale),
                        (c.0 + s.fences[k].radius * scale, c.1 + s.fences[k].radius * scale),
                    ]
                })
        let minX = xs.map(\.0).min()!, maxX = xs.map(\.0).max()!
        let minY = xs.map(\.1).min()!, maxY = xs.map(\.1).max()!
        let width = try #require(s.svg.elements.first?.number("width"))
        #expect(abs((minX + maxX) / 2 - width / 2) <= 1.5)
        #expect(abs(maxX - minX - (width - 2 * PlotMetrics.mapMargin)) <= 1.5 || maxY - minY > maxX - minX)
    }
}
