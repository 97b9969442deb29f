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
/// metres in Earth-centred coordinates (ECEF), and holds the fences whose radius fits twice in
/// a cube, so each fence is entered in the at most 8 cubes its ball touches: a fence of
/// 2,000 km costs what one of 20 m does, and no cell size follows a median that may not
/// represent the others. Cubes in Earth-centred coordinates have no poles or antimeridian to
/// treat apart. Each level keeps its occupied cubes' Morton keys ascending, so that any
/// aligned block of 2^t cubes a side is one run of keys (`MortonKeys.swift`): the levels are
/// octrees without pointers, which a large query or a nearest-first search descends,
/// skipping what is empty.
///
/// Distances are `Geodesy.distance`, the one the rule measures with. Under 50 km it is the
/// chord between the Earth-centred points, which the cubes bound exactly; farther it is
/// Andoyer–Lambert, within 0.2% of the geodesic (never shorter than the chord), so the chord
/// is at most `chordPerDistance` times it. Every bound below allows for that.
public final class FenceIndex {
    public let fences: [Fence]
    /// The fences' centres, prepared for distances.
    public let centres: [Geodesy.Point]
    private let levels: [Level]
    /// The fences in the index's own order (see `init`), and each one's number in `fences`.
    private let slots: [Slot]
    private let originals: [Int32]

    struct Slot {
        var x: Double
        var y: Double
        var z: Double
        var radius: Double
    }
    /// Per-fence stamp of the last query that reported it, to report each fence once (a fence
    /// sits in up to 8 cubes). Behind a pointer, as the query loop's hottest store: a class's
    /// stored array would pay a dynamic exclusivity check on each. Safe: only this class
    /// touches it, one query at a time.
    // SAFETY: allocated and initialised for `max(1, fences.count)` stamps in `init`, freed in
    // `deinit`: valid as long as the index; indexed only by fence numbers below `fences.count`.
    private let stamps: UnsafeMutablePointer<UInt32>
    private var stamp: UInt32 = 0

    deinit { stamps.deallocate() }

    /// At most 2^24 fences.
    public static let capacity = 1 << 24
    /// The cube side of level 0, metres.
    static let baseCell = 50.0
    /// ECEF coordinates are offset by this so that cube numbers are never negative.
    static let offset = 6_400_000.0
    /// chord ≤ distance · this (see the type's comment; 0.41% where 0.2% is needed).
    static let chordPerDistance = 1.0041
    /// A fence is entered in the cubes within this of its centre (chord metres): its radius
    /// grown by more than `chordPerDistance`, and a metre more for rounding.
    /// Capped past the Earth's diameter (a fence that large is in reach of every point), so that
    /// no radius, however large, spans more than one cube a side at its level.
    @inline(__always)
    static func reach(_ radius: Double) -> Double { min(radius * 1.005 + 1, 2.6e7) }

    /// One level: the cubes of `cell` metres holding fences with `reach(radius)` ≤ cell / 2.
    struct Level {
        let cell: Double
        let maxRadius: Double
        /// The occupied cubes' Morton keys, ascending; `starts` has one more entry (the end).
        let keys: [UInt64]
        let starts: [Int32]
        let members: [Int32]
    }

    public init(_ fences: [Fence]) {
        precondition(fences.count <= FenceIndex.capacity, "FenceIndex holds at most 2^24 fences")
        self.fences = fences
        centres = fences.map { Geodesy.Point(lat: $0.lat, lon: $0.lon) }
        stamps = .allocate(capacity: max(1, fences.count))
        stamps.initialize(repeating: 0, count: max(1, fences.count))
        // Fences are numbered anew in the order of their level and of their centre's cube's
        // Morton key, so that the fences of one cube are neighbours in memory; `slots` holds, in
        // that order, what a query reads of each: the Earth-centred centre and the radius.
        let n = fences.count
        var order = [UInt64](repeating: 0, count: n)
        var maxRadius = [Double](repeating: -1, count: FenceIndex.levelCount)
        // What the second pass reads of each fence, in file order: read in sorted order, one
        // cache line a fence rather than three (the Fence, its centre, its level).
        var byOriginal: [Slot] = []
        byOriginal.reserveCapacity(n)
        for k in fences.indices {
            let radius = fences[k].radius  // not the whole Fence: that retains its id
            let level = FenceIndex.level(for: radius)
            maxRadius[level] = max(maxRadius[level], radius)
            let cell = FenceIndex.cellSize(level)
            let c = centres[k]
            byOriginal.append(Slot(x: c.x, y: c.y, z: c.z, radius: radius))
            order[k] =
                UInt64(level) << 54
                | FenceIndex.morton(FenceIndex.cube(c.x, cell), FenceIndex.cube(c.y, cell), FenceIndex.cube(c.z, cell))
        }
        var originals = (0..<n).map { UInt32($0) }
        FenceIndex.radixSort(keys: &order, values: &originals)
        var slots: [Slot] = []
        slots.reserveCapacity(n)
        // The sorted fences come level by level. Each level's (cube Morton key, slot) pairs,
        // sorted by key and grouped into cubes; the slots are entered in order, and the sort is
        // stable, so a cube's members ascend.
        var built: [Level] = []
        var first = 0
        while first < n {
            let level = Int(order[first] >> 54)
            var end = first + 1
            while end < n, Int(order[end] >> 54) == level { end += 1 }
            let cell = FenceIndex.cellSize(level)
            var keys: [UInt64] = []
            var values: [UInt32] = []
            keys.reserveCapacity(4 * (end - first))
            values.reserveCapacity(4 * (end - first))
            for slot in first..<end {
                let c = byOriginal[Int(originals[slot])]
                let r = FenceIndex.reach(c.radius)
                slots.append(c)
                let lo = (
                    FenceIndex.cube(c.x - r, cell), FenceIndex.cube(c.y - r, cell), FenceIndex.cube(c.z - r, cell)
                )
                let hi = (
                    FenceIndex.cube(c.x + r, cell), FenceIndex.cube(c.y + r, cell), FenceIndex.cube(c.z + r, cell)
                )
                for i in lo.0...hi.0 {
                    let gi = FenceIndex.gap(c.x, i, cell)
                    for j in lo.1...hi.1 {
                        let gj = gi + FenceIndex.gap(c.y, j, cell)
                        for l in lo.2...hi.2 {
                            // Only the cubes the ball reaches (at most 8, as r ≤ cell / 2).
                            guard gj + FenceIndex.gap(c.z, l, cell) <= r * r else { continue }
                            keys.append(FenceIndex.morton(i, j, l))
                            values.append(UInt32(slot))
                        }
                    }
                }
            }
            FenceIndex.radixSort(keys: &keys, values: &values)
            var cubeKeys: [UInt64] = []
            var cubeStarts: [Int32] = []
            for (m, key) in keys.enumerated() where m == 0 || key != keys[m - 1] {
                cubeKeys.append(key)
                cubeStarts.append(Int32(m))
            }
            cubeStarts.append(Int32(keys.count))
            built.append(
                Level(
                    cell: cell, maxRadius: maxRadius[level], keys: cubeKeys, starts: cubeStarts,
                    members: values.map { Int32(bitPattern: $0) }))
            first = end
        }
        self.slots = slots
        self.originals = originals.map { Int32(bitPattern: $0) }
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

    /// The squared distance along one axis from `v` to cube `i`.
    @inline(__always)
    static func gap(_ v: Double, _ i: UInt32, _ cell: Double) -> Double {
        let lo = Double(i) * cell - offset
        let t = v < lo ? lo - v : (v > lo + cell ? v - lo - cell : 0)
        return t * t
    }

    /// The position of `key` in `keys`, if that cube holds fences.
    // SAFETY: `keys` is a level's key array, lent by the caller for the call; indices stay below
    // its count.
    @inline(__always)
    private static func find(_ key: UInt64, in keys: UnsafeBufferPointer<UInt64>) -> Int? {
        let i = lowerBound(key, keys, 0, keys.count)
        return i < keys.count && keys[i] == key ? i : nil
    }

    // SAFETY: as `find`: `from..<to` lies inside `keys` (callers pass sub-ranges of it).
    @inline(__always)
    private static func lowerBound(_ key: UInt64, _ keys: UnsafeBufferPointer<UInt64>, _ from: Int, _ to: Int) -> Int {
        var lo = from
        var hi = to
        while lo < hi {
            let mid = (lo + hi) >> 1
            if keys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private func nextStamp() -> UInt32 {
        stamp &+= 1
        if stamp == 0 {
            stamps.update(repeating: 0, count: max(1, fences.count))
            stamp = 1
        }
        return stamp
    }

    /// Calls `body(k, d)` for every fence k with `d − radius ≤ margin`, where d is
    /// `Geodesy.distance` from `point` to its centre, and with `radius ≥ minRadius`; each once,
    /// in no particular order. A margin of 0 or less looks in one cube per level.
    /// - Complexity: a binary search per level and the members of one cube for a margin ≤ 0;
    ///   otherwise proportional to the occupied cubes within the margin, plus a search down
    ///   each level's octree.
    public func forEachWithin(
        _ point: Geodesy.Point, margin: Double, minRadius: Double = 0, _ body: (Int, Double) -> Void
    ) {
        guard !fences.isEmpty, !margin.isNaN else { return }
        let current = margin > 0 ? nextStamp() : 0
        // SAFETY: the index's arrays, lent for the nested closures of this one query and not
        // changed meanwhile (the index is not mutated by a query but for `stamps`, which is
        // separate memory); every index comes from the index's own tables, so it is inside them.
        slots.withUnsafeBufferPointer { slots in
            // SAFETY: as above.
            originals.withUnsafeBufferPointer { originals in
                // Geodesy.distance(point, centre), from the slot's copy of the centre's coordinates.
                @inline(__always) func distance(_ i: Int) -> Double {
                    let c = slots[i]
                    let dx = point.x - c.x
                    let dy = point.y - c.y
                    let dz = point.z - c.z
                    let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
                    if chord < 50_000 { return chord }
                    return Geodesy.distance(point, centres[Int(originals[i])])
                }
                for level in levels where level.maxRadius >= minRadius && level.maxRadius + margin >= 0 {
                    // SAFETY: as above: a level's arrays, lent for this query only.
                    level.keys.withUnsafeBufferPointer { keys in
                        // SAFETY: as above.
                        level.starts.withUnsafeBufferPointer { starts in
                            // SAFETY: as above.
                            level.members.withUnsafeBufferPointer { members in
                                let cell = level.cell
                                if margin <= 0 {
                                    // d ≤ R: the point is in the fence's ball, so in a cube it was entered
                                    // in; and in one cube, a fence is met once.
                                    let key = FenceIndex.morton(
                                        FenceIndex.cube(point.x, cell), FenceIndex.cube(point.y, cell),
                                        FenceIndex.cube(point.z, cell))
                                    guard let cube = FenceIndex.find(key, in: keys) else { return }
                                    for m in Int(starts[cube])..<Int(starts[cube + 1]) {
                                        let i = Int(members[m])
                                        let r = slots[i].radius
                                        guard r >= minRadius else { continue }
                                        let d = distance(i)
                                        if d - r <= margin { body(Int(originals[i]), d) }
                                    }
                                    return
                                }
                                // A fence within the margin has a point of its ball, so a cube it was
                                // entered in, within this chord distance of the point.
                                let reach = min(margin * FenceIndex.chordPerDistance + 1, 2 * FenceIndex.offset)
                                descend(keys, cell: cell, around: point, within: reach) { cube in
                                    for m in Int(starts[cube])..<Int(starts[cube + 1]) {
                                        let i = Int(members[m])
                                        let r = slots[i].radius
                                        guard r >= minRadius, stamps[i] != current else { continue }
                                        stamps[i] = current
                                        let d = distance(i)
                                        if d - r <= margin { body(Int(originals[i]), d) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Visits every occupied cube within `reach` (chord metres) of `point`: from the smallest
    /// aligned block that holds the query's bounding box, down the Morton runs, each block's
    /// run found by binary search within its parent's.
    private func descend(
        // SAFETY: `keys` is a level's key array, lent for the call.
        _ keys: UnsafeBufferPointer<UInt64>, cell: Double, around point: Geodesy.Point, within reach: Double,
        _ visit: (Int) -> Void
    ) {
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
        let first = FenceIndex.lowerBound(prefix << shift, keys, 0, keys.count)
        let last = shift >= 54 ? keys.count : FenceIndex.lowerBound((prefix + 1) << shift, keys, first, keys.count)
        let limit = reach * reach
        // (prefix, shift, first, last): a block and its run of keys.
        var stack: [(UInt64, UInt64, Int, Int)] = [(prefix, shift, first, last)]
        while let (p, s, from, to) = stack.popLast() {
            guard from < to else { continue }
            if s == 0 {
                visit(from)
                continue
            }
            let side = cell * Double(UInt64(1) << (s / 3))
            let base = p << s
            let (i, j, l) = (FenceIndex.compact(base), FenceIndex.compact(base >> 1), FenceIndex.compact(base >> 2))
            if FenceIndex.blockGap(point, i, j, l, cell: cell, side: side) > limit { continue }
            if to - from == 1 {
                // One cube left in the block: test it alone rather than split eight times.
                let k = keys[from]
                let (ci, cj, cl) = (FenceIndex.compact(k), FenceIndex.compact(k >> 1), FenceIndex.compact(k >> 2))
                if FenceIndex.blockGap(point, ci, cj, cl, cell: cell, side: cell) <= limit { visit(from) }
                continue
            }
            let childShift = s - 3
            var start = from
            for c in UInt64(0)..<8 {
                let end = c == 7 ? to : FenceIndex.lowerBound((p << 3 | (c + 1)) << childShift, keys, start, to)
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
    /// entered in them can have, and of fences by their edge; a fence comes out once no block
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
        let current = nextStamp()
        var heap = NearestHeap()
        for (n, level) in levels.enumerated() {
            heap.push(
                .init(
                    bound: -level.maxRadius, isFence: false, level: Int32(n), shift: 54, prefix: 0, from: 0,
                    to: level.keys.count))
        }
        var found: [(index: Int, edge: Double)] = []
        while found.count < count, let e = heap.pop() {
            if e.isFence {
                found.append((Int(e.prefix), e.bound))
                continue
            }
            let level = levels[Int(e.level)]
            let cell = level.cell
            // SAFETY: a level's keys, lent for the closure; `e.from..<e.to` is a run inside them.
            level.keys.withUnsafeBufferPointer { keys in
                if e.shift == 0 || e.to - e.from == 1 {
                    // A cube: its fences, each once, by their exact edges.
                    for m in Int(level.starts[e.from])..<Int(level.starts[e.from + 1]) {
                        let i = Int(level.members[m])
                        guard stamps[i] != current else { continue }
                        stamps[i] = current
                        let k = Int(originals[i])
                        heap.push(
                            .init(
                                bound: edgeDistance(k, point), isFence: true, level: 0, shift: 0, prefix: UInt64(k),
                                from: 0, to: 0))
                    }
                    return
                }
                let childShift = e.shift - 3
                var start = e.from
                for c in UInt64(0)..<8 {
                    let end =
                        c == 7
                        ? e.to : FenceIndex.lowerBound((e.prefix << 3 | (c + 1)) << childShift, keys, start, e.to)
                    if start < end {
                        let p = e.prefix << 3 | c
                        var i: UInt32
                        var j: UInt32
                        var l: UInt32
                        var side: Double
                        if end - start == 1 {
                            // One cube: its own bound, and it is opened as a cube.
                            let k = keys[start]
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
                        // A fence entered here has its centre within reach(R) of the block, and
                        // chord ≤ chordPerDistance · d: its edge is at least this.
                        let bound =
                            max(0, gap - FenceIndex.reach(level.maxRadius)) / FenceIndex.chordPerDistance
                            - level.maxRadius
                        heap.push(
                            .init(
                                bound: bound, isFence: false, level: e.level, shift: childShift, prefix: p, from: start,
                                to: end))
                    }
                    start = end
                }
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

    /// How many entries and occupied cubes the levels hold, for tests of the index's memory bound.
    var memberCount: Int { levels.reduce(0) { $0 + $1.members.count } }
    var cubeCount: Int { levels.reduce(0) { $0 + $1.keys.count } }
}
