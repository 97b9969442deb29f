#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A weighted least-squares line through a stay's fixes, position against time, kept as running
/// sums: memory that does not grow with the stay.
///
/// It tells a stay from slow movement. A user who stays puts fixes around one place, however
/// they wander; a hiker at 0.2 to 0.6 m/s drags the stay's centre along behind them, and the
/// stay only ends once they are `radius` plus hacc ahead of it, so its fixes lie along a line
/// about twice that long, in time order. `movement` is how much of the fixes' spread a steady
/// drift explains (the line's r²) times how far the line goes over the stay (its speed times the
/// stay's duration) in units of `radius` plus the fixes' mean hacc.
///
/// Positions are metres east and north of the stay's first fix (a plane tangent there, good to
/// well under a metre over the few hundred metres a stay covers); times are seconds after it.
/// Each fix weighs the seconds since the fix before it (at least 0.5, at most 60) over its hacc²
/// (hacc at least 30 m), as the stay's centre weighs them (`StaySummary.weight`).
struct DriftFit {
    private var lat0 = 0.0
    private var lon0 = 0.0
    private var t0 = 0.0
    private var cosLat0 = 1.0
    private var lastTime = 0.0
    private(set) var count = 0
    private var haccSum = 0.0
    private var w = 0.0, st = 0.0, stt = 0.0
    private var se = 0.0, sn = 0.0, ste = 0.0, stn = 0.0, see = 0.0, snn = 0.0

    /// Metres per degree of latitude (the mean; the fit needs shape, not survey accuracy).
    private static let metresPerDegree = 111_195.0

    mutating func add(lat: Double, lon: Double, hacc: Double, time: Double) {
        if count == 0 {
            lat0 = lat
            lon0 = lon
            t0 = time
            lastTime = time
            cosLat0 = max(1e-6, cos(lat * .pi / 180))
        }
        var dLon = lon - lon0
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let e = dLon * cosLat0 * Self.metresPerDegree
        let n = (lat - lat0) * Self.metresPerDegree
        let t = time - t0
        let share = count == 0 ? 0.5 : min(60, max(0.5, time - lastTime))
        let h = max(30, hacc)
        let wi = share / (h * h)
        count += 1
        lastTime = time
        haccSum += hacc
        w += wi
        st += wi * t
        stt += wi * t * t
        se += wi * e
        sn += wi * n
        ste += wi * t * e
        stn += wi * t * n
        see += wi * e * e
        snn += wi * n * n
    }

    /// The line's r² times its length over the stay in units of `radius` plus the mean hacc;
    /// 0 for fewer than `minimumFixes` fixes or fixes all at one time or one place.
    func movement(radius: Double) -> Double {
        guard count >= Self.minimumFixes, w > 0 else { return 0 }
        let tm = st / w
        let varT = stt / w - tm * tm
        let (em, nm) = (se / w, sn / w)
        let spread = (see / w - em * em) + (snn / w - nm * nm)
        guard varT > 0, spread > 0 else { return 0 }
        let ve = (ste / w - tm * em) / varT
        let vn = (stn / w - tm * nm) / varT
        let speed2 = ve * ve + vn * vn
        let r2 = min(1, speed2 * varT / spread)
        let length = speed2.squareRoot() * (lastTime - t0)
        return r2 * length / (radius + haccSum / Double(count))
    }

    /// Fewer fixes than this say too little about a line (three points can lie on one by chance).
    static let minimumFixes = 8
}
