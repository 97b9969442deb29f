#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a quiet fence (outside, no dwell under way) may change under the rule: d − R ≤
/// margin and R ≥ minRadius, for a fix of σ. Elsewhere the rule's step leaves it quiet without
/// an event, so it need not be looked at.
///
/// naive: inside when d ≤ R. confident and adaptive: a quiet fence changes only when
/// P(inside) > enter. The disc lies in the strip of half-width R across the line from its
/// centre to the fix, and within R of that line, so with the two axes of the error
/// independent, P ≤ Φ((R − d)/σ) · (2Φ(R/σ) − 1): P > enter needs (R − d)/σ > Φ⁻¹(enter) and
/// R/σ > Φ⁻¹((1 + enter)/2). For enter above ½ the first needs d < R, which the index answers
/// from one cube per level. Both quantiles are taken for an enter smaller by 1e-12 (or half of
/// it, if smaller), and a further 1e-6 σ off, far more than P's rounding; below an enter of
/// 1e-9 the region is where P is not exactly 0 (d − R < 38.5σ).
///
/// The other way, for a fence held inside with no dwell under way: the disc holds the circle
/// of radius R − d around the fix, so P ≥ 1 − e^{−(R − d)²/2σ²}, and R − d ≥ σ√(−2 ln(1 − exit))
/// (for an exit larger by 1e-12, and 1e-6 σ more) means P ≥ exit: the rule keeps it inside.
struct ActingRegion {
    let naive: Bool
    /// Lower bounds of Φ⁻¹(enter) and Φ⁻¹((1 + enter)/2); nil: below 1e-9, the wide region.
    let along: Double?
    let across: Double
    /// R − d past which, in σ, P ≥ exit (∞: never known without P).
    let deepInside: Double
    /// The rule's thresholds, for `standIn`.
    let enter: Double
    let exit: Double

    init(_ settings: FenceRuleSettings) {
        enter = settings.enter
        self.exit = settings.exit
        let exit = settings.exit + 1e-12
        deepInside = exit >= 1 ? .infinity : (-2 * log1p(-exit)).squareRoot() + 1e-6
        switch settings.kind {
        case .naive:
            naive = true
            along = nil
            across = 0
        case .confident, .adaptive, .steady:
            naive = false
            let enter = max(settings.enter - 1e-12, settings.enter / 2)
            if enter < 1e-9 {
                along = nil
                across = 0
            } else {
                along = ActingRegion.quantile(enter) - 1e-6
                across = ActingRegion.quantile((1 + enter) / 2) - 1e-6
            }
        }
    }

    func region(sigma: Double) -> (margin: Double, minRadius: Double) {
        // σ = ∞ makes P the naive 0 or 1 (InsideProbability's rule for a non-finite input).
        if naive || !sigma.isFinite { return (0, 0) }
        guard let along else { return (38.5 * sigma + 1e-6, 0) }
        return (-along * sigma + 1e-6, max(0, across * sigma - 1e-6))
    }

    /// Whether a fence held inside stays so for this fix under the rule, from d alone.
    @inline(__always)
    func surelyInside(_ d: Double, _ radius: Double, _ sigma: Double) -> Bool {
        if naive { return d <= radius }
        return sigma.isFinite && radius - d >= deepInside * sigma + 1e-6
    }

    /// Bounds on P wider than P's rounding (1e-14) by far, from the same two regions as above:
    /// the disc holds the circle of radius R − d around the fix, so P ≥ 1 − e^{−(R − d)²/2σ²},
    /// and it lies in the half-plane and the strip, so P ≤ Φ((R − d)/σ) · (2Φ(R/σ) − 1).
    static let boundSlack = 1e-9

    /// A value on the same side of the threshold the step compares P with (exit when inside,
    /// enter when outside) as P itself, found from those bounds (one exp, or two erfc, instead
    /// of P's series); nil when they do not settle it. naive's step reads d, not P: any value.
    @inline(__always)
    func standIn(inside: Bool, _ d: Double, _ radius: Double, _ sigma: Double) -> Double? {
        if naive { return 0.5 }
        guard sigma > 0, sigma.isFinite, radius.isFinite, d.isFinite else { return nil }
        let slack = ActingRegion.boundSlack
        let t = (radius - d) / sigma
        if t > 0 {
            let lower = -expm1(-0.5 * t * t)
            // Inside: P ≥ exit, no contradiction. Outside: P > enter, a contradiction.
            if inside ? lower - slack >= exit : lower - slack > enter { return lower - slack }
        }
        let sqrtHalf = 0.5.squareRoot()
        let upper = 0.5 * erfc(-t * sqrtHalf) * erf(radius / sigma * sqrtHalf)
        // Inside: P < exit, a contradiction. Outside: P ≤ enter, none.
        if inside ? upper + slack < exit : upper + slack <= enter { return upper + slack }
        return nil
    }

    /// Φ⁻¹(q) for q in (0, 1), by bisection on Φ(z) = ½ erfc(−z/√2), kept on the side where
    /// Φ(z) ≤ q, so never above the true quantile.
    static func quantile(_ q: Double) -> Double {
        if q >= 1 { return .infinity }
        var lo = -40.0  // Φ(−40) ≈ 4e-350: below any q here
        var hi = 40.0
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if 0.5 * erfc(-mid / 2.0.squareRoot()) <= q { lo = mid } else { hi = mid }
        }
        return lo
    }
}
