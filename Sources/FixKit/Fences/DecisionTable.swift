/// Which side of the rule's thresholds P(inside) is on, from a = d/σ and b = R/σ and a table,
/// without working P out: the comparison the rule's step makes (P > enter for a fence the user
/// is outside, P < exit for one the user is inside), settled for all but a thin band around
/// each threshold, where the exact P is worked out as before.
///
/// P is a function of a and b alone, decreasing in a and increasing in b. The table has a
/// column for every b_j = j/32 up to 64 and, for each threshold τ, the a at which P(a, b_j)
/// crosses τ, bracketed by bisection on `InsideProbability.p` itself: `above` with
/// P(above, b_j) ≥ τ + slack, `below` with P(below, b_j) ≤ τ − slack. For b in [b_j, b_{j+1})
/// and a ≤ above_j, P(a, b) ≥ P(above_j, b_j) > τ; for a ≥ below_{j+1}, P(a, b) ≤
/// P(below_{j+1}, b_{j+1}) < τ. The slack (1e-9) is far above P's error (1e-14, which the
/// argument meets twice) and the rounding of a and b. Each threshold's part of a column is
/// filled the first time it is needed (about 35 evaluations of P), so a run pays for the
/// columns its fixes and fences reach, and for enter's only where a fence is outside, exit's
/// only where one is inside. The band the table leaves to the exact P is about a column wide
/// in a: 32 columns a unit rather than 8 left a noisy run (hacc 2 to 150 m, a million fences)
/// 29,000 exact values to work out instead of 111,000 in a million fixes, beside the 66,000
/// its events need.
final class DecisionTable {
    /// Columns a unit of b.
    static let perUnit = 32.0
    /// b_j for j < columns: up to 64.
    static let columns = 2049
    static let slack = 1e-9
    /// The bracket a bisection starts from, a = b − `sure` to b + `never`: P is exactly 1 at
    /// the one end (`InsideProbability`: b − a ≥ 8.66) and exactly 0 at the other (a − b ≥
    /// 38.5), with room for the rounding of b ± these. 16 halvings leave it 0.0007 wide, a
    /// fiftieth of a column.
    static let sure = 8.75
    static let never = 39.0
    static let halvings = 16

    /// One threshold's crossing at one b_j.
    struct Bounds {
        var above: Double
        var below: Double
    }

    let enter: Double
    let exit: Double
    // SAFETY: `columns` entries each, allocated and set to `unfilled` in `init`, freed in
    // `deinit`; read and written only at j < columns (`contradicts` and `holdsInside` check
    // j + 1 < columns).
    private let enterBounds: UnsafeMutablePointer<Bounds>
    private let exitBounds: UnsafeMutablePointer<Bounds>
    private static let unfilled = Bounds(above: .nan, below: .nan)

    init(enter: Double, exit: Double) {
        self.enter = enter
        self.exit = exit
        enterBounds = UnsafeMutablePointer<Bounds>.allocate(capacity: DecisionTable.columns)
        enterBounds.initialize(repeating: DecisionTable.unfilled, count: DecisionTable.columns)
        exitBounds = UnsafeMutablePointer<Bounds>.allocate(capacity: DecisionTable.columns)
        exitBounds.initialize(repeating: DecisionTable.unfilled, count: DecisionTable.columns)
    }

    deinit {
        // SAFETY: the buffers `init` allocated; their elements are trivial.
        enterBounds.deallocate()
        exitBounds.deallocate()
    }

    /// Whether the rule's step sees a contradiction (inside: P < exit; outside: P > enter), if
    /// the table settles it; nil where the exact P is needed. σ > 0 and finite, d ≥ 0 and R ≥ 0
    /// finite are the caller's to check.
    @inline(__always)
    func contradicts(inside: Bool, _ d: Double, _ radius: Double, _ sigma: Double) -> Bool? {
        let b = radius / sigma
        let a = d / sigma
        let scaled = b * DecisionTable.perUnit
        guard scaled < Double(DecisionTable.columns - 1) else { return nil }
        let j = Int(scaled)
        if inside {
            if a >= bounds(exitBounds, j + 1, exit).below { return true }
            if a <= bounds(exitBounds, j, exit).above { return false }
        } else {
            if a <= bounds(enterBounds, j, enter).above { return true }
            if a >= bounds(enterBounds, j + 1, enter).below { return false }
        }
        return nil
    }

    /// `contradicts(inside: true, d, radius, sigma) == false` for a fix at `squared` chord
    /// (under 50 km, where d is the chord), without the square root and d's division:
    /// a ≤ above ⇔ d ≤ above · σ, compared squared. The product and the squares round by an ulp
    /// or two, which moves P by some 1e-16, far inside the table's slack; so where this says the
    /// fence holds, P ≥ exit, as `contradicts` would have said.
    @inline(__always)
    func holdsInside(squared: Double, _ radius: Double, _ sigma: Double) -> Bool {
        let scaled = radius / sigma * DecisionTable.perUnit
        guard scaled < Double(DecisionTable.columns - 1) else { return false }
        let bound = bounds(exitBounds, Int(scaled), exit).above * sigma
        return bound >= 0 && squared <= bound * bound
    }

    /// Column j of one threshold's bounds, filled the first time it is read.
    @inline(__always)
    private func bounds(_ table: UnsafeMutablePointer<Bounds>, _ j: Int, _ tau: Double) -> Bounds {
        let c = table[j]
        if !c.above.isNaN { return c }
        let filled = DecisionTable.fill(Double(j) / DecisionTable.perUnit, tau)
        table[j] = filled
        return filled
    }

    /// Where P(·, b) crosses τ, bracketed.
    static func fill(_ b: Double, _ tau: Double) -> Bounds { Bounds(above: above(tau, b), below: below(tau, b)) }

    /// An a with P(a, b) ≥ τ + slack, as large as the halvings find; −∞ if even a = 0 falls
    /// short.
    static func above(_ tau: Double, _ b: Double) -> Double {
        let goal = tau + slack
        var lo = max(0, b - sure)
        guard InsideProbability.p(distance: lo, radius: b, sigma: 1) >= goal else { return -.infinity }
        var hi = b + never
        for _ in 0..<halvings {
            let mid = (lo + hi) / 2
            if InsideProbability.p(distance: mid, radius: b, sigma: 1) >= goal { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// An a with P(a, b) ≤ τ − slack, as small as the halvings find; +∞ if none is.
    static func below(_ tau: Double, _ b: Double) -> Double {
        let goal = tau - slack
        var hi = b + never
        guard InsideProbability.p(distance: hi, radius: b, sigma: 1) <= goal else { return .infinity }
        var lo = max(0, b - sure)
        if InsideProbability.p(distance: lo, radius: b, sigma: 1) <= goal { return lo }
        for _ in 0..<halvings {
            let mid = (lo + hi) / 2
            if InsideProbability.p(distance: mid, radius: b, sigma: 1) <= goal { hi = mid } else { lo = mid }
        }
        return hi
    }
}
