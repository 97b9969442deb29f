/// The fences near the trace a stream is on: the answer to fencerule's usual query (the fences
/// a fix may be inside of, margin ≤ 0) for a neighbourhood, kept while the trace's fixes stay
/// in it, so that a fix scans a short list instead of probing the index's cubes.
///
/// Built at a point A for a radius ρ, the list holds every fence with chord(A, c) ≤
/// reach(R) + ρ. A fix at X with margin m ≤ 0 wants the fences with d(X, c) − R ≤ m; for
/// those chord(X, c) ≤ chordPerDistance · (R + m), so chord(A, c) ≤ chord(A, X) +
/// chordPerDistance · (R + m) ≤ reach(R) + ρ whenever chord(A, X) + chordPerDistance · m ≤ ρ
/// (reach(R) = 1.005 R + 1 covers chordPerDistance · R, and the metre the rounding). The scan
/// then applies the query's own test to each listed fence, with the index's distance, so it
/// finds exactly what the index would. A fix outside the neighbourhood builds a new one
/// around itself.
///
/// The list is sorted by each fence's `key`, chord(A, c) − reach(R), so that a fix scans only
/// its head: a fence the fix wants has chord(A, c) ≤ chord(A, X) + chordPerDistance · (R + m),
/// that is key ≤ chord(A, X) + chordPerDistance · m less at least a metre (reach(R) exceeds
/// chordPerDistance · R by that), so `Served.limit` = chord(A, X) + chordPerDistance · m
/// stops the scan past every fence it could find, with a metre to spare for rounding. A noisy
/// fix a hundred metres from the anchor reads about a third of a list built 256 m wide.
///
/// The engine keeps the last `kept` neighbourhoods, whatever trace built them (a list depends
/// on its anchor and radius alone): a noisy trace's fixes scatter over a few of them around
/// the true position, and come back to one that still covers them instead of rebuilding
/// (fixes with hacc 2–150 m left the single list every 8 fixes or so). A fix covered by none
/// builds one, replacing the least recently used, when its trace's previous fix was the
/// engine's last (a stream carries one trace for long runs); interleaved traces that find no
/// list query the index as before, so memory does not grow with the traces. Where fences
/// are dense the radius shrinks until the list holds at most `capacity` fences (and the next
/// build starts there); where even `minimumRadius` holds more, the index is queried directly
/// for the next `directFixes` fixes.
final class NearFences {
    struct Entry {
        var slot: FenceIndex.Slot
        var fence: Int
        /// The slot's place in the index.
        var place: Int
        /// chord(anchor, centre) − reach(radius): the list's order.
        var key: Double
    }

    /// What a fix scans: `entries` while their key is at most `limit` (see the type's comment).
    /// The entries are the neighbourhood's own storage: valid until the next call of `list`.
    /// `columns`: the same entries as single-precision columns relative to `anchor`, for a
    /// first test of four at a time (`Columns`).
    struct Served {
        let entries: UnsafeBufferPointer<Entry>
        let limit: Double
        let anchor: Geodesy.Point
        let columns: Columns
    }

    /// A list's entries in five columns of `Float`, four entries to a SIMD vector, for the scan's
    /// first test (`FenceEngine.forEachListed`): each centre less the anchor (x, y, z), the
    /// radius grown by `tolerance` and rounded up (r), and the key (k, a multiple of `keyStep`
    /// or −∞, exact in single precision). The count is rounded up to a multiple of four with
    /// entries that no test passes (x, y, z and r NaN, key +∞).
    ///
    /// The first test is the exact one's (`FenceIndex.distance(_:_:_:within:)`) in single
    /// precision, made looser than any rounding can make it differ. A centre is within
    /// reach(R) + ρ of the anchor, and a fix the list serves within ρ + 1.0041·|m|, which is
    /// at most ρ + 1.0041·R for a fence the exact test keeps (it needs R ≥ −m). Rounding
    /// each to single precision, subtracting, squaring and summing, and r + m and its square,
    /// are each off by at most 2⁻²⁴ of their size: the chord by less than 2⁻²⁴·(|c − A| +
    /// |X − A| + 2.5·chord + 1.5·(R + m)), under 3.6e-7·R + 3e-5 m. `tolerance` adds a
    /// millimetre and 2e-6 of the radius, five times that and more. The fix's margin is
    /// rounded up, its least radius down and the limit up, so a fence the exact test passes
    /// always passes this one; the exact test is then applied to those that pass.
    struct Columns {
        let base: UnsafePointer<Float>
        /// Entries, a multiple of four.
        let count: Int

        /// Entries i to i + 3 of column c (0 to 4: x, y, z, r, k).
        @inline(__always)
        func column(_ c: Int, _ i: Int) -> SIMD4<Float> {
            assert(c >= 0 && c < 5 && i & 3 == 0 && i >= 0 && i < count, "Columns: no such entries")
            // SAFETY: `i` is a multiple of four below `count` (checked in debug builds; the scan
            // steps by four up to it), and each column has `count` entries written by the build
            // (see `NearFences.columns`).
            return UnsafeRawPointer(base + c * NearFences.capacity + i).loadUnaligned(as: SIMD4<Float>.self)
        }

        static func tolerance(_ radius: Double) -> Double { 1e-3 + 2e-6 * Swift.abs(radius) }

        /// A list of `count` entries as the columns hold it: rounded up to a multiple of four.
        static func padded(_ count: Int) -> Int { (count + 3) & ~3 }
    }

    /// One list: built at `anchor` for `rho`, last used at `used` (the engine's fix count), its
    /// `count` entries at `storage + place · capacity`.
    struct Neighbourhood {
        var anchor: Geodesy.Point
        var rho: Double
        var count: Int
        var used: Int
    }

    /// The steps a build sorts its entries' keys into: `keyStep` metres each from `firstStep`,
    /// the first also taking every key below it (as −∞), the last open above.
    static let keySteps = 128
    static let keyStep = 4.0
    static let firstStep = -128.0

    /// The step of a key: from 1 up, truncated (which rounds down there); the first step, and
    /// its key of −∞, for everything below 1 (and NaN, which no key is).
    @inline(__always)
    static func step(_ key: Double) -> Int {
        let q = (key - firstStep) / keyStep
        return q >= 1 ? Int(min(Double(keySteps - 1), q)) : 0
    }

    /// The key the entries of step b keep: its lower end, −∞ for the first.
    @inline(__always)
    static func stepKey(_ b: Int) -> Double { b == 0 ? -.infinity : firstStep + Double(b) * keyStep }

    static let radius = 256.0
    static let minimumRadius = 32.0
    static let capacity = 64
    static let directFixes = 64
    static let kept = 8

    // Unchecked: only `list` and `newSerial` touch these, neither while the other runs (the
    // engine's fixes are processed one at a time), and the run-time check on each access was
    // 2% of fencerule's instructions.
    /// The trace of the last fix (0: none).
    @exclusivity(unchecked) private var last = 0
    @exclusivity(unchecked) private var serials = 0
    @exclusivity(unchecked) private var hoodCount = 0
    /// The fences a build finds, before the list is cut to `capacity` (its storage kept).
    @exclusivity(unchecked) private var found: [Entry] = []
    /// The neighbourhood that served the last fix, tried first.
    @exclusivity(unchecked) private var recent = 0
    @exclusivity(unchecked) private var clock = 0
    @exclusivity(unchecked) private var direct = 0
    /// The radius the next build probes first (`radius`, or less where fences are dense).
    @exclusivity(unchecked) private var startRadius = NearFences.radius
    /// Lists built, for the tests.
    @exclusivity(unchecked) private(set) var builds = 0
    /// The neighbourhoods, the first `hoodCount` of `kept` places: plain memory, so that marking
    /// one used is a store (an array checked its uniqueness, a call, on every fix).
    // SAFETY: allocated in `init` for `kept` entries and freed in `deinit`; the first `hoodCount`
    // are initialized (a build initializes the next place before counting it); trivial elements.
    private let hoods: UnsafeMutablePointer<Neighbourhood>
    /// Every neighbourhood's entries, `capacity` places each: plain memory, so that serving a
    /// list costs no reference counting.
    // SAFETY: allocated in `init` for `kept · capacity` entries and freed in `deinit`; hood h's
    // entries are `storage[h · capacity ..< h · capacity + count]`, all written by the build that
    // set that count (count ≤ capacity); `Entry` is a trivial type.
    private let storage: UnsafeMutablePointer<Entry>
    /// A build's keys and places in `found`, sorted by key: `capacity` places of scratch.
    // SAFETY: allocated in `init`, freed in `deinit`; a build writes the first found.count ≤
    // capacity places before it reads them. Trivial elements.
    private let order: UnsafeMutablePointer<(key: Double, place: Int)>
    /// Every neighbourhood's `Columns`, five columns of `capacity` floats each.
    // SAFETY: allocated in `init` for `kept · 5 · capacity` floats and freed in `deinit`; hood
    // h's are `columns[h · 5 · capacity ..< (h + 1) · 5 · capacity]`, its first count entries
    // rounded up to four written by the build that set that count (capacity is a multiple of
    // four). Trivial elements.
    private let columns: UnsafeMutablePointer<Float>

    init() {
        hoods = .allocate(capacity: NearFences.kept)
        storage = .allocate(capacity: NearFences.kept * NearFences.capacity)
        order = .allocate(capacity: NearFences.capacity)
        columns = .allocate(capacity: NearFences.kept * 5 * NearFences.capacity)
    }

    deinit {
        // SAFETY: the buffers `init` allocated; their elements are trivial.
        hoods.deallocate()
        storage.deallocate()
        order.deallocate()
        columns.deallocate()
    }

    /// A number for a new trace.
    func newSerial() -> Int {
        serials += 1
        return serials
    }

    /// The list to scan for a fix of trace `serial` at `point` with margin `margin` (≤ 0), or
    /// nil when the index must be queried instead.
    func list(for serial: Int, at point: Geodesy.Point, margin: Double, index: FenceIndex) -> Served? {
        let consecutive = last == serial
        last = serial
        guard margin <= 0, serial != 0 else { return nil }
        clock += 1
        let shrink = FenceIndex.chordPerDistance * margin
        let grow = 1 + shrink
        /// The list of `h`, if its neighbourhood covers the point.
        @inline(__always) func served(_ h: Int) -> Served? {
            let reach = hoods[h].rho - grow
            let a = hoods[h].anchor
            let squared = FenceIndex.chordSquared(point, a.x, a.y, a.z)
            guard reach > 0, squared <= reach * reach else { return nil }
            hoods[h].used = clock
            return listed(h, limit: squared.squareRoot() + shrink)
        }
        if recent < hoodCount, let list = served(recent) { return list }
        for h in 0..<hoodCount where h != recent {
            if let list = served(h) {
                recent = h
                return list
            }
        }
        guard consecutive else { return nil }
        if direct > 0 {
            direct -= 1
            return nil
        }
        builds += 1
        // The least recently used neighbourhood's place, or a new one.
        var h = hoodCount
        if hoodCount == NearFences.kept {
            h = 0
            for j in 0..<hoodCount where hoods[j].used < hoods[h].used { h = j }
        } else {
            (hoods + h).initialize(to: Neighbourhood(anchor: point, rho: 0, count: 0, used: 0))
            hoodCount += 1
        }
        found.removeAll(keepingCapacity: true)
        var r = startRadius
        index.forEachNear(point, within: r) { slot, k, place in
            let key =
                FenceIndex.chordSquared(point, slot.x, slot.y, slot.z).squareRoot() - FenceIndex.reach(slot.radius)
            found.append(Entry(slot: slot, fence: k, place: place, key: key))
        }
        while found.count > NearFences.capacity, r > NearFences.minimumRadius {
            r /= 2
            let limit = r
            found.removeAll { e in
                let reach = FenceIndex.reach(e.slot.radius) + limit
                return FenceIndex.chordSquared(point, e.slot.x, e.slot.y, e.slot.z) > reach * reach
            }
        }
        // The next build starts at the radius this one kept, or a step wider if it holds few:
        // where fences are dense, a build that started at 256 m probed twice the cubes of the
        // 128 m list it kept (the area grows with the radius plus the fences' reach).
        startRadius = found.count * 4 <= NearFences.capacity ? min(NearFences.radius, r * 2) : r
        if found.count > NearFences.capacity {
            // Too dense for a list: this place gives none. Its rho must cover no fix whatever
            // the margin: a fix's margin is negative, which widens what a rho covers, so 0 would
            // serve fixes near here an empty list.
            hoods[h] = Neighbourhood(anchor: point, rho: -.infinity, count: 0, used: 0)
            direct = NearFences.directFixes
            return nil
        }
        // In the order of their keys rounded down to `keyStep` metres: the scan stops at the
        // first entry past its limit, which needs only that no later entry has a smaller key,
        // and each entry keeps its rounded key, no larger than its own, so an entry the scan
        // reads needlessly is one the exact test rejects. A counting sort by those steps, with
        // no comparison to mispredict (an insertion sort of the 45 or so entries cost a
        // microsecond a build); keys below the first step (fences far larger than the
        // neighbourhood) come first with a key of −∞, those above the last together with it.
        // SAFETY: `counts` has `keySteps` places; `order` has capacity places, and each of the
        // found.count ≤ capacity entries is given one, at a distinct place from the prefix sums;
        // then hood h's places in `storage` (see there), as many.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: NearFences.keySteps) { counts in
            counts.initialize(repeating: 0)
            for e in found { counts[NearFences.step(e.key)] += 1 }
            var sum: Int32 = 0
            for b in 0..<NearFences.keySteps {
                let c = counts[b]
                counts[b] = sum
                sum += c
            }
            for (i, e) in found.enumerated() {
                let b = NearFences.step(e.key)
                order[Int(counts[b])] = (NearFences.stepKey(b), i)
                counts[b] += 1
            }
        }
        let at = storage + h * NearFences.capacity
        // SAFETY: hood h's columns (see `columns`): its first count rounded up to four
        // entries, at most capacity.
        let column = columns + h * 5 * NearFences.capacity
        let cap = NearFences.capacity
        let padded = Columns.padded(found.count)
        found.withUnsafeBufferPointer { found in
            for j in 0..<found.count {
                var e = found[order[j].place]
                e.key = order[j].key
                (at + j).initialize(to: e)
                let radius = Float(e.slot.radius + Columns.tolerance(e.slot.radius)).nextUp
                column[j] = Float(e.slot.x - point.x)
                column[cap + j] = Float(e.slot.y - point.y)
                column[2 * cap + j] = Float(e.slot.z - point.z)
                column[3 * cap + j] = radius
                column[4 * cap + j] = Float(e.key)
            }
        }
        for j in found.count..<padded {
            for c in 0..<4 { column[c * cap + j] = .nan }
            column[4 * cap + j] = .infinity
        }
        hoods[h] = Neighbourhood(anchor: point, rho: r, count: found.count, used: clock)
        recent = h
        // The point is the anchor: chord 0.
        return listed(h, limit: shrink)
    }

    /// Hood h's list, scanned up to `limit`.
    @inline(__always)
    private func listed(_ h: Int, limit: Double) -> Served {
        // SAFETY: hood h's places in `storage`, its `count` entries written by its build, and
        // its columns, written with them (see `columns`).
        let count = hoods[h].count
        return Served(
            entries: UnsafeBufferPointer(start: storage + h * NearFences.capacity, count: count), limit: limit,
            anchor: hoods[h].anchor,
            columns: Columns(base: UnsafePointer(columns + h * 5 * NearFences.capacity), count: Columns.padded(count)))
    }
}
