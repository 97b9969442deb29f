/// How fencerule decides that the user entered or left a fence.
public enum FenceRuleKind: String, Sendable {
    /// Inside whenever the fix is (d ≤ R): flips on every fix near the edge.
    case naive
    /// Enter when P(inside) > enter, exit when P < exit, once the contradicting evidence has
    /// held for `dwell` consecutive fixes.
    case confident
    /// As confident, but the dwell also ends once the evidence has held over
    /// `dwellDistance` metres of movement, so a car is not carried deep into a fence.
    case adaptive
    /// Honest under errors correlated over time (a Gauss–Markov error with time constant
    /// `tau`): the dwell in effective observations, and a user whose Doppler speed says they
    /// stand judged on the pooled evidence of the stay, changed at most once (SteadyRule.swift).
    case steady
}

public struct FenceRuleSettings: Sendable {
    public var kind: FenceRuleKind = .confident
    public var enter = 0.9
    public var exit = 0.1
    public var dwell = 3
    public var dwellDistance = 20.0
    /// steady: the time constant of the position error, seconds (0: independent per fix).
    public var tau = 30.0
    /// steady: a Doppler speed at most this (m/s) is a user standing still.
    public var stillSpeed = 0.5
    /// Whether a fence starts inside (Core Location's `assuming: .satisfied`).
    public var assumeInside = false

    public init() {}

    /// How far beyond two fixes' combined accuracy a displacement must go before it counts as
    /// movement: noise alone exceeds k·√(σ1² + σ2²) with probability e^{−k²/2}, 4e-6 for k = 5.
    static let noiseAllowance = 5.0
}

/// One fence's state on one trace, kept only while it differs from the assumed start.
struct FenceState {
    var inside: Bool
    /// Consecutive fixes contradicting `inside`.
    var count = 0
    /// Movement (metres) while the contradicting evidence has held (adaptive).
    var moved = 0.0
    /// Where the last fix before the contradicting evidence began was: its position and σ,
    /// what `movement` reads (not the whole fix: the state is copied on every fix that keeps it).
    var anchor: Anchor?
    /// steady: effective observations while the contradicting evidence has held.
    var effective = 0.0
    /// steady: the still stretch in which the state last changed, if it changed while still.
    var settledStretch: Int?
    /// The time of the enter event, for the exit's duration.
    var enteredAt: Timestamp?
}

/// A dwell's anchor: what `FenceRuleSettings.movement` needs of the fix before it began.
struct Anchor: Equatable {
    var lat: Double
    var lon: Double
    var sigma: Double

    init?(_ fix: FixPoint?) {
        guard let fix else { return nil }
        (lat, lon, sigma) = (fix.lat, fix.lon, fix.sigma)
    }
}

/// What a rule needs of a fix.
struct FixPoint {
    var lat: Double
    var lon: Double
    var time: Timestamp?
    var speed: Double?
    var sigma: Double
}

extension FenceRuleSettings {
    /// The start of every rule's step but naive's: whether `p` contradicts the state held
    /// (below exit while inside, above enter while outside). If not, the dwell under way is
    /// reset; if so, the fix is counted, and a new dwell is anchored at `previous`.
    func countsContradiction(_ state: inout FenceState, p: Double, previous: FixPoint?) -> Bool {
        let contradicting = state.inside ? p < exit : p > enter
        guard contradicting else {
            state.count = 0
            state.effective = 0
            state.moved = 0
            state.anchor = nil
            return false
        }
        if state.count == 0 {
            state.anchor = Anchor(previous)
            state.moved = 0
        }
        state.count += 1
        return true
    }

    /// Advances `state` by one fix at `distance` from the fence centre with probability `p` of
    /// being inside; `previous` is the trace's fix before this one.
    func step(
        _ state: inout FenceState, p: Double, distance: Double, radius: Double, fix: FixPoint, previous: FixPoint?
    ) -> Bool? {
        if kind == .naive {
            let inside = distance <= radius
            guard inside != state.inside else { return nil }
            state.inside = inside
            return inside
        }
        guard countsContradiction(&state, p: p, previous: previous) else { return nil }
        if kind == .adaptive { state.moved = movement(state, fix: fix, previous: previous) }
        guard state.count >= dwell || (kind == .adaptive && state.moved >= dwellDistance) else { return nil }
        state.inside.toggle()
        state.count = 0
        state.moved = 0
        state.anchor = nil
        return state.inside
    }

    /// Movement since the anchor, measured so that position noise alone never counts: from the
    /// reported speed and the time between fixes where fixes have a speed (Doppler speed is far
    /// steadier than position), else only the displacement beyond what the two fixes'
    /// accuracies explain.
    func movement(_ state: FenceState, fix: FixPoint, previous: FixPoint?) -> Double {
        if let v = fix.speed, let t = fix.time, let p = previous, let t0 = p.time, t > t0 {
            return state.moved + v * (t.seconds - t0.seconds)
        }
        guard let a = state.anchor else { return state.moved }
        let d = Geodesy.distance(lat1: a.lat, lon1: a.lon, lat2: fix.lat, lon2: fix.lon)
        let noise = FenceRuleSettings.noiseAllowance * (a.sigma * a.sigma + fix.sigma * fix.sigma).squareRoot()
        return max(state.moved, d - noise)
    }
}
