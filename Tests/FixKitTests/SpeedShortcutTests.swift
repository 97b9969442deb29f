import Foundation
import Testing

@testable import FixKit

/// Shortcuts taken for speed (issue 11) against what they replace: fencerule's bounds on
/// P(inside), which stand in for P where they settle the rule's comparison, against
/// `InsideProbability.p` itself (checked against scipy in InsideProbabilityTests); and the
/// CSV header's trimming without Foundation against Foundation's
/// `trimmingCharacters(in: .whitespaces)`.
struct SpeedShortcutTests {
    /// Radii and σ from centimetres to thousands of kilometres, d from the centre to past
    /// R + 40σ, every rule's kind of threshold: wherever `standIn` answers, its value is on the
    /// same side of the threshold as the exact P, and the bounds it is made from hold.
    @Test(arguments: [(0.9, 0.1), (0.5, 0.4), (0.99, 0.01), (0.6, 0.59), (1.0, 0.0), (0.2, 1e-9)])
    func standInSidesWithTheExactP(_ thresholds: (Double, Double)) {
        var settings = FenceRuleSettings()
        settings.enter = thresholds.0
        settings.exit = thresholds.1
        let region = ActingRegion(settings)
        var answered = 0
        var checked = 0
        for radius in [0.01, 1, 5, 20, 50, 100, 150, 200, 1000, 2e6] {
            for sigma in [0.001, 0.5, 2, 5, 10, 20, 40, 75, 100, 150, 500, 1e5, 3e6] {
                for step in 0...160 {
                    let d = (radius + 40 * sigma) * Double(step) / 150
                    let p = InsideProbability.p(distance: d, radius: radius, sigma: sigma)
                    for inside in [false, true] {
                        checked += 1
                        guard let v = region.standIn(inside: inside, d, radius, sigma) else { continue }
                        answered += 1
                        if inside {
                            #expect(
                                (v < settings.exit) == (p < settings.exit),
                                "inside d \(d) R \(radius) σ \(sigma): \(v) for \(p)")
                        } else {
                            #expect(
                                (v > settings.enter) == (p > settings.enter),
                                "outside d \(d) R \(radius) σ \(sigma): \(v) for \(p)")
                        }
                    }
                    // The bounds themselves, to P's own error (1.1e-14 seen at R = 0.01, σ = 0.001;
                    // the stand-in keeps 1e-9 from them).
                    let t = (radius - d) / sigma
                    let lower = t > 0 ? -expm1(-0.5 * t * t) : 0
                    let upper = 0.5 * erfc(-t / 2.0.squareRoot()) * erf(radius / sigma / 2.0.squareRoot())
                    #expect(
                        lower <= p + 1e-12 && p <= upper + 1e-12,
                        "d \(d) R \(radius) σ \(sigma): \(lower) ≤ \(p) ≤ \(upper)")
                }
            }
        }
        // The shortcut must be taken often, or it buys nothing; and not always (P is needed).
        #expect(answered > checked / 4 && answered < checked, "\(answered) of \(checked) settled by the bounds")
    }

    /// The grid both `DecisionTable` tests sweep: b = R/σ from 0 to past the table's end, on its
    /// columns and half-way between them in turn (every half column up to 4, where P changes
    /// fastest; 14.5 columns a step after), each σ, and a = d/σ in `steps` from 0 to b + 12;
    /// `body(a, R, σ)`.
    static func sweepTable(sigmas: [Double], steps: Int, _ body: (Double, Double, Double) -> Void) {
        let column = 1 / DecisionTable.perUnit
        var b = 0.0
        while b < 66 {
            for sigma in sigmas {
                for step in 0...steps { body((b + 12) * Double(step) / Double(steps), b * sigma, sigma) }
            }
            b += b < 4 ? column / 2 : 14.5 * column
        }
    }

    /// fencerule's table of where P crosses the thresholds (`DecisionTable`), against the exact
    /// P: over b = R/σ from 0 to past the table's end, on and between its columns, and a = d/σ
    /// from 0 to b + 12 finely around the crossings, wherever the table settles the step's
    /// comparison it settles it as P does; and it settles most of them, or it buys nothing.
    @Test(arguments: [(0.9, 0.1), (0.5, 0.4), (0.99, 0.01), (0.6, 0.59), (1.0, 0.0), (0.2, 1e-9)])
    func decisionTableSidesWithTheExactP(_ thresholds: (Double, Double)) {
        let table = DecisionTable(enter: thresholds.0, exit: thresholds.1)
        var answered = 0
        var checked = 0
        Self.sweepTable(sigmas: [0.37, 1.0, 23.0], steps: 150) { a, radius, sigma in
            let d = a * sigma
            let p = InsideProbability.p(distance: d, radius: radius, sigma: sigma)
            for inside in [false, true] {
                checked += 1
                guard let contradicts = table.contradicts(inside: inside, d, radius, perSigma: 1 / sigma) else { continue }
                answered += 1
                let exact = inside ? p < thresholds.1 : p > thresholds.0
                #expect(contradicts == exact, "inside \(inside) d \(d) R \(radius) σ \(sigma): p \(p)")
            }
        }
        #expect(answered > checked / 2, "\(answered) of \(checked) settled by the table")
    }

    /// The table's columns filled in any order (each fill brackets its crossing by the nearest
    /// filled columns, where they are near): every column's bounds are on their sides of the
    /// threshold by the slack, for the exact P, and within the bisection's precision of where P
    /// crosses τ ± slack.
    @Test(arguments: [(0.9, 0.1), (0.5, 0.4), (0.99, 0.01), (1.0, 0.0), (0.2, 1e-9)])
    func decisionTableColumnsInAnyOrder(_ thresholds: (Double, Double)) {
        let table = DecisionTable(enter: thresholds.0, exit: thresholds.1)
        var r = SplitMix(seed: 77)
        let order = Array(0..<DecisionTable.columns).shuffled(using: &r)
        for j in order.prefix(1200) {
            let b = Double(j) / DecisionTable.perUnit
            for exit in [false, true] {
                let tau = exit ? thresholds.1 : thresholds.0
                let c = table.column(j, exit: exit)
                let high = tau + DecisionTable.slack
                let low = tau - DecisionTable.slack
                func p(_ a: Double) -> Double { InsideProbability.p(distance: a, radius: b, sigma: 1) }
                if c.above.isFinite {
                    #expect(p(c.above) >= high, "b \(b) above \(c.above)")
                    #expect(p(c.above + DecisionTable.precision) < high, "b \(b) above \(c.above)")
                } else {
                    #expect(c.above == -.infinity && p(0) < high, "b \(b)")
                }
                if c.below.isFinite {
                    #expect(p(c.below) <= low, "b \(b) below \(c.below)")
                    if c.below >= DecisionTable.precision {
                        #expect(p(c.below - DecisionTable.precision) > low, "b \(b) below \(c.below)")
                    }
                } else {
                    #expect(c.below == .infinity && p(b + DecisionTable.never) > low, "b \(b)")
                }
            }
        }
    }

    /// `holdsInside`, the table's answer from the squared chord (no square root, no division of
    /// d): wherever it says a fence held inside holds, the exact P is at least exit, and
    /// `contradicts` does not say otherwise; and it answers about as often as `contradicts`
    /// answers "no contradiction". Around each crossing the distance is also moved by an ulp
    /// or two, where the squared comparison rounds differently from the divided one.
    @Test(arguments: [(0.9, 0.1), (0.5, 0.4), (0.99, 0.01), (0.2, 1e-9)])
    func holdsInsideSidesWithTheExactP(_ thresholds: (Double, Double)) {
        let table = DecisionTable(enter: thresholds.0, exit: thresholds.1)
        var held = 0
        var unContradicted = 0
        Self.sweepTable(sigmas: [0.37, 1.0, 23.0, 150.0], steps: 300) { a, radius, sigma in
            for d in [a * sigma, (a * sigma).nextUp, (a * sigma).nextDown.nextDown] where d >= 0 {
                let p = InsideProbability.p(distance: d, radius: radius, sigma: sigma)
                let holds = table.holdsInside(squared: d * d, radius, sigma, perSigma: 1 / sigma)
                if holds {
                    held += 1
                    #expect(p >= thresholds.1, "d \(d) R \(radius) σ \(sigma): p \(p) below exit")
                    #expect(table.contradicts(inside: true, d, radius, perSigma: 1 / sigma) != true)
                }
                if table.contradicts(inside: true, d, radius, perSigma: 1 / sigma) == false { unContradicted += 1 }
            }
        }
        #expect(Double(held) > 0.95 * Double(unContradicted), "\(held) held, \(unContradicted) not contradicted")
    }

    /// Under naive the step reads d, not P: any stand-in does, and the events still carry the
    /// exact P (the brute-force tests compare them).
    @Test func naiveNeedsNoP() {
        var settings = FenceRuleSettings()
        settings.kind = .naive
        #expect(ActingRegion(settings).standIn(inside: false, 10, 100, 8) != nil)
    }

    /// CSVHeader's trim against Foundation's on strings of every kind of white space at either
    /// end and inside, including the Unicode space separators and the characters that are
    /// white space to Foundation's `.whitespacesAndNewlines` but not `.whitespaces`.
    @Test func trimmingMatchesFoundation() {
        let pieces: [String] = [
            " ", "\t", "\u{A0}", "\u{2003}", "\u{3000}", "\u{202F}", "\u{1680}", "\n", "\r", "\u{0B}", "\u{0C}",
            "\u{85}", "\u{2028}", "\u{200B}", "\u{FEFF}", "a", "km/h", "é", "#", "(", "x y", "\u{301}",
        ]
        var generator = SystemRandomNumberGenerator()
        var strings = pieces + ["", "   ", "\t \u{A0}"]
        for _ in 0..<5000 {
            let n = Int.random(in: 0...6, using: &generator)
            strings.append((0..<n).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined())
        }
        for s in strings {
            let expected = s.trimmingCharacters(in: .whitespaces)
            #expect(CSVHeader.trimmingWhitespaces(Substring(s)) == expected, "\(Array(s.unicodeScalars))")
        }
    }
}
