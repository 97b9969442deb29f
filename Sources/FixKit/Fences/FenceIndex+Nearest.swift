#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The nearest query: the fences with the nearest edges, best first over the octrees (`--limit`).
extension FenceIndex {
    /// The `count` fences with the nearest edges (distance to the centre minus the radius, so
    /// negative inside), nearest first and, at equal edges, in file order, with their edge
    /// distances.
    ///
    /// Best first over every level's octree at once: a heap of blocks by the least edge a fence
    /// kept in them can have, and of fences by their edge; a fence comes out once no block
    /// left can hold a nearer one.
    /// - Complexity: about the blocks and fences nearer than the `count`-th edge, times a log;
    ///   not a search radius grown until it holds enough, which far from every fence costs
    ///   all of them.
    public func nearestEdges(lat: Double, lon: Double, count: Int) -> [(index: Int, edge: Double)] {
        guard count > 0, !table.isEmpty else { return [] }
        let point = Geodesy.Point(lat: lat, lon: lon)
        if count >= table.count {
            // Every fence, from its slot (no centre worked out again).
            return (0..<fenceCount).map { i -> (index: Int, edge: Double) in
                let k = Int(originals[i])
                return (k, edgeDistance(k, slots[i], point))
            }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        }
        var heap = NearestHeap()
        for (n, level) in levels.enumerated() {
            heap.push(
                .init(
                    bound: -level.maxRadius, isFence: false, level: Int32(n), shift: 54, prefix: 0,
                    from: level.firstCube, to: level.endCube))
        }
        var found: [(index: Int, edge: Double)] = []
        while found.count < count, let e = heap.pop() {
            if e.isFence {
                found.append((Int(e.prefix), e.bound))
                continue
            }
            let level = levels[Int(e.level)]
            let cell = level.cell
            if e.shift == 0 || e.to - e.from == 1 {
                // A cube: its fences, by their exact edges.
                let cube = cubes[e.from]
                for i in Int(cube.start)..<Int(cube.end) {
                    let k = Int(originals[i])
                    heap.push(
                        .init(
                            bound: edgeDistance(k, slots[i], point), isFence: true, level: 0, shift: 0,
                            prefix: UInt64(k),
                            from: 0, to: 0))
                }
                continue
            }
            let childShift = e.shift - 3
            var start = e.from
            for c in UInt64(0)..<8 {
                let end = c == 7 ? e.to : lowerBound((e.prefix << 3 | (c + 1)) << childShift, start, e.to)
                if start < end {
                    let p = e.prefix << 3 | c
                    var i: UInt32
                    var j: UInt32
                    var l: UInt32
                    var side: Double
                    if end - start == 1 {
                        // One cube: its own bound, and it is opened as a cube.
                        let k = cubes[start].key
                        (i, j, l) = (FenceIndex.compact(k), FenceIndex.compact(k >> 1), FenceIndex.compact(k >> 2))
                        side = cell
                    } else {
                        let base = p << childShift
                        (i, j, l) = (
                            FenceIndex.compact(base), FenceIndex.compact(base >> 1), FenceIndex.compact(base >> 2)
                        )
                        side = cell * Double(UInt64(1) << (childShift / 3))
                    }
                    let gap = FenceIndex.blockGap(point, i, j, l, cell: cell, side: side).squareRoot()
                    // A fence kept here has its centre in the block, at a chord of at least
                    // `gap`: its edge is at least this.
                    let bound = FenceIndex.leastDistance(chord: gap) - level.maxRadius
                    heap.push(
                        .init(
                            bound: bound, isFence: false, level: e.level, shift: childShift, prefix: p, from: start,
                            to: end))
                }
                start = end
            }
        }
        return found
    }

    /// A distance (`Geodesy.distance`) that two points of the ellipsoid at least `chord` apart
    /// never fall short of: the bound of the nearest search's blocks.
    ///
    /// Up to 50 km the distance is the chord. Beyond, it is Andoyer–Lambert's
    /// a·(σ − f/2·(X + Y)), σ the angle between the points' parametric (reduced-latitude)
    /// directions u, whose positions are diag(a, a, b)·u, so the chord is at most
    /// a·|u₁ − u₂| = 2a·sin(σ/2), and σ ≥ 2·asin(chord/2a). X = (σ − sin σ)·wX and
    /// Y = (σ + sin σ)·wY, where wY = sin²p cos²q / sin²(σ/2) and wX the same with p and q's
    /// sines and cosines swapped over cos²(σ/2); both are weighted harmonic means (of cos²p
    /// and sin²q, and of their complements, with the same weights), which are concave and
    /// homogeneous, so wX + wY ≤ 1 and X + Y ≤ σ + sin σ ≤ 2σ: the distance is at least
    /// a·σ·(1 − f). That is under the chord below 50 km, and above chord / 1.0041 (the bound
    /// it replaces) everywhere, as a·σ ≥ chord and 1 − f > 1 / 1.0041; at 5,000 km it falls
    /// 0.4% short of the distance, where the chord falls 3% short and, from a region's fences,
    /// no block could be passed over. The factor 1 − 1e-9 is for rounding. `DistanceTests`
    /// checks it on pairs all over the globe.
    static func leastDistance(chord: Double) -> Double {
        WGS84.a * 2 * asin(min(1, chord / (2 * WGS84.a))) * (1 - WGS84.f) * (1 - 1e-9)
    }

    @inline(__always)
    func edgeDistance(_ k: Int, _ point: Geodesy.Point) -> Double {
        Geodesy.distance(centre(k), point) - table.radius[k]
    }

    /// The same from k's slot: `Geodesy.distance(centre, point)` without the centre's
    /// trigonometry (the chord's squares do not depend on the order; the far formula does, and
    /// is given the centre first as there).
    @inline(__always)
    func edgeDistance(_ k: Int, _ c: Slot, _ point: Geodesy.Point) -> Double {
        let d = Geodesy.distance(
            chordSquared: FenceIndex.chordSquared(point, c.x, c.y, c.z), lat1: table.lat[k], lon1: table.lon[k],
            lat2: point.lat, lon2: point.lon)
        return d - c.radius
    }

    public func edgeDistance(_ k: Int, _ lat: Double, _ lon: Double) -> Double {
        edgeDistance(k, Geodesy.Point(lat: lat, lon: lon))
    }
}
