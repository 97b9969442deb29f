#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The within query: the fences whose edge is within a margin of a point (`forEachWithin`),
/// from one probe per cube around the point, or a walk down the octree for a wide margin.
extension FenceIndex {
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

    /// Calls `body(slot, k, place)` for every fence k (its slot at `place`) whose centre is
    /// within chord `reach(radius) + rho` of `point`: the fences a point within chord `rho` of
    /// this one can be inside of (`NearFences`). Each once, in no particular order.
    ///
    /// A level's cubes in the box around the point are probed only where they can hold a
    /// centre: within the query's reach (the box's corners leave some farther), and crossed by
    /// the Earth's surface, on which every centre lies (`SurfaceSlab`): of a box a few cubes a
    /// side, that leaves the third or so that the surface passes through. The tables are
    /// megabytes and a build comes every few dozen fixes, long after the last, so nearly every
    /// probe misses the cache three times over (its bucket, its cube, its slots); the probes
    /// of a level go through each step together, every bucket read before any is followed and
    /// every cube before any is scanned, so that those misses overlap instead of each waiting
    /// on the one before (a build took 9.5 µs, most of it waiting).
    /// - Complexity: the occupied cubes within `rho` and half a cube, and their fences, plus a
    ///   search down each level's octree.
    func forEachNear(_ point: Geodesy.Point, within rho: Double, _ body: (Slot, Int, Int) -> Void) {
        guard fenceCount > 0, rho >= 0, rho.isFinite else { return }
        let surface = SurfaceSlab(point)
        // SAFETY: `levels`' storage, lent for the closure (the array is a `let` of the index);
        // the scratch buffers hold `FenceIndex.boxLimit` entries, and a level's probes are at
        // most that many (a larger box descends instead).
        levels.withUnsafeBufferPointer { levels in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: FenceIndex.boxLimit) { keys in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: FenceIndex.boxLimit) { firsts in
                    withUnsafeTemporaryAllocation(of: Cube.self, capacity: FenceIndex.boxLimit) { found in
                        for level in levels {
                            @inline(__always) func scan(_ cube: Cube) {
                                for i in Int(cube.start)..<Int(cube.end) {
                                    let c = slots[i]
                                    let limit = FenceIndex.reach(c.radius) + rho
                                    if FenceIndex.chordSquared(point, c.x, c.y, c.z) <= limit * limit {
                                        body(c, Int(originals[i]), i)
                                    }
                                }
                            }
                            let cell = level.cell
                            let within = min(rho + level.reach + 1, 2 * FenceIndex.offset)
                            let (lo, hi) = FenceIndex.cubes(around: point, within: within, cell)
                            // In Int: cube numbers have 18 bits, so a wide box's product overflows UInt32.
                            let sides =
                                SIMD3(Int(hi.x), Int(hi.y), Int(hi.z)) &- SIMD3(Int(lo.x), Int(lo.y), Int(lo.z)) &+ 1
                            if sides.x * sides.y * sides.z > FenceIndex.boxLimit {
                                descend(level, around: point, within: within, scan)
                                continue
                            }
                            // The cubes to probe: within reach, and crossed by the surface.
                            let count = surface.slab(within: within, cell: cell).keys(
                                around: point, lo: lo, hi: hi, within: within * within, into: keys)
                            // Every probe's first bucket, read before any is followed; then every
                            // occupied cube, found before any is scanned, with its first slot's
                            // line asked for on the way (the scan reads it next).
                            let table = buckets + level.firstBucket
                            for t in 0..<count { firsts[t] = table[FenceIndex.bucket(keys[t], level.mask)] }
                            var occupied = 0
                            var touched = 0.0
                            for t in 0..<count where firsts[t] != 0 {
                                guard let cube = find(keys[t], level, first: firsts[t]) else { continue }
                                found[occupied] = cube
                                occupied += 1
                                touched += slots[Int(cube.start)].radius
                            }
                            // `touched` is never negative (radii are not, and a NaN radius,
                            // which only the public initializers could pass, makes it NaN,
                            // which passes too): the comparison keeps the reads above without
                            // changing what is scanned.
                            guard !(touched < 0) else { continue }
                            for t in 0..<occupied { scan(found[t]) }
                        }
                    }
                }
            }
        }
    }

    /// The most cubes `forEachNear` probes in a level's box; a larger box descends the octree.
    static let boxLimit = 216

    /// Where, around a point on the ellipsoid, the surface can be: the centres `forEachNear`
    /// looks for all lie on it (`Geodesy.Point` is at height 0). The ellipsoid is convex, so it
    /// lies below its tangent plane at the point; its normal curvature is at most a/b² (radius
    /// 6,335 km, the meridian's at the equator), so a ball of radius b²/a rolls freely inside it
    /// (Blaschke) and a surface point at chord s from the point is at most s²·a/(2b²) below the
    /// plane. A cube, whose heights above the plane span its centre's ± half its extent along
    /// the normal, holds no surface point within chord s unless that span meets the slab from
    /// −s²·a/(2b²) to 0; the slab is widened by half a metre each way, far beyond the rounding
    /// of the centres (micrometres) and of the heights.
    struct SurfaceSlab {
        let point: Geodesy.Point
        /// The unit normal: the gradient of the ellipsoid's equation, (x, y, z / (1 − e²)).
        let nx: Double, ny: Double, nz: Double

        init(_ point: Geodesy.Point) {
            self.point = point
            let (x, y, z) = (point.x, point.y, point.z / (1 - WGS84.e2))
            let norm = (x * x + y * y + z * z).squareRoot()
            (nx, ny, nz) = norm > 0 ? (x / norm, y / norm, z / norm) : (0, 0, 1)
        }

        /// The test for cubes of `cell` metres and centres within chord `within` of the point.
        func slab(within: Double, cell: Double) -> Slab {
            let half = cell / 2
            // The cube (i, j, l)'s centre less the point, per axis: n · cell − this.
            let base = half - FenceIndex.offset
            return Slab(
                nx: nx, ny: ny, nz: nz, cell: cell,
                h0: nx * (base - point.x) + ny * (base - point.y) + nz * (base - point.z),
                extent: half * (abs(nx) + abs(ny) + abs(nz)),
                below: within * within * WGS84.a / (2 * WGS84.b * WGS84.b) + 0.5, above: 0.5)
        }

        struct Slab {
            let nx: Double, ny: Double, nz: Double, cell: Double
            /// The height above the plane of cube (0, 0, 0)'s centre.
            let h0: Double
            let extent: Double
            let below: Double
            let above: Double

            /// Writes the keys of the cubes of the box `lo...hi` that may hold a surface point
            /// within `within` (a squared chord) of `point` and returns how many: every cube that
            /// passes both `crosses` and the block gap test (`blockGap(point, i, j, l, cell:
            /// cell, side: cell) <= within`), once, and now and then one that misses them by a
            /// hair (each range is widened past its rounding: a millionth of a cube along the
            /// slab, `ballRun`'s margin along the ball), which costs a probe and finds only
            /// fences the caller's own test then drops. The box is walked in columns along the
            /// axis the normal is most along, where the slab is thinnest, each column's run of
            /// cubes found from the two tests solved for that axis, so that the third or so of
            /// the box the surface crosses costs a store a cube and the rest nothing (testing
            /// each cube of the box cost a build about 1,800 of its 32,000 instructions more).
            /// At most the box's count of keys are written.
            // SAFETY: `keys` must have room for the box's count of cubes (`forEachNear`'s scratch
            // has `boxLimit`, and boxes larger than that descend instead): each cube of the box
            // is written at most once, at the count of those before it.
            @inline(__always)
            func keys(
                around point: Geodesy.Point, lo: (x: UInt32, y: UInt32, z: UInt32),
                hi: (x: UInt32, y: UInt32, z: UInt32), within limit: Double,
                into keys: UnsafeMutableBufferPointer<UInt64>
            ) -> Int {
                let p = SIMD3(point.x, point.y, point.z)
                let n = SIMD3(nx, ny, nz)
                let first = SIMD3(lo.x, lo.y, lo.z)
                let last = SIMD3(hi.x, hi.y, hi.z)
                let (ax, ay, az) = (Swift.abs(nx), Swift.abs(ny), Swift.abs(nz))
                // w: the column's axis (|n_w| ≥ 1/√3); u and v the other two.
                let w = az >= ax && az >= ay ? 2 : (ay >= ax ? 1 : 0)
                let u = (w + 1) % 3
                let v = (w + 2) % 3
                let (su, sv, sw) = (UInt64(u), UInt64(v), UInt64(w))
                // A cube's height above the plane is h0 + cell·(n · its numbers); the slab wants
                // it within [−below − extent, above + extent]: solved for the number along w.
                let perStep = 1 / (cell * n[w])
                let (low, high) = (-below - extent, above + extent)
                var count = 0
                for i in first[u]...last[u] {
                    let gu = FenceIndex.axisGap(p[u], i, cell: cell, side: cell)
                    guard gu <= limit else { continue }
                    let ku = FenceIndex.spread(i) << su
                    let hu = h0 + cell * n[u] * Double(i)
                    for j in first[v]...last[v] {
                        let g = gu + FenceIndex.axisGap(p[v], j, cell: cell, side: cell)
                        guard g <= limit else { continue }
                        let run = FenceIndex.ballRun(p[w], limit: limit, beyond: g, cell: cell)
                        var from = Swift.max(first[w], run.first)
                        var to = Swift.min(last[w], run.last)
                        // The slab along w, a millionth of a cube wider each way.
                        let h = hu + cell * n[v] * Double(j)
                        let (a, b) = ((low - h) * perStep, (high - h) * perStep)
                        let (s, e) = (Swift.min(a, b) - 1e-6, Swift.max(a, b) + 1e-6)
                        guard e >= Double(from), s <= Double(to) else { continue }
                        // from ≤ s ≤ e ≤ to where they cut: s and e are then at least 0 and
                        // below 2^18, and the conversions truncate (round down).
                        if s > Double(from) {
                            from = UInt32(s)
                            if Double(from) < s { from += 1 }
                        }
                        if e < Double(to) { to = UInt32(e) }
                        guard from <= to else { continue }
                        let kuv = ku | FenceIndex.spread(j) << sv
                        assert(count + Int(to - from) < keys.count, "Slab.keys: more cubes than room")
                        for l in from...to {
                            keys[count] = kuv | FenceIndex.spread(l) << sw
                            count &+= 1
                        }
                    }
                }
                return count
            }

            /// Whether cube (i, j, l) may hold a surface point within the chord: the slab's test
            /// for one cube, which `keys` solves for a whole column instead. No query calls it
            /// any more; it stays as the statement the slab's geometry is proved against and
            /// `keys` is checked against (`FenceIndexNearTests`).
            func crosses(_ i: UInt32, _ j: UInt32, _ l: UInt32) -> Bool {
                let h = h0 + cell * (nx * Double(i) + ny * Double(j) + nz * Double(l))
                return (h - extent <= above ? 1 : 0) & (h + extent >= -below ? 1 : 0) == 1
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
        forEachWithin(point, margin: margin, minRadius: minRadius) { k, d, _, _ in body(k, d) }
    }

    /// The same, with each fence's radius and place in the slots.
    func forEachWithin(
        _ point: Geodesy.Point, margin: Double, minRadius: Double = 0, _ body: (Int, Double, Double, Int) -> Void
    ) {
        guard fenceCount > 0, !margin.isNaN else { return }
        @inline(__always) func scan(_ cube: Cube) {
            for i in Int(cube.start)..<Int(cube.end) {
                let slot = slots[i]
                guard slot.radius >= minRadius else { break }  // the rest are smaller (see `init`)
                let k = Int(originals[i])
                if let d = distance(point, slot, k, within: margin) { body(k, d, slot.radius, i) }
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
        _ point: Geodesy.Point, _ i: UInt32, _ j: UInt32, _ l: UInt32, cell: Double, side: Double
    ) -> Double {
        axisGap(point.x, i, cell: cell, side: side) + axisGap(point.y, j, cell: cell, side: side)
            + axisGap(point.z, l, cell: cell, side: side)
    }

    /// The cubes along an axis, first to last, that a block gap test can keep for a point at
    /// `c` on that axis, when the other two axes' squared gaps sum to `g` (≤ `limit`): every
    /// cube m with g + axisGap(c, m) ≤ limit as rounded, and now and then one more. The sum can
    /// round down onto `limit` when the gap's square is below an ulp of it (a point a
    /// micrometre from a cube's face, on a column the ball just grazes), so the root is taken
    /// of 2^-50 of the limit more; the gap's own rounding is relative, covered by 1e-12 of it,
    /// and a micrometre is added for the cube numbers' rounding.
    @inline(__always)
    static func ballRun(_ c: Double, limit: Double, beyond g: Double, cell: Double) -> (first: UInt32, last: UInt32) {
        let r = (limit - g + limit * 0x1p-50).squareRoot() * (1 + 1e-12) + 1e-6
        return (cube(c - r, cell), cube(c + r, cell))
    }

    /// The squared gap along one axis between the coordinate `v` and the block of `side` metres
    /// from cube `n`'s start.
    @inline(__always)
    static func axisGap(_ v: Double, _ n: UInt32, cell: Double, side: Double) -> Double {
        let lo = Double(n) * cell - offset
        // The gap below the block, or above it, or none: at most one is positive (side ≥ 0),
        // taken with max rather than branches.
        let t = max(0, max(lo - v, v - lo - side))
        return t * t
    }
}
