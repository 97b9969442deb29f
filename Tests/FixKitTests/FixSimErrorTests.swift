import Foundation
import Testing

@testable import FixKit

/// fixsim's error options (issue 12): `--noise-tau` makes a Gauss–Markov error with the stated
/// stationary σ per axis and lag-k autocorrelation e^{−kΔt/τ}; `--outliers P` throws a share P
/// of fixes `--outlier-size` metres and leaves the others as they were; `--hacc-scale K` writes
/// K times the noise; without the options the walks are those fixsim wrote before the options
/// existed. Tolerances come from the sample size: five standard errors of each estimate.
struct FixSimErrorTests {
    static let origin = (lat: 51.5, lon: -0.12)

    /// Metres per degree of latitude and of longitude at the origin, from the WGS 84 radii of
    /// curvature (as Tests/oracle/steady_eval.py has them).
    static let scale: (lat: Double, lon: Double) = {
        let a = 6_378_137.0
        let f = 1 / 298.257223563
        let e2 = f * (2 - f)
        let phi = origin.lat * .pi / 180
        let w2 = 1 - e2 * sin(phi) * sin(phi)
        return (a * (1 - e2) / pow(w2, 1.5) * .pi / 180, a / w2.squareRoot() * cos(phi) * .pi / 180)
    }()

    struct Point {
        var lat: Double
        var lon: Double
        var hacc: Double?
        var line: String
    }

    static func sim(_ arguments: [String]) throws -> [Point] {
        let run = try Tools.run("fixsim", ["--origin", "\(origin.lat),\(origin.lon)"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return try zip(Tools.objects(run.stdout), run.lines).map { o, line in
            Point(
                lat: try #require(o["lat"] as? Double), lon: try #require(o["lon"] as? Double),
                hacc: o["hacc"] as? Double, line: line)
        }
    }

    /// The error of each fix, metres east and north: the noisy run minus the same walk with
    /// --noise 0 (which draws the same numbers and so has the same times and speeds).
    static func errors(_ arguments: [String]) throws -> (east: [Double], north: [Double]) {
        let noisy = try sim(arguments)
        let truth = try sim(arguments + ["--noise", "0"])
        #expect(noisy.count == truth.count && noisy.count > 100)
        return (
            zip(noisy, truth).map { ($0.lon - $1.lon) * scale.lon },
            zip(noisy, truth).map { ($0.lat - $1.lat) * scale.lat }
        )
    }

    static func autocorrelation(_ x: [Double], lag k: Int) -> Double {
        let n = x.count
        let mean = x.reduce(0, +) / Double(n)
        var c0 = 0.0
        var ck = 0.0
        for i in 0..<n {
            c0 += (x[i] - mean) * (x[i] - mean)
            if i + k < n { ck += (x[i] - mean) * (x[i + k] - mean) }
        }
        return ck / c0
    }

    /// Bartlett's variance of the lag-k sample autocorrelation of an AR(1) series with
    /// coefficient φ, over n values.
    static func autocorrelationVariance(phi: Double, lag k: Int, n: Int) -> Double {
        let p2 = phi * phi
        let p2k = pow(phi, 2 * Double(k))
        let v = phi == 0 ? 1 : ((1 + p2) * (1 - p2k) / (1 - p2) - 2 * Double(k) * p2k)
        return v / Double(n)
    }

    /// Standing 20,000 s (one fix a second) and walking a long route (one fix every 2 s):
    /// stationary σ and lag 1, 5 and 20 autocorrelation, per axis.
    @Test(arguments: [
        (tau: 0.0, rate: 1.0, stand: true), (tau: 10, rate: 1, stand: true), (tau: 30, rate: 0.5, stand: false),
    ])
    func gaussMarkovStatistics(tau: Double, rate: Double, stand: Bool) throws {
        let route =
            stand ? ["--route", "0,0", "--pause", "20000"] : ["--route", "0,0:0,40000:30000,40000", "--speed", "2"]
        let sigma = 6.0
        let e = try Self.errors(
            route + ["--rate", "\(rate)", "--noise", "\(sigma)", "--noise-tau", "\(tau)", "--seed", "7"])
        let dt = 1 / rate
        let phi = tau > 0 ? exp(-dt / tau) : 0
        for (axis, x) in [("east", e.east), ("north", e.north)] {
            let n = x.count
            #expect(n >= 17_000)
            // The sample variance of an AR(1) series: variance 2σ⁴(1 + φ²)/(1 − φ²)/n.
            let variance = x.map { $0 * $0 }.reduce(0, +) / Double(n)
            let sd = (2 * (1 + phi * phi) / (1 - phi * phi) / Double(n)).squareRoot() * sigma * sigma
            #expect(
                abs(variance - sigma * sigma) <= 5 * sd,
                "τ \(tau), \(axis): σ \(variance.squareRoot()), expected \(sigma) ± \(5 * sd / (2 * sigma))")
            for k in [1, 5, 20] {
                let r = Self.autocorrelation(x, lag: k)
                let expected = pow(phi, Double(k))  // e^{−kΔt/τ}
                let tolerance = 5 * Self.autocorrelationVariance(phi: phi, lag: k, n: n).squareRoot()
                #expect(
                    abs(r - expected) <= tolerance,
                    "τ \(tau), \(axis), lag \(k): \(r), expected \(expected) ± \(tolerance)")
            }
        }
        // The two axes are independent of each other.
        let cross = zip(e.east, e.north).map { $0 * $1 }.reduce(0, +) / Double(e.east.count) / (sigma * sigma)
        let crossSD = ((1 + phi * phi) / (1 - phi * phi) / Double(e.east.count)).squareRoot()
        #expect(abs(cross) <= 5 * crossSD, "cross-correlation \(cross)")
    }

    /// --outliers 0.05 --outlier-size 200: about 5% of fixes are 200 m from where they are
    /// without the option, and every other fix is written exactly as without it.
    @Test(arguments: [(0.05, 200.0, 0.0), (0.3, 50, 20)])
    func outliers(share: Double, size: Double, tau: Double) throws {
        let base = ["--route", "0,0", "--pause", "10000", "--noise-tau", "\(tau)", "--seed", "3"]
        let plain = try Self.sim(base)
        let thrown = try Self.sim(base + ["--outliers", "\(share)", "--outlier-size", "\(size)"])
        #expect(plain.count == thrown.count)
        var count = 0
        for (a, b) in zip(plain, thrown) where a.line != b.line {
            count += 1
            let d = hypot((b.lon - a.lon) * Self.scale.lon, (b.lat - a.lat) * Self.scale.lat)
            #expect(abs(d - size) <= 1e-3 * size, "an outlier \(d) m from its fix")
            #expect(a.hacc == b.hacc)
        }
        let n = Double(plain.count)
        let expected = share * n
        let sd = (share * (1 - share) * n).squareRoot()
        #expect(
            abs(Double(count) - expected) <= 5 * sd,
            "\(count) outliers in \(plain.count), expected \(expected) ± \(5 * sd)")
    }

    /// --hacc-scale K writes K times --noise as hacc and changes nothing else.
    @Test(arguments: [0.5, 1, 3])
    func haccScale(k: Double) throws {
        let base = ["--route", "0,0:0,300", "--noise", "6", "--noise-tau", "10", "--seed", "4"]
        let plain = try Self.sim(base)
        let scaled = try Self.sim(base + ["--hacc-scale", "\(k)"])
        #expect(plain.count == scaled.count)
        for (a, b) in zip(plain, scaled) {
            #expect(b.hacc == 6 * k)
            #expect(a.lat == b.lat && a.lon == b.lon)
            #expect(
                a.line.replacingOccurrences(of: #""hacc":6,"#, with: "")
                    == b.line.replacingOccurrences(of: #""hacc":\#(DecimalNumber.text(6 * k)),"#, with: ""))
        }
    }

    /// Without the error options, and with them at their defaults, fixsim writes what it wrote
    /// before they existed: Tests/Fixtures/fixsim holds the output of fixsim built at ad6eedd
    /// (the commit before the options), for the commands in its cases.tsv.
    @Test func optionLessWalksAreUnchanged() throws {
        let dir = Tools.fixtures.appendingPathComponent("fixsim")
        let cases = try String(contentsOf: dir.appendingPathComponent("cases.tsv"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(cases.count >= 4)
        for row in cases {
            let cols = row.split(separator: "\t").map(String.init)
            let args = cols[1].split(separator: " ").map(String.init)
            let expected = try Data(contentsOf: dir.appendingPathComponent(cols[0]))
            // --hacc-scale is refused beside --hacc.
            let defaults =
                ["--noise-tau", "0", "--outliers", "0", "--outlier-size", "100"]
                + (args.contains("--hacc") ? [] : ["--hacc-scale", "1"])
            for extra in [[], defaults] {
                let run = try Tools.run("fixsim", args + extra)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(
                    run.stdout == expected, "fixsim \((args + extra).joined(separator: " ")) differs from \(cols[0])")
            }
        }
    }
}
