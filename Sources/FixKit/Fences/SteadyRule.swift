#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The steady rule: decisions that stay honest when the position error is a first-order
/// Gauss–Markov process with time constant τ (`tau`), as real receivers' is, rather than fresh
/// noise every fix.
///
/// Under such an error, n fixes that stand at one place are worth far fewer than n independent
/// observations of it. For a Markov error the generalised-least-squares estimate of a fixed
/// position from fixes at t1 … tn has the precision of
///
///     n_eff = 1 + Σ_{i≥2} (1 − ρi)/(1 + ρi) = 1 + Σ tanh(Δti / 2τ),   ρi = e^{−Δti/τ}
///
/// independent fixes (one per fix when τ = 0; about 1 + T/2τ over T seconds at 1 Hz). The rule
/// counts its dwell in these effective observations, and where a fix has a Doppler `speed`
/// (measured apart from the position, and far more precisely) it also knows when the user
/// stands:
/// - **moving** (speed above `stillSpeed`): the user's true distance to each edge changes from
///   fix to fix, and each fix is judged on its own P, as `adaptive` judges it (a dwell of
///   `dwell` fixes, or `dwellDistance` metres of Doppler movement);
/// - **still** (speed at most `stillSpeed`): the fixes since the user stopped observe one true
///   position. They are pooled into its GLS estimate under the Gauss–Markov model (a fix more
///   than 5σ from it is an outlier and is left out), and P(inside) is computed for that
///   estimate with its own, shrinking, standard deviation. The pooled P must contradict the
///   state over `dwell` effective observations, and a user who has stood still since the last
///   change is not moved across an edge again: at most one change per still stretch, the one
///   that brings the state carried in to what the stay's evidence says;
/// - **no speed**: each fix is judged on its own P, and the dwell ends once the contradicting
///   evidence has held over `dwell` effective observations, or over `dwellDistance` metres of
///   displacement beyond what the fixes' accuracies explain (adaptive's measure).
/// Fixes without a time count one observation each, as under confident.
struct StillPool {
    /// The current still stretch's number, counted from 1 on the trace; 0 before the first.
    var stretch = 0
    var active = false
    /// A local east/north frame at the stretch's first fix.
    var frame = LocalFrame(lat: 0, lon: 0)
    /// Σ w·u per axis and Σ w, the GLS sums over the transformed fixes (metres, 1/m²).
    var sumEast = 0.0
    var sumNorth = 0.0
    var weight = 0.0
    /// The last pooled fix, in the frame, and its time.
    var last = (east: 0.0, north: 0.0)
    var lastTime: Timestamp?
    /// Consecutive fixes beyond the gate: `dwell` of them start a new stretch.
    var pending = 0
    /// The last fix with a speed that was not an outlier, and how many since were.
    var lastGood: FixPoint?
    var outliers = 0
}

/// How the steady rule sees one fix.
struct SteadyObservation {
    enum Regime { case moving, still, unknown }
    var regime: Regime
    /// Still: the pooled position and its standard deviation per axis, metres.
    var position: Geodesy.Point?
    var sigma = 0.0
    /// The effective observations this fix adds to a contradicting run after its first fix.
    var gain = 1.0
    /// Still: the stretch the fix belongs to; nil when it was left out as an outlier.
    var stretch: Int?
    /// A fix farther from the last good one than its Doppler speed and the noise explain.
    var outlier = false
}

extension FenceRuleSettings {
    /// The effective observations a fix `dt` seconds after the last adds: tanh(Δt/2τ) (one
    /// when τ = 0 or the times are unknown; nothing for a repeated or earlier time).
    func effectiveGain(_ t: Timestamp?, after t0: Timestamp?) -> Double {
        guard let t, let t0 else { return 1 }
        let dt = t.seconds - t0.seconds
        guard dt > 0 else { return 0 }
        return tau > 0 ? tanh(dt / (2 * tau)) : 1
    }

    /// Classifies the fix and, when the user stands, pools it; once per fix, before the fences.
    func observe(_ fix: FixPoint, previous: FixPoint?, pool: inout StillPool) -> SteadyObservation {
        guard let v = fix.speed else {
            pool.active = false
            return SteadyObservation(regime: .unknown, gain: effectiveGain(fix.time, after: previous?.time))
        }
        if let g = pool.lastGood {
            // A fix cannot be farther from the last good one than the Doppler speeds carry the
            // user, plus 5σ of the difference of two errors (at most 2σ² whatever τ).
            let dt = fix.time.flatMap { t in g.time.map { t.seconds - $0.seconds } } ?? 0
            let reach = max(v, g.speed ?? v) * max(0, dt)
            let noise = FenceRuleSettings.noiseAllowance * (fix.sigma * fix.sigma + g.sigma * g.sigma).squareRoot()
            let d = Geodesy.distance(lat1: g.lat, lon1: g.lon, lat2: fix.lat, lon2: fix.lon)
            if d > reach + noise, pool.outliers + 1 < dwell {
                pool.outliers += 1
                return SteadyObservation(regime: v <= stillSpeed ? .still : .moving, outlier: true)
            }
        }
        pool.outliers = 0
        pool.lastGood = fix
        guard v <= stillSpeed else {
            pool.active = false
            return SteadyObservation(regime: .moving)
        }
        let variance = 1 / max(pool.weight, .leastNormalMagnitude)
        if pool.active {
            let here = pool.frame.metres(lat: fix.lat, lon: fix.lon)
            let mean = (east: pool.sumEast / pool.weight, north: pool.sumNorth / pool.weight)
            let de = here.east - mean.east
            let dn = here.north - mean.north
            let gate = FenceRuleSettings.noiseAllowance * (fix.sigma * fix.sigma + variance).squareRoot()
            if (de * de + dn * dn).squareRoot() <= gate {
                pool.pending = 0
                let gain = effectiveGain(fix.time, after: pool.lastTime)
                add(here, time: fix.time, sigma: fix.sigma, gain: gain, to: &pool)
                return estimate(pool, gain: gain)
            }
            pool.pending += 1
            guard pool.pending >= dwell else {
                return SteadyObservation(regime: .still, stretch: nil)  // an outlier: left out
            }
        }
        // A new stretch: the user stopped, or the fixes have moved beyond what noise explains.
        pool.stretch += 1
        pool.active = true
        pool.pending = 0
        pool.frame = LocalFrame(lat: fix.lat, lon: fix.lon)
        pool.sumEast = 0
        pool.sumNorth = 0
        pool.weight = 0
        add((0, 0), time: fix.time, sigma: fix.sigma, gain: 1, to: &pool)
        return estimate(pool, gain: 1)
    }

    /// GLS under an AR(1) error: u = (z − ρ z₋)/(1 − ρ) has variance σ²(1 + ρ)/(1 − ρ), so it
    /// enters with weight tanh(Δt/2τ)/σ² (the first fix: z with weight 1/σ²).
    private func add(
        _ z: (east: Double, north: Double), time: Timestamp?, sigma: Double, gain: Double, to pool: inout StillPool
    ) {
        let s2 = max(sigma * sigma, 1e-6)  // a hacc of 0 would make one fix certain
        if pool.weight == 0 {
            pool.sumEast = z.east / s2
            pool.sumNorth = z.north / s2
            pool.weight = 1 / s2
        } else if gain > 0 {
            // ρ from the gain: tanh(Δt/2τ) = (1 − ρ)/(1 + ρ).
            let rho = (1 - gain) / (1 + gain)
            let u = (
                east: (z.east - rho * pool.last.east) / (1 - rho), north: (z.north - rho * pool.last.north) / (1 - rho)
            )
            pool.sumEast += gain * u.east / s2
            pool.sumNorth += gain * u.north / s2
            pool.weight += gain / s2
        } else {
            return  // a repeated time adds nothing, and stays out of the next difference
        }
        pool.last = z
        pool.lastTime = time
    }

    private func estimate(_ pool: StillPool, gain: Double) -> SteadyObservation {
        let p = pool.frame.degrees(east: pool.sumEast / pool.weight, north: pool.sumNorth / pool.weight)
        return SteadyObservation(
            regime: .still, position: Geodesy.Point(lat: p.lat, lon: p.lon), sigma: (1 / pool.weight).squareRoot(),
            gain: gain, stretch: pool.stretch)
    }

    /// One fence under the steady rule: `p` is the evidence (the fix's P, or the pooled P when
    /// still).
    func steadyStep(
        _ state: inout FenceState, p: Double, observation o: SteadyObservation, fix: FixPoint, previous: FixPoint?
    ) -> Bool? {
        if o.outlier { return nil }  // an outlier changes nothing
        if o.regime == .still {
            guard let stretch = o.stretch else { return nil }
            if state.settledStretch == stretch {
                state.effective = 0
                return nil
            }
        }
        guard countsContradiction(&state, p: p, previous: previous) else { return nil }
        let ended: Bool
        switch o.regime {
        case .moving:
            state.effective += 1
            state.moved = movement(state, fix: fix, previous: previous)
            ended = state.effective >= Double(dwell) || state.moved >= dwellDistance
        case .still:
            state.effective = state.effective == 0 ? 1 : state.effective + o.gain
            ended = state.effective >= Double(dwell) - 1e-9
        case .unknown:
            state.effective = state.effective == 0 ? 1 : state.effective + o.gain
            state.moved = movement(state, fix: fix, previous: previous)
            // Without speed one far fix is no proof of movement (an outlier is one): the dwell
            // of fixes holds as under confident.
            ended = state.count >= dwell && (state.effective >= Double(dwell) - 1e-9 || state.moved >= dwellDistance)
        }
        guard ended else { return nil }
        state.inside.toggle()
        state.count = 0
        state.effective = 0
        state.moved = 0
        state.anchor = nil
        state.settledStretch = o.regime == .still ? o.stretch : nil
        return state.inside
    }
}
