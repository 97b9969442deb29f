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
/// argument meets at most three times) and the rounding of a and b. Each threshold's part of
/// a column is filled the first time it is needed, so a run pays for the columns its fixes
/// and fences reach, and for enter's only where a fence is outside, exit's only where one is
/// inside: one bisection finds both of its values (see `fill`), from the bracket its nearest
/// filled neighbours give where they are near (about 7 evaluations of P), else from the whole
/// range (about 18). The band the table leaves to the exact P is about a column wide in a: 32
/// columns a unit rather than 8 left a noisy run (hacc 2 to 150 m, a million fences) 29,000
/// exact values to work out instead of 111,000 in a million fixes, beside the 66,000 its
/// events need.
final class DecisionTable {
    /// Columns a unit of b.
    static let perUnit = 32.0
    /// b_j for j < columns: up to 64.
    static let columns = 2049
    static let slack = 1e-9
    /// The bracket a bisection starts from without neighbours, a = b − `sure` to b + `never`:
    /// P is exactly 1 at the one end (`InsideProbability`: b − a ≥ 8.66) and exactly 0 at the
    /// other (a − b ≥ 38.5), with room for the rounding of b ± these.
    static let sure = 8.75
    static let never = 39.0
    /// Where a bisection stops: a thirty-second of a column (16 halvings of the whole range).
    static let precision = 1.0 / 1024
    /// How many columns each way a fill looks for a filled neighbour.
    static let reach = 8

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
    /// finite are the caller's to check. `perSigma` is 1/σ, worked out once a fix: a and b are
    /// then products, not quotients (a division waits some 14 cycles, and the column's load and
    /// the comparisons wait on it), and round by an ulp more, which the slack covers.
    @inline(__always)
    func contradicts(inside: Bool, _ d: Double, _ radius: Double, perSigma: Double) -> Bool? {
        let b = radius * perSigma
        let a = d * perSigma
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

    /// `contradicts(inside: true, d, radius, perSigma:) == false` for a fix at `squared` chord
    /// (under 50 km, where d is the chord), without the square root and d's division:
    /// a ≤ above ⇔ d ≤ above · σ, compared squared. The product and the squares round by an ulp
    /// or two, which moves P by some 1e-16, far inside the table's slack; so where this says the
    /// fence holds, P ≥ exit, as `contradicts` would have said.
    @inline(__always)
    func holdsInside(squared: Double, _ radius: Double, _ sigma: Double, perSigma: Double) -> Bool {
        let scaled = radius * perSigma * DecisionTable.perUnit
        guard scaled < Double(DecisionTable.columns - 1) else { return false }
        let bound = bounds(exitBounds, Int(scaled), exit).above * sigma
        return bound >= 0 && squared <= bound * bound
    }

    /// Column j of the enter (or exit) bounds, filled if it was not: for the tests.
    func column(_ j: Int, exit: Bool) -> Bounds {
        exit ? bounds(exitBounds, j, self.exit) : bounds(enterBounds, j, enter)
    }

    /// Column j of one threshold's bounds, filled the first time it is read.
    @inline(__always)
    private func bounds(_ table: UnsafeMutablePointer<Bounds>, _ j: Int, _ tau: Double) -> Bounds {
        let c = table[j]
        if !c.above.isNaN { return c }
        return fill(table, j, tau)
    }

    /// Fills column j of one threshold's bounds. P increases with b, so the `above` of a filled
    /// column left of j (P ≥ τ + slack there) has P ≥ τ + slack at b_j too, and the `below` of
    /// one right of it has P ≤ τ − slack at b_j: the nearest within `reach` bracket the crossing
    /// without an evaluation.
    @inline(never)
    private func fill(_ table: UnsafeMutablePointer<Bounds>, _ j: Int, _ tau: Double) -> Bounds {
        var lo: Double?
        var hi: Double?
        for k in stride(from: j - 1, through: max(0, j - DecisionTable.reach), by: -1) where !table[k].above.isNaN {
            if table[k].above.isFinite { lo = table[k].above }
            break
        }
        for k in stride(from: j + 1, through: min(DecisionTable.columns - 1, j + DecisionTable.reach), by: 1)
        where !table[k].above.isNaN {
            if table[k].below.isFinite { hi = table[k].below }
            break
        }
        let filled = DecisionTable.fill(Double(j) / DecisionTable.perUnit, tau, lo: lo, hi: hi)
        table[j] = filled
        return filled
    }

    /// Where P(·, b) crosses τ: `above` with P(above, b) ≥ τ + slack, `below` with P(below, b)
    /// ≤ τ − slack, by one bisection that keeps both sides: from `lo` and `hi` where given
    /// (known to be on their sides), else from the ends of the whole range, checked. Where an
    /// end is not on its side (small b, where even a = 0 leaves P below τ + slack, or a
    /// threshold of 0 or 1), the two searches apart, as before.
    static func fill(_ b: Double, _ tau: Double, lo knownLo: Double? = nil, hi knownHi: Double? = nil) -> Bounds {
        let high = tau + slack
        let low = tau - slack
        var lo = max(0, b - sure)
        var hi = b + never
        if let knownLo, knownLo <= hi { lo = knownLo } else if p(lo, b) < high { return apart(b, tau) }
        if let knownHi, knownHi >= lo { hi = knownHi } else if p(hi, b) > low { return apart(b, tau) }
        while hi - lo > precision {
            let mid = (lo + hi) / 2
            let q = p(mid, b)
            if q >= high {
                lo = mid
            } else if q <= low {
                hi = mid
            } else {
                // Within the slack of τ, which spans units of a where τ is within it of 0 or 1:
                // each bound on its own from here, mid on the far side of both.
                return Bounds(above: lastAtLeast(high, b, lo, mid), below: firstAtMost(low, b, mid, hi))
            }
        }
        return Bounds(above: lo, below: hi)
    }

    /// The two searches apart, each from the whole range.
    static func apart(_ b: Double, _ tau: Double) -> Bounds { Bounds(above: above(tau, b), below: below(tau, b)) }

    /// An a with P(a, b) ≥ τ + slack, as large as the halvings find; −∞ if even a = 0 falls
    /// short.
    static func above(_ tau: Double, _ b: Double) -> Double {
        let goal = tau + slack
        let lo = max(0, b - sure)
        guard p(lo, b) >= goal else { return -.infinity }
        return lastAtLeast(goal, b, lo, b + never)
    }

    /// An a with P(a, b) ≤ τ − slack, as small as the halvings find; +∞ if none is.
    static func below(_ tau: Double, _ b: Double) -> Double {
        let goal = tau - slack
        let hi = b + never
        guard p(hi, b) <= goal else { return .infinity }
        let lo = max(0, b - sure)
        if p(lo, b) <= goal { return lo }
        return firstAtMost(goal, b, lo, hi)
    }

    /// From `lo` with P(lo, b) ≥ `goal` and `hi` past it, the bracket halved to `precision`:
    /// its low end, where P is still at least the goal.
    static func lastAtLeast(_ goal: Double, _ b: Double, _ lo: Double, _ hi: Double) -> Double {
        var (lo, hi) = (lo, hi)
        while hi - lo > precision {
            let mid = (lo + hi) / 2
            if p(mid, b) >= goal { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// From `hi` with P(hi, b) ≤ `goal` and `lo` before it, the bracket halved to `precision`:
    /// its high end, where P is still at most the goal.
    static func firstAtMost(_ goal: Double, _ b: Double, _ lo: Double, _ hi: Double) -> Double {
        var (lo, hi) = (lo, hi)
        while hi - lo > precision {
            let mid = (lo + hi) / 2
            if p(mid, b) <= goal { hi = mid } else { lo = mid }
        }
        return hi
    }

    /// P(a, b): the exact P at σ = 1.
    @inline(__always)
    static func p(_ a: Double, _ b: Double) -> Double { InsideProbability.p(distance: a, radius: b, sigma: 1) }
}
