import Foundation
import Testing

@testable import FixKit

/// fixplot past its vertex budget: a trace that goes over the same places again stops adding
/// to the picture, and what is drawn still passes within a pixel and a half of every vertex
/// the unbounded picture draws.
@Suite("fixplot vertex budget")
struct FixPlotBudgetTests {
    /// `laps` times the same hour: a walk of 1.7 km out and back, then 20 minutes standing
    /// with a few metres of jitter (bench/gen_stream.py's hour), a fix every 2 s. `noisy`:
    /// each lap's jitter is its own.
    static func fixes(laps: Int, noisy: Bool) -> [Fix] {
        var out: [Fix] = []
        var g = FixGenerator(seed: 3)
        for lap in 0..<laps {
            for k in stride(from: 0, to: 3600, by: 2) {
                let d = k < 2400 ? 1.4 * Double(k < 1200 ? k : 2400 - k) : 0
                var jx = k >= 2400 ? 3 * sin(Double(k) * 0.7) : 0
                var jy = k >= 2400 ? 3 * cos(Double(k) * 1.3) : 0
                if noisy {
                    jx += 2 * (g.unit() - 0.5)
                    jy += 2 * (g.unit() - 0.5)
                }
                let (lat, lon) = VisitsTests.offset(45.75, 4.85, east: d * 0.7 + jx, north: d * 0.7 + jy)
                out.append(
                    Fix(
                        time: Timestamp(seconds: 1_767_261_600 + Double(lap * 3600 + k)), lat: lat, lon: lon, trace: "t"
                    ))
            }
        }
        return out
    }

    static func render(_ fixes: [Fix], budget: Int) throws -> (svg: SVGDocument, bytes: Int) {
        let scene = try PlotScene()
        for f in fixes { try scene.add(.fix(f)) }
        var options = PlotOptions()
        options.vertexBudget = budget
        let result = try PlotRenderer(scene: scene, fences: [], options: options).render()
        return (try SVGDocument(Data(result.svg)), result.svg.count)
    }

    static func lines(_ svg: SVGDocument) throws -> [[(Double, Double)]] {
        try svg.elements.filter { $0.name == "path" && $0.ancestors.last == "trace" }
            .flatMap { try pathVertices($0.attributes["d"] ?? "") }
    }

    @Test(
        "Identical laps past the budget: 40 laps draw no more than 2, and the line is where it was",
        arguments: [false, true])
    func boundedAndFaithful(noisy: Bool) throws {
        let many = Self.fixes(laps: 40, noisy: noisy)
        let full = try Self.render(many, budget: Int.max)
        let bounded = try Self.render(many, budget: 0)
        let fullLines = try Self.lines(full.svg)
        let boundedLines = try Self.lines(bounded.svg)
        let fullVertices = fullLines.map(\.count).reduce(0, +)
        let boundedVertices = boundedLines.map(\.count).reduce(0, +)
        print(
            "noisy \(noisy): \(fullVertices) vertices, \(full.bytes) bytes; bounded \(boundedVertices), \(bounded.bytes)"
        )
        // Every vertex the unbounded picture draws lies within 1.5 px of the bounded line: a
        // segment is left out only when one drawn joins the same two pixels.
        var worst = 0.0
        for line in fullLines {
            for p in line {
                worst = max(worst, boundedLines.map { distance(p, toPolyline: $0) }.min() ?? .infinity)
            }
        }
        #expect(worst <= 1.5, "worst \(worst) px")
        if !noisy {
            let two = try Self.render(Self.fixes(laps: 2, noisy: false), budget: 0)
            #expect(bounded.bytes <= two.bytes + 200, "40 laps \(bounded.bytes) bytes, 2 laps \(two.bytes)")
            #expect(boundedVertices * 10 < fullVertices)
        } else {
            #expect(boundedVertices < fullVertices)
        }
        // data-vertices counts what is drawn.
        let counted = bounded.svg.all("g", class: "trace").compactMap { $0.number("data-vertices") }.reduce(0, +)
        #expect(Int(counted) <= boundedVertices)
    }

    @Test("Below the budget nothing is left out: the picture is the same bytes")
    func belowBudgetUnchanged() throws {
        let few = Self.fixes(laps: 3, noisy: true)
        let scene1 = try PlotScene()
        let scene2 = try PlotScene()
        for f in few {
            try scene1.add(.fix(f))
            try scene2.add(.fix(f))
        }
        var unbounded = PlotOptions()
        unbounded.vertexBudget = Int.max
        let a = try PlotRenderer(scene: scene1, fences: [], options: PlotOptions()).render()
        let b = try PlotRenderer(scene: scene2, fences: [], options: unbounded).render()
        #expect(a.svg == b.svg)
    }
}
