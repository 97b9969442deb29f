#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The within query: the fences whose edge is within a margin of a point (`forEachWithin`),
/// from one probe per cube around the point, or a walk down the octree for a wide margin.
extension FenceIndex {
    /// `Geodesy.distance(point, centre)` of fence `k`, from a copy of its slot: the chord under
    /// 50 km, as `Geodesy.distance` computes it, and `Geodesy.distance` itself farther.
    @inline(__always)
    func distance(_ point: Geodesy.Point, _ c: Slot, _ k: Int) -> Double {
        distance(point, k, chordSquared: FenceIndex.chordSquared(point, c.x, c.y, c.z))
    }

    @inline(__always)
    private func distance(_ point: Geodesy.Point, _ k: Int, chordSquared: Double) -> Double {
        let chord = chordSquared.squareRoot()
        if chord < 50_000 { return chord }
        return Geodesy.distance(point, centres[k])
    }

    /// `distance(point, c, k)` where d − c.radius ≤ `margin`, else nil: the test every query
    /// applies to the fences it looks at. Most fail it (97% of those on a noisy fix's list),
    /// and are ruled out by the squared chord, with no square root: the distance is never
    /// shorter than the chord, so d − R ≤ m needs chord ≤ R + m; the micrometre more is far
    /// above the rounding of the square root and the subtraction (1e-9 m at the Earth's size).
    @inline(__always)
    func distance(_ point: Geodesy.Point, _ c: Slot, _ k: Int, within margin: Double) -> Double? {
        let most = c.radius + margin + 1e-6
        let squared = FenceIndex.chordSquared(point, c.x, c.y, c.z)
        guard most >= 0, squared <= most * most else { return nil }
        let d = distance(point, k, chordSquared: squared)
        return d - c.radius <= margin ? d : nil
    }

    /// Calls `body(slot, k)` for every fence k whose centre is within chord `reach(radius) + rho`
    /// of `point` (and possibly a few more): the fences a point within chord `rho` of this one
    /// can be inside of (`NearFences`). Each once, in no particular order.
    /// - Complexity: the occupied cubes within `rho` and half a cube, and their fences, plus a
    ///   search down each level's octree.
    func forEachNear(_ point: Geodesy.Point, within rho: Double, _ body: (Slot, Int) -> Void) {
        guard fenceCount > 0, rho >= 0, rho.isFinite else { return }
        // SAFETY: `levels`' storage, lent for the closure (the array is a `let` of the index).
        levels.withUnsafeBufferPointer { levels in
            for level in levels {
                @inline(__always) func scan(_ cube: Cube) {
                    for i in Int(cube.start)..<Int(cube.end) {
                        let c = slots[i]
                        let limit = FenceIndex.reach(c.radius) + rho
                        if FenceIndex.chordSquared(point, c.x, c.y, c.z) <= limit * limit { body(c, Int(originals[i])) }
                    }
                }
                let cell = level.cell
                let within = min(rho + level.reach + 1, 2 * FenceIndex.offset)
                let (lo, hi) = FenceIndex.cubes(around: point, within: within, cell)
                let (x0, y0, z0, x1, y1, z1) = (lo.x, lo.y, lo.z, hi.x, hi.y, hi.z)
                if (x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1) > 216 {
                    descend(level, around: point, within: within, scan)
                    continue
                }
                // A few cubes an axis: a hash probe each, but for those the box's corners leave
                // farther than `within`.
                let limit = within * within
                for i in x0...x1 {
                    for j in y0...y1 {
                        let gap = FenceIndex.blockGap(point, i, j, z0, cell: cell, side: cell, axes: 2)
                        guard gap <= limit else { continue }
                        for l in z0...z1 {
                            if FenceIndex.blockGap(point, i, j, l, cell: cell, side: cell) <= limit,
                                let cube = find(FenceIndex.morton(i, j, l), level)
                            {
                                scan(cube)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Calls `body(k, d)` for every fence k with `d − radius ≤ margin`, where d is
    /// `Geodesy.distance` from `point` to its centre, and with `radius ≥ minRadius`; each once,
    /// in no particular order.
    /// - Complexity: for a margin ≤ 0, at most 8 hash probes per level and the fences of those
    ///   cubes; otherwise proportional to the occupied cubes within the margin and half a cube,
    ///   plus a search down each level's octree.
    public func forEachWithin(
        _ point: Geodesy.Point, margin: Double, minRadius: Double = 0, _ body: (Int, Double) -> Void
    ) {
        guard fenceCount > 0, !margin.isNaN else { return }
        @inline(__always) func scan(_ cube: Cube) {
            for i in Int(cube.start)..<Int(cube.end) {
                let r = slots[i].radius
                guard r >= minRadius else { break }  // the rest are smaller (see `init`)
                let k = Int(originals[i])
                if let d = distance(point, slots[i], k, within: margin) { body(k, d) }
            }
        }
        // SAFETY: `levels`' storage, lent for the closure (the array is a `let` of the index).
        levels.withUnsafeBufferPointer { levels in
            for level in levels where level.maxRadius >= minRadius && level.maxRadius + margin >= 0 {
                let cell = level.cell
                if margin <= 0 {
                    // d ≤ R: the centre is within reach(R) ≤ cell / 2 of the point on each axis,
                    // so in one of the (at most) 2 × 2 × 2 cubes that span the point ± cell / 2.
                    // Within the level's largest reach, which may be well under half a cube.
                    let (lo, hi) = FenceIndex.cubes(around: point, within: level.reach, cell)
                    let (x0, y0, z0, x1, y1, z1) = (lo.x, lo.y, lo.z, hi.x, hi.y, hi.z)
                    if x1 - x0 <= 1, y1 - y0 <= 1, z1 - z0 <= 1 {
                        // The usual case, one or two cubes an axis: each axis's keys spread once.
                        let xs = (FenceIndex.spread(x0), FenceIndex.spread(x1))
                        let ys = (FenceIndex.spread(y0) << 1, FenceIndex.spread(y1) << 1)
                        let zs = (FenceIndex.spread(z0) << 2, FenceIndex.spread(z1) << 2)
                        for x in 0...(x1 - x0) {
                            let kx = x == 0 ? xs.0 : xs.1
                            for y in 0...(y1 - y0) {
                                let kxy = kx | (y == 0 ? ys.0 : ys.1)
                                for z in 0...(z1 - z0) {
                                    if let cube = find(kxy | (z == 0 ? zs.0 : zs.1), level) { scan(cube) }
                                }
                            }
                        }
                    } else {
                        // Rounding at a cube's edge can make it three.
                        for i in x0...x1 {
                            for j in y0...y1 {
                                for l in z0...z1 {
                                    if let cube = find(FenceIndex.morton(i, j, l), level) { scan(cube) }
                                }
                            }
                        }
                    }
                    continue
                }
                // A fence within the margin has its centre within chord reach(R) + this of the
                // point, and reach(R) ≤ cell / 2.
                let reach = min(margin * FenceIndex.chordPerDistance + 1, 2 * FenceIndex.offset) + cell / 2
                descend(level, around: point, within: reach, scan)
            }
        }
    }

    /// Visits every occupied cube of `level` within `reach` (chord metres) of `point`: from the
    /// smallest aligned block that holds the query's bounding box, down the Morton runs, each
    /// block's run found by binary search within its parent's.
    func descend(
        _ level: Level, around point: Geodesy.Point, within reach: Double, _ visit: (Cube) -> Void
    ) {
        let cell = level.cell
        let (lo, hi) = FenceIndex.cubes(around: point, within: reach, cell)
        let a = FenceIndex.morton(lo.x, lo.y, lo.z)
        let b = FenceIndex.morton(hi.x, hi.y, hi.z)
        var shift: UInt64 = 0
        while shift < 54, a >> shift != b >> shift { shift += 3 }
        let prefix = a >> shift
        let first = lowerBound(prefix << shift, level.firstCube, level.endCube)
        let last = shift >= 54 ? level.endCube : lowerBound((prefix + 1) << shift, first, level.endCube)
        let limit = reach * reach
        // (prefix, shift, first, last): a block and its run of cubes.
        var stack: [(UInt64, UInt64, Int, Int)] = [(prefix, shift, first, last)]
        while let (p, s, from, to) = stack.popLast() {
            guard from < to else { continue }
            if s == 0 {
                visit(cubes[from])
                continue
            }
            let side = cell * Double(UInt64(1) << (s / 3))
            let base = p << s
            let (i, j, l) = (FenceIndex.compact(base), FenceIndex.compact(base >> 1), FenceIndex.compact(base >> 2))
            if FenceIndex.blockGap(point, i, j, l, cell: cell, side: side) > limit { continue }
            if to - from == 1 {
                // One cube left in the block: test it alone rather than split eight times.
                let k = cubes[from].key
                let (ci, cj, cl) = (FenceIndex.compact(k), FenceIndex.compact(k >> 1), FenceIndex.compact(k >> 2))
                if FenceIndex.blockGap(point, ci, cj, cl, cell: cell, side: cell) <= limit { visit(cubes[from]) }
                continue
            }
            let childShift = s - 3
            var start = from
            for c in UInt64(0)..<8 {
                let end = c == 7 ? to : lowerBound((p << 3 | (c + 1)) << childShift, start, to)
                if start < end { stack.append((p << 3 | c, childShift, start, end)) }
                start = end
            }
        }
    }

    /// The squared chord distance from `point` to the block of `side` metres whose first cube
    /// is (i, j, l).
    @inline(__always)
    static func blockGap(
        _ point: Geodesy.Point, _ i: UInt32, _ j: UInt32, _ l: UInt32, cell: Double, side: Double, axes: Int = 3
    )
        -> Double
    {
        func axis(_ v: Double, _ n: UInt32) -> Double {
            let lo = Double(n) * cell - offset
            let t = v < lo ? lo - v : (v > lo + side ? v - lo - side : 0)
            return t * t
        }
        let xy = axis(point.x, i) + axis(point.y, j)
        return axes == 2 ? xy : xy + axis(point.z, l)
    }
}
