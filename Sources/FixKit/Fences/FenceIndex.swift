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
///
/// This file builds the index; the queries are in `FenceIndex+Within.swift` (the fences within
/// a margin of a point) and `FenceIndex+Nearest.swift` (the nearest edges, for `--limit`).
public final class FenceIndex {
    public let table: FenceTable
    /// The levels that hold fences, smallest cubes first. Trivial values: a query reads them
    /// without reference counting.
    let levels: [Level]
    /// The index's storage, allocated once and freed in `deinit`: plain pointers, so that the
    /// query loop pays no reference counting, no exclusivity check and no copy-on-write check.
    /// Safe: only this class and its extensions (`FenceIndex+Within.swift`,
    /// `FenceIndex+Nearest.swift`) touch them, and never past `fenceCount`, `cubeTotal` or the
    /// buckets the levels hold.
    /// - `slots`: what a query reads of each fence, in the index's own order (see `init`);
    /// - `originals`: each slot's fence number in `table`;
    /// - `cubes`: every level's occupied cubes, ascending by Morton key within a level;
    /// - `buckets`: every level's hash table from a cube's key to its place in `cubes` (plus
    ///   one; 0 is an empty bucket), in the first bytes of the block the build kept the
    ///   fences' centres in (the rest of it handed back), which `deinit` frees through it.
    // SAFETY: the four buffers below are allocated once in `init`, initialized there in full
    // (`fenceCount` slots and originals, `cubeTotal` cubes, every bucket), live as long as the
    // index, and are freed only in `deinit`; no pointer to them leaves the class and its
    // extensions (internal, not private, for those files only).
    let slots: UnsafeMutablePointer<Slot>
    let originals: UnsafeMutablePointer<UInt32>
    let cubes: UnsafeMutablePointer<Cube>
    let buckets: UnsafeMutablePointer<UInt32>
    let fenceCount: Int
    let cubeTotal: Int
    /// The largest radius of any fence (−1 with none).
    let largestRadius: Double
    /// `place(of:)`'s table, empty until then.
    // Unchecked: written once, by `place(of:)`, which the engine calls on one fix at a time;
    // `--assume inside` asks a million times, and each access paid a run-time check.
    @exclusivity(unchecked) private var places: [UInt32] = []

    struct Slot {
        var x: Double
        var y: Double
        var z: Double
        var radius: Double
    }

    /// A fence's Earth-centred centre, in file order while the index is built.
    struct Centre {
        var x: Double
        var y: Double
        var z: Double
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
        System.deallocateLarge(slots, capacity: fenceCount)
        System.deallocateLarge(originals, capacity: fenceCount)
        System.deallocateLarge(cubes, capacity: fenceCount)
        // The centres' block, the buckets' own.
        System.deallocateLarge(
            UnsafeMutableRawPointer(buckets).assumingMemoryBound(to: Centre.self), capacity: fenceCount)
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

    public convenience init(_ fences: [Fence]) {
        self.init(FenceTable(fences))
    }

    public init(_ table: FenceTable) {
        precondition(table.count <= FenceIndex.capacity, "FenceIndex holds at most 2^24 fences")
        self.table = table
        let n = table.count
        fenceCount = n
        // Each fence's level, counted per level, so that each level's fences take their own
        // stretch of the index's order, in file order, to be sorted there by their cube's key.
        var levelOf = [UInt8](repeating: 0, count: n)
        var levelStart = [Int](repeating: 0, count: FenceIndex.levelCount + 1)
        var maxRadius = [Double](repeating: -1, count: FenceIndex.levelCount)
        // The table's columns, valid while it is (the index holds it); k < n = table.count.
        let (lats, lons, radii) = (table.lat, table.lon, table.radius)
        for k in 0..<n {
            let radius = radii[k]
            let level = FenceIndex.level(for: radius)
            levelOf[k] = UInt8(level)
            levelStart[level + 1] += 1
            maxRadius[level] = max(maxRadius[level], radius)
        }
        for level in 0..<FenceIndex.levelCount { levelStart[level + 1] += levelStart[level] }
        // The build touches as little fresh memory as it can: on a virtual machine a page's first
        // write is the costly part of loading a million fences (the kernel zeroes it, and the host
        // may have to back it first). Each block below is written from its start once, and the
        // build's scratch lives in blocks the index keeps:
        // - each fence's centre in file order (`centres`, its Earth-centred coordinates worked out
        //   once), whose first bytes become the hash tables once every slot is gathered, the rest
        //   handed back;
        // - each level's sort order in `originals` itself (file numbers, sorted with the keys);
        // - the cube keys in the last quarter of the slots' block, and each level's sort's scratch
        //   in the stretch of slots the level fills next (see `slotMemory`).
        // The blocks written in full are faulted in at once (`System.populate`).
        // SAFETY: `centres` is written at every k < n in the first pass, read while the slots are
        // gathered, and then becomes `buckets` (see there), freed in `deinit`.
        let centres = System.allocateLarge(Centre.self, capacity: n, populate: true)
        // SAFETY: the index's slots, 32 bytes a fence (`Slot`'s stride, checked below), lent
        // meanwhile in two ways that the slots never overlap while either is in use:
        // - the keys, 8 bytes a fence from byte 24n: level L's slots, bytes 32·first ..< 32·end,
        //   end below the keys of every later level (from 24n + 8·end on, since end ≤ n); a
        //   level's own keys are read (its cubes made) before its slots are written;
        // - level L's sort's scratch, 12 bytes a fence from byte 32·first: below its own keys
        //   (24·first + 12·size ≤ 24·end ≤ 24n).
        // Each part is bound to the type it holds while it holds it; the whole is bound to `Slot`
        // at the end, every slot initialized by then.
        assert(MemoryLayout<Slot>.stride == 32, "FenceIndex: the keys' place assumes 32-byte slots")
        let slotMemory = UnsafeMutableRawPointer(System.allocateLarge(Slot.self, capacity: n, populate: true))
        let keys = (slotMemory + 24 * n).bindMemory(to: UInt64.self, capacity: n)
        // SAFETY: written once for each fence in the first pass (its level's `fill` place), read by
        // the sort and the slots' gathering; freed in `deinit`.
        let originals = System.allocateLarge(UInt32.self, capacity: n, populate: true)
        self.originals = originals
        // Each level's next place, through a pointer: an array's write checked its uniqueness
        // (a call) for every fence.
        var fill = levelStart
        fill.withUnsafeMutableBufferPointer { fill in
            for k in 0..<n {
                let level = Int(levelOf[k])
                let cell = FenceIndex.cellSize(level)
                let c = Geodesy.Point(lat: lats[k], lon: lons[k])
                let at = fill[level]
                fill[level] += 1
                keys[at] = FenceIndex.morton(
                    FenceIndex.cube(c.x, cell), FenceIndex.cube(c.y, cell), FenceIndex.cube(c.z, cell))
                originals[at] = UInt32(k)
                (centres + k).initialize(to: Centre(x: c.x, y: c.y, z: c.z))
            }
        }
        levelOf = []
        // Sorted by key within each level (stable: a cube's fences stay in file order), the runs
        // of equal keys made cubes, and the slots gathered in that order (independent reads, which
        // overlap: a walk along the permutation's cycles in place waits on each).
        // SAFETY: the index's cubes, at most one a fence: each level's run writes a cube at every
        // fence's place and keeps (counts) the ones that start a new key, so the first `cubeCount`
        // are initialized, in order; a write past the last kept one stays below n (there are
        // never more cubes than fences before it). Cubes are trivial, so rewriting one is a store.
        let cubes = System.allocateLarge(Cube.self, capacity: n)
        self.cubes = cubes
        var cubeCount = 0
        var built: [Level] = []
        var bucketCount = 0
        for level in 0..<FenceIndex.levelCount where levelStart[level] < levelStart[level + 1] {
            let first = levelStart[level]
            let end = levelStart[level + 1]
            FenceIndex.radixSort(
                keys: keys + first, numbers: originals + first, count: end - first, scratch: slotMemory + 32 * first)
            let firstCube = cubeCount
            // The runs of equal keys made cubes: every fence writes a cube starting at itself,
            // kept (counted) only where its key differs from the one before, as a run's length
            // (1 to 3 as a rule) was no pattern for the branch predictor; each cube then ends
            // where the next begins. A write past the last kept cube is overwritten or left
            // beyond `cubeCount`: there are never more cubes than fences before it.
            var previous = keys[first] &+ 1
            for e in first..<end {
                let key = keys[e]
                (cubes + cubeCount).initialize(to: Cube(key: key, start: UInt32(e), end: 0))
                cubeCount += key != previous ? 1 : 0
                previous = key
            }
            // SAFETY: the level's stretch of the slots (see `slotMemory`): its keys are read, its
            // sort is done, and every place in it is initialized here.
            let slots = (slotMemory + 32 * first).bindMemory(to: Slot.self, capacity: end - first) - first
            for e in first..<end {
                let k = Int(originals[e])
                let c = centres[k]
                (slots + e).initialize(to: Slot(x: c.x, y: c.y, z: c.z, radius: radii[k]))
            }
            for c in firstCube..<cubeCount {
                let m = Int(cubes[c].start)
                let e = c + 1 < cubeCount ? Int(cubes[c + 1].start) : end
                cubes[c].end = UInt32(e)
                // Largest radius first (stable: equal radii stay in file order), so that a
                // query for fences of some least radius stops at the first smaller.
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
            }
            let count = cubeCount - firstCube
            var size = 2
            while size < 2 * count { size <<= 1 }
            built.append(
                Level(
                    cell: FenceIndex.cellSize(level), maxRadius: maxRadius[level],
                    reach: FenceIndex.reach(maxRadius[level]), firstCube: firstCube,
                    endCube: cubeCount, firstBucket: bucketCount, mask: size - 1))
            bucketCount += size
        }
        // SAFETY: every slot is initialized (each level's stretch, and the levels cover 0..<n).
        self.slots = slotMemory.bindMemory(to: Slot.self, capacity: max(1, n))
        cubeTotal = cubeCount
        largestRadius = maxRadius.max() ?? -1
        // SAFETY: every level's hash table, each `mask + 1` entries from its `firstBucket`, all
        // initialized to 0 (empty) at once; a probe is masked, so it stays in its level's table, and
        // each table has at least twice as many entries as cubes, so a free bucket is always found.
        // They take the first bytes of `centres`, read no more: a table has fewer than four
        // buckets a cube (the least power of two at least twice its cubes, and at least 2), so
        // all take at most 16 bytes a fence (4 a bucket), within the 24 of a centre; the rest of
        // the centres' pages are handed back to the system.
        let centreBytes = max(1, n) * MemoryLayout<Centre>.stride
        let bucketBytes = max(1, bucketCount) * MemoryLayout<UInt32>.stride
        precondition(bucketBytes <= centreBytes, "FenceIndex: the hash tables outgrew the centres' block")
        let buckets = UnsafeMutableRawPointer(centres).bindMemory(to: UInt32.self, capacity: max(1, bucketCount))
        buckets.initialize(repeating: 0, count: max(1, bucketCount))
        System.releaseLarge(UnsafeMutableRawPointer(buckets), keeping: bucketBytes, of: centreBytes)
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

    /// The cube number of an ECEF coordinate, clamped to the 18 bits a key holds. The clamped
    /// quotient is at least 0, where converting it (which truncates) rounds down: the same
    /// number as clamping its floor, without a call to `floor` (the x86-64 baseline has no
    /// rounding instruction), and NaN, which `max` turns into 0, still comes out 0.
    @inline(__always)
    static func cube(_ v: Double, _ cell: Double) -> UInt32 {
        UInt32(min(262_143, max(0, (v + offset) / cell)))
    }

    /// The cubes (per axis, first and last) of the box `point` ± `within` chord metres.
    @inline(__always)
    static func cubes(around point: Geodesy.Point, within: Double, _ cell: Double) -> (
        lo: (x: UInt32, y: UInt32, z: UInt32), hi: (x: UInt32, y: UInt32, z: UInt32)
    ) {
        (
            (cube(point.x - within, cell), cube(point.y - within, cell), cube(point.z - within, cell)),
            (cube(point.x + within, cell), cube(point.y + within, cell), cube(point.z + within, cell))
        )
    }

    /// The squared chord from `point` to the Earth-centred position (x, y, z): what the
    /// index's tests compare with a squared reach, no square root.
    @inline(__always)
    static func chordSquared(_ point: Geodesy.Point, _ x: Double, _ y: Double, _ z: Double) -> Double {
        let dx = point.x - x
        let dy = point.y - y
        let dz = point.z - z
        return dx * dx + dy * dy + dz * dz
    }

    /// The cube of `level` with this key, if it holds fences: one probe of its hash table, as a
    /// rule.
    @inline(__always)
    func find(_ key: UInt64, _ level: Level) -> Cube? {
        let h = FenceIndex.bucket(key, level.mask)
        return find(key, level, first: buckets[level.firstBucket + h])
    }

    /// The same, given what the key's own bucket holds (read by the caller).
    @inline(__always)
    func find(_ key: UInt64, _ level: Level, first: UInt32) -> Cube? {
        let table = buckets + level.firstBucket
        var h = FenceIndex.bucket(key, level.mask)
        var c = first
        while true {
            if c == 0 { return nil }
            let cube = cubes[Int(c) - 1]
            if cube.key == key { return cube }
            h = (h + 1) & level.mask
            c = table[h]
        }
    }

    /// The first of `cubes[from..<to]` whose key is at least `key`.
    @inline(__always)
    func lowerBound(_ key: UInt64, _ from: Int, _ to: Int) -> Int {
        var lo = from
        var hi = to
        while lo < hi {
            let mid = (lo + hi) >> 1
            if cubes[mid].key < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Fence k's centre, worked out again (the index keeps it in k's slot only).
    func centre(_ k: Int) -> Geodesy.Point { Geodesy.Point(lat: table.lat[k], lon: table.lon[k]) }

    /// The place of fence k's slot: what `FenceStates` keeps with a state the engine gives a
    /// fence it has not found through the index (`--assume inside`). The inverse of
    /// `originals`, made the first time it is asked for (4 bytes a fence).
    func place(of k: Int) -> Int {
        if places.isEmpty, fenceCount > 0 {
            var inverse = [UInt32](repeating: 0, count: fenceCount)
            for e in 0..<fenceCount { inverse[Int(originals[e])] = UInt32(e) }
            places = inverse
        }
        return Int(places[k])
    }

    /// `Geodesy.distance(point, centre of fence k)`, from k's slot and its fence's latitude and
    /// longitude: the same value, without the centre's trigonometry.
    @inline(__always)
    func distance(_ point: Geodesy.Point, _ c: Slot, _ k: Int) -> Double {
        distance(point, k, chordSquared: FenceIndex.chordSquared(point, c.x, c.y, c.z))
    }

    /// The fence's latitude and longitude are read only past 50 km, where the distance is not
    /// the chord: a million fences' columns are megabytes, and most reads of them missed the
    /// cache.
    @inline(__always)
    func distance(_ point: Geodesy.Point, _ k: Int, chordSquared: Double) -> Double {
        Geodesy.distance(chordSquared: chordSquared) {
            Geodesy.far(lat1: point.lat, lon1: point.lon, lat2: table.lat[k], lon2: table.lon[k])
        }
    }

    /// How many occupied cubes the levels hold (each fence is kept once).
    var cubeCount: Int { cubeTotal }
}
