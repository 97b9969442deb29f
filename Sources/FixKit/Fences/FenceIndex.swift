#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds the fences near a point without looking at the others, whatever their radii and
/// however far the point looks: the cost of a query follows the fences it finds, and the
/// memory the number of fences.
///
/// The fences are sorted into levels by radius. Level L is a grid of cubes of `baseCell`·2^L
/// metres in Earth-centred coordinates (ECEF), and holds the fences whose reach fits twice in
/// a cube; each fence is kept once, in the cube of its centre, so a point within a fence's
/// reach is in the block of 2 × 2 × 2 cubes around it (one cube a side, each way, from the
/// point ± half a cube): a fence of 2,000 km costs what one of 20 m does, and no cell size
/// follows a median that may not represent the others. Cubes in Earth-centred coordinates
/// have no poles or antimeridian to treat apart. The fences are stored in the order of their
/// level and their cube's Morton key, so a cube's fences are one run of that order, and each
/// level keeps its occupied cubes' keys ascending, so that any aligned block of 2^t cubes a
/// side is one run of keys (`MortonKeys.swift`): the levels are octrees without pointers,
/// which a large query or a nearest-first search descends, skipping what is empty; a hash
/// table per level finds one cube in a probe.
///
/// Distances are `Geodesy.distance`, the one the rule measures with. Under 50 km it is the
/// chord between the Earth-centred points, which the cubes bound exactly; farther it is
/// Andoyer–Lambert, within 0.2% of the geodesic (never shorter than the chord), so the chord
/// is at most `chordPerDistance` times it. Every bound below allows for that.
public final class FenceIndex {
    public let fences: [Fence]
    /// The fences' centres, prepared for distances.
    public let centres: [Geodesy.Point]
    /// The levels that hold fences, smallest cubes first. Trivial values: a query reads them
    /// without reference counting.
    private let levels: [Level]
    /// The index's storage, allocated once and freed in `deinit`: plain pointers, so that the
    /// query loop pays no reference counting, no exclusivity check and no copy-on-write check.
    /// Safe: only this class touches them, and never past `fenceCount`, `cubeTotal` or the
    /// buckets the levels hold.
    /// - `slots`: what a query reads of each fence, in the index's own order (see `init`);
    /// - `originals`: each slot's fence number in `fences`;
    /// - `cubes`: every level's occupied cubes, ascending by Morton key within a level;
    /// - `buckets`: every level's hash table from a cube's key to its place in `cubes` (plus
    ///   one; 0 is an empty bucket).
    // SAFETY: the four buffers below are allocated once in `init`, initialized there in full
    // (`fenceCount` slots and originals, `cubeTotal` cubes, every bucket), live as long as the
    // index, and are freed only in `deinit`; no pointer to them leaves the class.
    private let slots: UnsafeMutablePointer<Slot>
    private let originals: UnsafeMutablePointer<UInt32>
    private let cubes: UnsafeMutablePointer<Cube>
    private let buckets: UnsafeMutablePointer<UInt32>
    private let fenceCount: Int
    private let cubeTotal: Int

    struct Slot {
        var x: Double
        var y: Double
        var z: Double
        var radius: Double
    }

    /// An occupied cube: its Morton key and its fences, `slots[start..<end]`, largest radius
    /// first.
    struct Cube {
        var key: UInt64
        var start: UInt32
        var end: UInt32
    }

    deinit {
        // SAFETY: the buffers `init` allocated, freed once, when nothing can read them any more.
        // Their elements are trivial types: nothing to deinitialize.
        slots.deallocate()
        originals.deallocate()
        cubes.deallocate()
        buckets.deallocate()
    }

    /// At most 2^24 fences.
    public static let capacity = 1 << 24
    /// The cube side of level 0, metres.
    static let baseCell = 50.0
    /// ECEF coordinates are offset by this so that cube numbers are never negative.
    static let offset = 6_400_000.0
    /// chord ≤ distance · this (see the type's comment; 0.41% where 0.2% is needed).
    static let chordPerDistance = 1.0041
    /// How far (chord metres) a fence's centre can be from a point in its ball: its radius
    /// grown by more than `chordPerDistance`, and a metre more for rounding. Capped past the
    /// Earth's diameter (a fence that large is in reach of every point), so that no radius,
    /// however large, needs more than half a cube at its level.
    @inline(__always)
    static func reach(_ radius: Double) -> Double { min(radius * 1.005 + 1, 2.6e7) }

    /// One level: the cubes of `cell` metres holding fences with `reach(radius)` ≤ cell / 2.
    struct Level {
        let cell: Double
        let maxRadius: Double
        /// `reach(maxRadius)`: at most cell / 2.
        let reach: Double
        /// Its cubes: `cubes[firstCube..<endCube]`.
        let firstCube: Int
        let endCube: Int
        /// Its hash table: `buckets[firstBucket...firstBucket + mask]`, a power of two at least
        /// twice its cubes.
        let firstBucket: Int
        let mask: Int
    }

    /// The bucket of a cube key in a table of `mask + 1` buckets (Fibonacci hashing: nearby
    /// cubes, whose keys differ in their low bits, land far apart).
    @inline(__always)
    static func bucket(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    public init(_ fences: [Fence]) {
        precondition(fences.count <= FenceIndex.capacity, "FenceIndex holds at most 2^24 fences")
        self.fences = fences
        let n = fences.count
        fenceCount = n
        // Each fence's level, counted per level, so that each level's fences take their own
        // stretch of the index's order, in file order, to be sorted there by their cube's key.
        var centres: [Geodesy.Point] = []
        centres.reserveCapacity(n)
        var levelOf = [UInt8](repeating: 0, count: n)
        var levelStart = [Int](repeating: 0, count: FenceIndex.levelCount + 1)
        var maxRadius = [Double](repeating: -1, count: FenceIndex.levelCount)
        // SAFETY: `fences`' storage, lent for the closure only; k < n = fences.count.
        fences.withUnsafeBufferPointer { fs in
            for k in 0..<n {
                let radius = fs[k].radius  // not the whole Fence: that retains its id
                centres.append(Geodesy.Point(lat: fs[k].lat, lon: fs[k].lon))
                let level = FenceIndex.level(for: radius)
                levelOf[k] = UInt8(level)
                levelStart[level + 1] += 1
                maxRadius[level] = max(maxRadius[level], radius)
            }
        }
        for level in 0..<FenceIndex.levelCount { levelStart[level + 1] += levelStart[level] }
        self.centres = centres
        // Each level's stretch: its fences' cube keys and numbers, in file order.
        // SAFETY: scratch for the build, freed by the `defer` when `init` returns; every one of its
        // n entries is written below (each fence once, at its level's `fill`, which stays inside its
        // level's stretch of `levelStart`) before it is read.
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: max(1, n))
        let order = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, n))
        defer {
            keys.deallocate()
            order.deallocate()
        }
        var fill = levelStart
        // SAFETY: `centres`' storage, lent for the closure; k < n = centres.count.
        centres.withUnsafeBufferPointer { cs in
            for k in 0..<n {
                let level = Int(levelOf[k])
                let cell = FenceIndex.cellSize(level)
                let c = cs[k]
                let at = fill[level]
                fill[level] += 1
                keys[at] = FenceIndex.morton(
                    FenceIndex.cube(c.x, cell), FenceIndex.cube(c.y, cell), FenceIndex.cube(c.z, cell))
                order[at] = UInt32(k)
            }
        }
        levelOf = []
        // Sorted by key within each level (stable: a cube's fences stay in file order), the
        // slots filled in that order, and the runs of equal keys made cubes.
        // SAFETY: the index's own buffers (see the stored properties): entry e is initialized once,
        // below, as the sort of its level reaches it; every e in 0..<n is some level's.
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: max(1, n))
        let originals = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, n))
        self.slots = slots
        self.originals = originals
        var cubeList: [Cube] = []
        var built: [Level] = []
        var bucketCount = 0
        // SAFETY: both arrays' storage, lent for the closures; every index is a fence number k < n
        // read from `order`, and every pointer offset is inside the level's stretch first..<end of n.
        centres.withUnsafeBufferPointer { cs in
            fences.withUnsafeBufferPointer { fs in
                for level in 0..<FenceIndex.levelCount where levelStart[level] < levelStart[level + 1] {
                    let first = levelStart[level]
                    let end = levelStart[level + 1]
                    FenceIndex.radixSort(keys: keys + first, values: order + first, count: end - first)
                    let firstCube = cubeList.count
                    var m = first
                    while m < end {
                        let key = keys[m]
                        var e = m
                        while e < end, keys[e] == key {
                            let k = Int(order[e])
                            let c = cs[k]
                            (slots + e).initialize(to: Slot(x: c.x, y: c.y, z: c.z, radius: fs[k].radius))
                            (originals + e).initialize(to: UInt32(k))
                            e += 1
                        }
                        // Largest radius first (stable: equal radii stay in file order), so that
                        // a query for fences of some least radius stops at the first smaller.
                        for a in (m + 1)..<max(m + 1, e) {
                            let slot = slots[a]
                            let original = originals[a]
                            var b = a
                            while b > m, slots[b - 1].radius < slot.radius {
                                slots[b] = slots[b - 1]
                                originals[b] = originals[b - 1]
                                b -= 1
                            }
                            slots[b] = slot
                            originals[b] = original
                        }
                        cubeList.append(Cube(key: key, start: UInt32(m), end: UInt32(e)))
                        m = e
                    }
                    let count = cubeList.count - firstCube
                    var size = 2
                    while size < 2 * count { size <<= 1 }
                    built.append(
                        Level(
                            cell: FenceIndex.cellSize(level), maxRadius: maxRadius[level],
                            reach: FenceIndex.reach(maxRadius[level]), firstCube: firstCube,
                            endCube: cubeList.count, firstBucket: bucketCount, mask: size - 1))
                    bucketCount += size
                }
            }
        }
        cubeTotal = cubeList.count
        // SAFETY: the index's cubes, one for each of `cubeList`, all initialized here.
        let cubes = UnsafeMutablePointer<Cube>.allocate(capacity: max(1, cubeList.count))
        for (c, cube) in cubeList.enumerated() { (cubes + c).initialize(to: cube) }
        cubeList = []
        self.cubes = cubes
        // SAFETY: every level's hash table, each `mask + 1` entries from its `firstBucket`, all
        // initialized to 0 (empty) at once; a probe is masked, so it stays in its level's table, and
        // each table has at least twice as many entries as cubes, so a free bucket is always found.
        let buckets = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, bucketCount))
        buckets.initialize(repeating: 0, count: max(1, bucketCount))
        self.buckets = buckets
        for level in built {
            let table = buckets + level.firstBucket
            for c in level.firstCube..<level.endCube {
                var h = FenceIndex.bucket(cubes[c].key, level.mask)
                while table[h] != 0 { h = (h + 1) & level.mask }
                table[h] = UInt32(c + 1)
            }
        }
        levels = built
    }

    /// The level of a fence: the smallest whose cubes hold its reach twice. With the reach
    /// capped at 26,000 km, the last is level 20 (52,429 km cubes).
    static func level(for radius: Double) -> Int {
        var level = 0
        while level < levelCount - 1, 2 * reach(radius) > cellSize(level) { level += 1 }
        return level
    }

    static let levelCount = 21

    static func cellSize(_ level: Int) -> Double { baseCell * Double(1 << level) }

    /// The cube number of an ECEF coordinate, clamped to the 18 bits a key holds.
    @inline(__always)
    static func cube(_ v: Double, _ cell: Double) -> UInt32 {
        let c = ((v + offset) / cell).rounded(.down)
        return UInt32(min(262_143, max(0, c)))
    }

    /// The cube of `level` with this key, if it holds fences: one probe of its hash table, as a
    /// rule.
    @inline(__always)
    private func find(_ key: UInt64, _ level: Level) -> Cube? {
        let table = buckets + level.firstBucket
        var h = FenceIndex.bucket(key, level.mask)
        while true {
            let c = table[h]
            if c == 0 { return nil }
            let cube = cubes[Int(c) - 1]
            if cube.key == key { return cube }
            h = (h + 1) & level.mask
        }
    }

    /// The first of `cubes[from..<to]` whose key is at least `key`.
    @inline(__always)
    private func lowerBound(_ key: UInt64, _ from: Int, _ to: Int) -> Int {
        var lo = from
        var hi = to
        while lo < hi {
            let mid = (lo + hi) >> 1
            if cubes[mid].key < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// `Geodesy.distance(point, centre)` of slot `i`, from the slot's copy of the centre's
    /// coordinates.
    @inline(__always)
    private func distance(_ point: Geodesy.Point, _ i: Int) -> Double {
        let c = slots[i]
        let dx = point.x - c.x
        let dy = point.y - c.y
        let dz = point.z - c.z
        let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
        if chord < 50_000 { return chord }
        return Geodesy.distance(point, centres[Int(originals[i])])
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
                let d = distance(point, i)
                if d - r <= margin { body(Int(originals[i]), d) }
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
                    let h = level.reach
                    let x0 = FenceIndex.cube(point.x - h, cell)
                    let x1 = FenceIndex.cube(point.x + h, cell)
                    let y0 = FenceIndex.cube(point.y - h, cell)
                    let y1 = FenceIndex.cube(point.y + h, cell)
                    let z0 = FenceIndex.cube(point.z - h, cell)
                    let z1 = FenceIndex.cube(point.z + h, cell)
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
    private func descend(
        _ level: Level, around point: Geodesy.Point, within reach: Double, _ visit: (Cube) -> Void
    ) {
        let cell = level.cell
        let lo = (
            FenceIndex.cube(point.x - reach, cell), FenceIndex.cube(point.y - reach, cell),
            FenceIndex.cube(point.z - reach, cell)
        )
        let hi = (
            FenceIndex.cube(point.x + reach, cell), FenceIndex.cube(point.y + reach, cell),
            FenceIndex.cube(point.z + reach, cell)
        )
        let a = FenceIndex.morton(lo.0, lo.1, lo.2)
        let b = FenceIndex.morton(hi.0, hi.1, hi.2)
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
    private static func blockGap(
        _ point: Geodesy.Point, _ i: UInt32, _ j: UInt32, _ l: UInt32, cell: Double, side: Double
    )
        -> Double
    {
        func axis(_ v: Double, _ n: UInt32) -> Double {
            let lo = Double(n) * cell - offset
            let t = v < lo ? lo - v : (v > lo + side ? v - lo - side : 0)
            return t * t
        }
        return axis(point.x, i) + axis(point.y, j) + axis(point.z, l)
    }

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
        guard count > 0, !fences.isEmpty else { return [] }
        let point = Geodesy.Point(lat: lat, lon: lon)
        if count >= fences.count {
            return fences.indices.map { ($0, edgeDistance($0, point)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
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
                            bound: edgeDistance(k, point), isFence: true, level: 0, shift: 0, prefix: UInt64(k),
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
                    // A fence kept here has its centre in the block, and chord ≤
                    // chordPerDistance · d: its edge is at least this.
                    let bound = gap / FenceIndex.chordPerDistance - level.maxRadius
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

    @inline(__always)
    func edgeDistance(_ k: Int, _ point: Geodesy.Point) -> Double {
        Geodesy.distance(centres[k], point) - fences[k].radius
    }

    public func edgeDistance(_ k: Int, _ lat: Double, _ lon: Double) -> Double {
        edgeDistance(k, Geodesy.Point(lat: lat, lon: lon))
    }

    /// How many occupied cubes the levels hold (each fence is kept once).
    var cubeCount: Int { cubeTotal }
}
