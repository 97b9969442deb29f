// P(inside) evaluations per second: InsideProbability.p (Gil, Segura and Temme's Marcum Q)
// against InsideProbability.simpson400 (Simpson's rule, 400 steps, over the Rice density), over
// the same grids of (d, R, σ). Target: p at least 50 times faster.
//
//   pbench [--runs K] [--min-seconds S] [--grid realistic|near] [--p-only]
//
// --grid times one grid only; --p-only times p alone, without the Simpson reference (for a
// profile: valgrind --tool=callgrind pbench --grid realistic --p-only --runs 1).
//
// Each method is timed over a whole grid, repeated until one timing lasts at least
// --min-seconds (default 0.2 s), and the best of --runs (default 7) timings is kept: the
// fastest run is the one the machine disturbed least. Every result is added to a checksum
// that is printed, so the optimizer cannot drop the work.
import FixKit
import Foundation  // String(format:)

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Case {
    let d: Double
    let r: Double
    let s: Double
}

/// R from 20 to 500 m, σ from 3 to 50 m, and d from 0 to R + 10σ in 40 equal steps: fixes deep
/// inside, around the edge and well outside, as a fence rule meets them.
func realisticGrid() -> [Case] {
    var cases: [Case] = []
    for r in [20.0, 30, 50, 75, 100, 150, 200, 300, 500] {
        for s in [3.0, 5, 8, 10, 15, 20, 30, 50] {
            let top = r + 10 * s
            for k in 0...40 { cases.append(Case(d: top * Double(k) / 40, r: r, s: s)) }
        }
    }
    return cases
}

/// The same R and σ, with d only where |d − R| < 3σ (and d ≥ 0): the band where the fast method
/// has to sum its series or its asymptotic expansion, and cannot answer 0 or 1 at once.
func edgeGrid() -> [Case] {
    var cases: [Case] = []
    for r in [20.0, 30, 50, 75, 100, 150, 200, 300, 500] {
        for s in [3.0, 5, 8, 10, 15, 20, 30, 50] {
            for k in 0..<40 {
                let d = r - 3 * s + 6 * s * (Double(k) + 0.5) / 40  // strictly inside the band
                if d >= 0 { cases.append(Case(d: d, r: r, s: s)) }
            }
        }
    }
    return cases
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

/// Hides a value from the optimizer.
@_optimize(none)
func opaque<T>(_ x: T) -> T { x }

typealias Method = (Double, Double, Double) -> Double

/// Evaluations per second of `f` over `cases` (best of `runs`), and the checksum of one pass.
func measure(_ f: Method, _ cases: [Case], runs: Int, minSeconds: Double) -> (rate: Double, checksum: Double) {
    func pass(_ reps: Int) -> Double {
        var sum = 0.0
        for _ in 0..<reps {
            let grid = opaque(cases)  // reloaded every repetition: no result can be reused
            for c in grid { sum += f(c.d, c.r, c.s) }
        }
        return opaque(sum)
    }
    let checksum = pass(1)
    var reps = 1
    while true {  // calibrate: enough repetitions for one timing to last minSeconds
        let t0 = now()
        _ = pass(reps)
        let elapsed = now() - t0
        if elapsed >= minSeconds { break }
        reps = max(reps * 2, Int(Double(reps) * minSeconds * 1.2 / max(elapsed, 1e-6)))
    }
    var best = Double.infinity
    for _ in 0..<runs {
        let t0 = now()
        _ = pass(reps)
        best = min(best, now() - t0)
    }
    return (Double(reps * cases.count) / best, checksum)
}

func complain(_ message: String) {
    FileHandle.standardError.write("pbench: \(message)\n".data(using: .utf8)!)
}

var runs = 7
var minSeconds = 0.2
var only: String? = nil  // "realistic" or "near": one grid only
var pOnly = false  // time p alone (for a profile)
var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    switch a {
    case "--runs": runs = Int(arguments.popFirst() ?? "") ?? 0
    case "--min-seconds": minSeconds = Double(arguments.popFirst() ?? "") ?? 0
    case "--grid": only = arguments.popFirst()
    case "--p-only": pOnly = true
    case "--help", "-h":
        print("usage: pbench [--runs K] [--min-seconds S] [--grid realistic|near] [--p-only]")
        exit(0)
    default:
        complain("unknown argument \(a)")
        exit(2)
    }
}
guard runs >= 1, minSeconds > 0 else {
    complain("--runs must be >= 1 and --min-seconds > 0")
    exit(2)
}

let fast: Method = { InsideProbability.p(distance: $0, radius: $1, sigma: $2) }
let simpson: Method = { InsideProbability.simpson400(distance: $0, radius: $1, sigma: $2) }

/// Which of p's paths a case takes (the thresholds of InsideProbability.p): an exact 0 or 1
/// (at most a few comparisons), the series in incomplete gamma functions (ξ = dR/σ² ≤ 30), or
/// the asymptotic expansion in erfc (ξ > 30).
func path(_ c: Case) -> String {
    let margin = (c.r - c.d) / c.s
    if margin >= 8.66 || margin <= -38.5 || c.d == 0 { return "exact 0 or 1, or d = 0" }
    return c.d * c.r / (c.s * c.s) <= 30 ? "series (xi <= 30)" : "asymptotic (xi > 30)"
}

func rate(_ x: Double) -> String { String(format: "%12.0f evals/s  (%8.1f ns each)", x, 1e9 / x) }

print("P(inside) evaluations per second, best of \(runs) timings of at least \(minSeconds) s each")
for (name, grid) in [("realistic: R 20-500 m, sigma 3-50 m, d 0 to R + 10 sigma", realisticGrid()),
                     ("near the edge: |d - R| < 3 sigma", edgeGrid())] {
    if only != nil && !name.hasPrefix(only!) { continue }
    let p = measure(fast, grid, runs: runs, minSeconds: minSeconds)
    let s = pOnly ? (rate: Double.nan, checksum: Double.nan) : measure(simpson, grid, runs: runs, minSeconds: minSeconds)
    var worst = 0.0
    for c in grid where !pOnly {
        worst = max(worst, abs(fast(c.d, c.r, c.s) - simpson(c.d, c.r, c.s)))
    }
    let ratio = p.rate / s.rate
    print("\(name): \(grid.count) cases")
    print("  p           \(rate(p.rate))  checksum \(p.checksum)")
    if pOnly { continue }
    print("  simpson400  \(rate(s.rate))  checksum \(s.checksum)")
    print("  p / simpson400 = \(String(format: "%.1f", ratio))x   (target: at least 50x)   \(ratio >= 50 ? "ok" : "MISSED")")
    print("  largest |p - simpson400| on the grid: \(String(format: "%.2g", worst))")
    print("  by p's path (cases, p, simpson400, ratio):")
    for label in ["exact 0 or 1, or d = 0", "series (xi <= 30)", "asymptotic (xi > 30)"] {
        let subset = grid.filter { path($0) == label }
        if subset.isEmpty { continue }
        let ps = measure(fast, subset, runs: runs, minSeconds: minSeconds / 2)
        let ss = measure(simpson, subset, runs: runs, minSeconds: minSeconds / 2)
        print("    \(label.padding(toLength: 24, withPad: " ", startingAt: 0)) \(String(format: "%5d", subset.count))"
            + String(format: "  %9.1f ns  %9.1f ns  %7.1fx", 1e9 / ps.rate, 1e9 / ss.rate, ps.rate / ss.rate))
    }
}
