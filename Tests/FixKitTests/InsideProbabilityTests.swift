import Foundation
import Testing

@testable import FixKit

struct InsideProbabilityTests {
    /// The published table for R = 100 m, σ = 20 m, to four digits.
    @Test(arguments: [(0.0, 1.0000), (50, 0.9909), (80, 0.8126), (100, 0.4599), (120, 0.1375), (150, 0.0049)])
    func publishedTable(_ d: Double, _ expected: Double) {
        let p = InsideProbability.p(distance: d, radius: 100, sigma: 20)
        #expect((p * 10_000).rounded() / 10_000 == expected)
    }

    /// The edges the reference implementation got wrong, and the exact 0 and 1 of double
    /// precision.
    @Test func edges() {
        // A precise fix 674 m from a 100 m fence: the reference said "inside" (min(1, NaN)).
        #expect(InsideProbability.p(distance: 674, radius: 100, sigma: 5) == 0)
        // A 5 km fence, σ = 5 m, at its own centre: Simpson-400 gives 0.37.
        #expect(InsideProbability.p(distance: 0, radius: 5000, sigma: 5) == 1)
        #expect(InsideProbability.simpson400(distance: 0, radius: 5000, sigma: 5) < 0.5)
        // Exactly 1 once (R − d)/σ ≥ 8.66, exactly 0 once (d − R)/σ ≥ 38.5.
        #expect(InsideProbability.p(distance: 0, radius: 8.66, sigma: 1) == 1)
        #expect(InsideProbability.p(distance: 138.5, radius: 100, sigma: 1) == 0)
        #expect(InsideProbability.p(distance: 138.4, radius: 100, sigma: 1) > 0)
        // σ = 0: the fix is exact.
        #expect(InsideProbability.p(distance: 100, radius: 100, sigma: 0) == 1)
        #expect(InsideProbability.p(distance: 100.001, radius: 100, sigma: 0) == 0)
        // A point fence (R = 0) holds nobody.
        #expect(InsideProbability.p(distance: 0, radius: 0, sigma: 5) == 0)
    }

    /// Never NaN, always in [0, 1], and never increasing with distance, over a dense sweep
    /// with extreme ratios.
    @Test func wellBehavedEverywhere() {
        for r in [0.001, 1, 100, 5000, 1e6] {
            for s in [1e-6, 0.01, 1, 5, 100, 1e5] {
                var last = 1.0
                var d = 0.0
                while d < r + 60 * s + 1 {
                    let p = InsideProbability.p(distance: d, radius: r, sigma: s)
                    #expect(!p.isNaN && p >= 0 && p <= 1, "d \(d) R \(r) σ \(s)")
                    #expect(p <= last + 1e-12, "not monotone at d \(d) R \(r) σ \(s): \(p) after \(last)")
                    last = p
                    d += max(s / 7, (r + 60 * s) / 500)
                }
            }
        }
    }

    static var scipyAvailable: Bool {
        guard Tools.which("python3") != nil,
            let r = try? Tools.runExecutable(Tools.which("python3")!, ["-c", "import scipy.stats, mpmath"])
        else { return false }
        return r.status == 0
    }

    /// Against scipy's ncx2.cdf (and mpmath in the far tails), an independent oracle, over a
    /// grid that covers the extremes: tiny and huge σ against R, deep inside, on the edge and
    /// far outside.
    @Test(.enabled(if: scipyAvailable, "needs python3 with scipy and mpmath (pip install scipy mpmath)"))
    func agreesWithScipy() throws {
        var cases: [(Double, Double, Double)] = []
        for r in [1.0, 10, 50, 100, 500, 5000, 20000] {
            for s in [0.5, 1, 5, 10, 20, 50, 100, 1000] {
                var ds: Set<Double> = [0, r / 2, 2 * r]
                for k in [-50, -20, -8.7, -8, -5, -3, -2, -1, -0.5, -0.1, 0, 0.1, 0.5, 1, 2, 3, 5, 10, 20, 30, 38, 39] {
                    ds.insert(max(0, r + k * s))
                }
                for d in ds.sorted() { cases.append((d, r, s)) }
            }
        }
        let input = cases.map { "\($0.0) \($0.1) \($0.2)" }.joined(separator: "\n") + "\n"
        let script = Tools.packageRoot.appendingPathComponent("Tests/oracle/inside_probability.py").path
        let out = try Tools.runExecutable(Tools.which("python3")!, [script], stdin: Data(input.utf8))
        #expect(out.status == 0, "\(out.stderr)")
        var worst = 0.0
        var worstCase = ""
        var simpsonBad = 0
        for line in out.lines {
            let v = line.split(separator: " ").compactMap { Double($0) }
            guard v.count == 4 else { continue }
            let p = InsideProbability.p(distance: v[0], radius: v[1], sigma: v[2])
            let error = abs(p - v[3])
            if error > worst {
                worst = error
                worstCase = line
            }
            if abs(InsideProbability.simpson400(distance: v[0], radius: v[1], sigma: v[2]) - v[3]) > 1e-3 { simpsonBad += 1 }
        }
        #expect(out.lines.count == cases.count)
        // 3.4e-14 at worst (the series' terms start from an exp of a large argument); the bound
        // is three times that, so that a change which loses digits fails here.
        #expect(worst < 1e-13, "worst absolute error \(worst) at \(worstCase)")
        // The reference method is off by more than 1e-3 on a good share of this grid.
        #expect(simpsonBad > 50)
    }
}
