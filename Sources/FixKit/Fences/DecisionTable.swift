/// Which side of the rule's thresholds P(inside) is on, from a = d/σ and b = R/σ and a table,
/// without working P out: the comparison the rule's step makes (P > enter for a fence the user
/// is outside, P < exit for one the user is inside), settled for all but a thin band around
/// each threshold, where the exact P is worked out as before.
///
/// P is a function of a and b alone, decreasing in a and increasing in b. The table has a
/// column for every b_j = j/8 up to 64 and, for each threshold τ, the a at which P(a, b_j)
/// crosses τ, bracketed by bisection on `InsideProbability.p` itself: `above` with
/// P(above, b_j) ≥ τ + slack, `below` with P(below, b_j) ≤ τ − slack. For b in [b_j, b_{j+1})
/// and a ≤ above_j, P(a, b) ≥ P(above_j, b_j) > τ; for a ≥ below_{j+1}, P(a, b) ≤
/// P(below_{j+1}, b_{j+1}) < τ. The slack (1e-9) is far above P's error (1e-14, which the
/// argument meets twice) and the rounding of a and b. A column is filled the first time it is
/// needed (80 evaluations of P), so a run pays for the columns its fixes and fences reach.
final class DecisionTable {
    /// Columns a unit of b.
    static let perUnit = 8.0
    /// b_j for j < columns: up to 64.
    static let columns = 513
    static let slack = 1e-9
    /// Past this, P is 0 in double precision (`InsideProbability`: a − b ≥ 38.5).
    static let span = 40.0

    struct Column {
        var aboveEnter: Double
        var belowEnter: Double
        var aboveExit: Double
        var belowExit: Double
    }

    let enter: Double
    let exit: Double
    // SAFETY: `columns` entries, allocated and set to `unfilled` in `init`, freed in `deinit`;
    // read and written only at j < columns (`decide` checks j + 1 < columns).
    private let table: UnsafeMutablePointer<Column>
    private static let unfilled = Column(aboveEnter: .nan, belowEnter: .nan, aboveExit: .nan, belowExit: .nan)

    init(enter: Double, exit: Double) {
        self.enter = enter
        self.exit = exit
        table = UnsafeMutablePointer<Column>.allocate(capacity: DecisionTable.columns)
        table.initialize(repeating: DecisionTable.unfilled, count: DecisionTable.columns)
    }

    deinit {
        // SAFETY: the buffer `init` allocated; its elements are trivial.
        table.deallocate()
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
        let low = column(j)
        let high = column(j + 1)
        if inside {
            if a >= high.belowExit { return true }
            if a <= low.aboveExit { return false }
        } else {
            if a <= low.aboveEnter { return true }
            if a >= high.belowEnter { return false }
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
        let bound = column(Int(scaled)).aboveExit * sigma
        return bound >= 0 && squared <= bound * bound
    }

    @inline(__always)
    private func column(_ j: Int) -> Column {
        let c = table[j]
        if !c.aboveEnter.isNaN { return c }
        let filled = DecisionTable.fill(Double(j) / DecisionTable.perUnit, enter: enter, exit: exit)
        table[j] = filled
        return filled
    }

    static func fill(_ b: Double, enter: Double, exit: Double) -> Column {
        Column(
            aboveEnter: above(enter, b), belowEnter: below(enter, b), aboveExit: above(exit, b),
            belowExit: below(exit, b))
    }

    /// An a with P(a, b) ≥ τ + slack, as large as 20 halvings find; −∞ if even a = 0 falls short.
    static func above(_ tau: Double, _ b: Double) -> Double {
        let goal = tau + slack
        var lo = max(0, b - span)
        guard InsideProbability.p(distance: lo, radius: b, sigma: 1) >= goal else { return -.infinity }
        var hi = b + span
        for _ in 0..<20 {
            let mid = (lo + hi) / 2
            if InsideProbability.p(distance: mid, radius: b, sigma: 1) >= goal { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// An a with P(a, b) ≤ τ − slack, as small as 20 halvings find; +∞ if none is.
    static func below(_ tau: Double, _ b: Double) -> Double {
        let goal = tau - slack
        var hi = b + span
        guard InsideProbability.p(distance: hi, radius: b, sigma: 1) <= goal else { return .infinity }
        var lo = max(0, b - span)
        if InsideProbability.p(distance: lo, radius: b, sigma: 1) <= goal { return lo }
        for _ in 0..<20 {
            let mid = (lo + hi) / 2
            if InsideProbability.p(distance: mid, radius: b, sigma: 1) <= goal { hi = mid } else { lo = mid }
        }
        return hi
    }
}
