/// Where a fix's fences are found (`FenceEngine`): the candidates of `process`, from the
/// neighbourhood list that covers the fix (`NearFences`), else from the index, and the same
/// search for `--limit`'s missed fences.
extension FenceEngine {
    /// Calls `body(k, d, radius, place)` for every fence k with d − radius ≤ `margin` (≤ 0 for the
    /// list) and radius ≥ `minRadius`, d its `Geodesy.distance`: from the neighbourhood list that
    /// covers the fix (`NearFences`: the index's own test on the list's fences), else from the
    /// index. Each once, in no particular order.
    @inline(__always)
    func forEachWithin(
        _ here: Geodesy.Point, margin: Double, minRadius: Double = 0, serial: Int,
        _ body: (Int, Double, Double, Int) -> Void
    ) {
        guard mayFind(margin: margin, minRadius: minRadius) else { return }
        if let list = near.list(for: serial, at: here, margin: margin, index: index) {
            forEachListed(list, here, margin: margin, minRadius: minRadius, body)
        } else {
            index.forEachWithin(here, margin: margin, minRadius: minRadius, body)
        }
    }

    /// A fix's candidates, appended to `candidates`: `forEachWithin`'s fences, less those
    /// unwatched under a limit. The list's fences are appended by a closure that is inlined, the
    /// index's by one of their own, out of line: one closure for both made a context holding
    /// the engine, which was retained and released for every fix.
    @inline(__always)
    func gatherCandidates(
        _ here: Geodesy.Point, margin: Double, minRadius: Double, serial: Int, watched: Set<Int>?
    ) {
        guard mayFind(margin: margin, minRadius: minRadius) else { return }
        if let list = near.list(for: serial, at: here, margin: margin, index: index) {
            forEachListed(list, here, margin: margin, minRadius: minRadius) { k, d, radius, place in
                addCandidate(k, d, radius, place, watched: watched)
            }
        } else {
            gatherFromIndex(here, margin: margin, minRadius: minRadius, watched: watched)
        }
    }

    /// `gatherCandidates` where no list serves the fix.
    @inline(never)
    func gatherFromIndex(_ here: Geodesy.Point, margin: Double, minRadius: Double, watched: Set<Int>?) {
        index.forEachWithin(here, margin: margin, minRadius: minRadius) { k, d, radius, place in
            addCandidate(k, d, radius, place, watched: watched)
        }
    }

    /// Fence k is a candidate, unless a limit leaves it unwatched.
    @inline(__always)
    func addCandidate(_ k: Int, _ d: Double, _ radius: Double, _ place: Int, watched: Set<Int>?) {
        if watched.map({ $0.contains(k) }) ?? true {
            candidates.append(Candidate(k: k, d: d, radius: radius, place: place))
        }
    }

    /// Whether any fence can be found: none is that large otherwise (a fix with a hacc of
    /// 150 m wants 247 m).
    @inline(__always)
    func mayFind(margin: Double, minRadius: Double) -> Bool {
        minRadius <= index.largestRadius && margin + index.largestRadius >= 0
    }

    /// `forEachWithin` on a neighbourhood's list.
    @inline(__always)
    func forEachListed(
        _ list: NearFences.Served, _ here: Geodesy.Point, margin: Double, minRadius: Double,
        _ body: (Int, Double, Double, Int) -> Void
    ) {
        // `index.distance(_:_:_:within:)` on each listed fence, first in single precision
        // on four at a time (`NearFences.Columns`: looser than the exact test by more than
        // any rounding), its outcome taken without a branch: 15 of the 16 fences a noisy fix
        // reads fail it, unpredictably. Every entry's place is written and kept only if it
        // passes; those that pass are then tested exactly, and measured. Its `most ≥ 0` and
        // the least radius are one comparison, radius ≥ `least`: the two differ only where
        // radius + margin + 1e-6 rounds across 0, and a fence there fails the exact test after
        // (it needs d ≤ radius + margin, so radius ≥ −margin).
        let least = max(minRadius, -(margin + 1e-6))
        let entries = list.entries
        let columns = list.columns
        // The fix less the anchor, the margin and limit rounded up, the least radius down.
        let fx = SIMD4<Float>(repeating: Float(here.x - list.anchor.x))
        let fy = SIMD4<Float>(repeating: Float(here.y - list.anchor.y))
        let fz = SIMD4<Float>(repeating: Float(here.z - list.anchor.z))
        let m = SIMD4<Float>(repeating: Float(margin).nextUp)
        let leastF = SIMD4<Float>(repeating: Float(least).nextDown)
        let limit = Float(list.limit).nextUp
        let limits = SIMD4<Float>(repeating: limit)
        // SAFETY: each lane writes `picked[n]` with n at most its entry's index, below the
        // padded count, which is at most `NearFences.capacity` (a multiple of four); only the
        // first n, written in the first loop, are read. The padding fails every test, so each
        // picked index is an entry's, below `entries.count`.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: NearFences.capacity) { picked in
            var n = 0
            var i = 0
            while i < columns.count {
                let k = columns.column(4, i)
                if k[0] > limit { break }  // the rest are farther (see `NearFences`)
                let dx = columns.column(0, i) - fx
                let dy = columns.column(1, i) - fy
                let dz = columns.column(2, i) - fz
                let r = columns.column(3, i)
                let most = r + m
                let pass = (dx * dx + dy * dy + dz * dz .<= most * most) .& (r .>= leastF) .& (k .<= limits)
                for lane in 0..<4 {
                    picked[n] = Int32(truncatingIfNeeded: i &+ lane)
                    n &+= pass[lane] ? 1 : 0
                }
                i &+= 4
            }
            for t in 0..<n {
                let e = entries[Int(picked[t])]
                let most = e.slot.radius + margin + 1e-6
                let squared = FenceIndex.chordSquared(here, e.slot.x, e.slot.y, e.slot.z)
                guard squared <= most * most, e.slot.radius >= least else { continue }
                let d = index.distance(here, e.fence, chordSquared: squared)
                if d - e.slot.radius <= margin { body(e.fence, d, e.slot.radius, e.place) }
            }
        }
    }
}
