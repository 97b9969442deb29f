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
/// The engine keeps the last `kept` neighbourhoods, whatever trace built them (a list depends
/// on its anchor and radius alone): a noisy trace's fixes scatter over a few of them around
/// the true position, and come back to one that still covers them instead of rebuilding
/// (fixes with hacc 2–150 m left the single list every 8 fixes or so). A fix covered by none
/// builds one, replacing the least recently used, when its trace's previous fix was the
/// engine's last (a stream carries one trace for long runs); interleaved traces that find no
/// list query the index as before, so memory does not grow with the traces. Where fences
/// are dense the radius shrinks until the list holds at most `capacity` fences; where even
/// `minimumRadius` holds more, the index is queried directly for the next `directFixes` fixes.
final class NearFences {
    struct Entry {
        var slot: FenceIndex.Slot
        var fence: Int
    }

    /// One list: built at `anchor` for `rho`, last used at `used` (the engine's fix count).
    struct Neighbourhood {
        var anchor: Geodesy.Point
        var rho: Double
        var entries: [Entry]
        var used: Int
    }

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
    @exclusivity(unchecked) private var hoods: [Neighbourhood] = []
    /// The neighbourhood that served the last fix, tried first.
    @exclusivity(unchecked) private var recent = 0
    @exclusivity(unchecked) private var clock = 0
    @exclusivity(unchecked) private var direct = 0
    /// Lists built, for the tests.
    @exclusivity(unchecked) private(set) var builds = 0

    /// A number for a new trace.
    func newSerial() -> Int {
        serials += 1
        return serials
    }

    /// The list to scan for a fix of trace `serial` at `point` with margin `margin` (≤ 0), or
    /// nil when the index must be queried instead.
    func list(for serial: Int, at point: Geodesy.Point, margin: Double, index: FenceIndex) -> [Entry]? {
        let consecutive = last == serial
        last = serial
        guard margin <= 0, serial != 0 else { return nil }
        clock += 1
        let grow = 1 + FenceIndex.chordPerDistance * margin
        @inline(__always) func covers(_ h: Int) -> Bool {
            let reach = hoods[h].rho - grow
            let a = hoods[h].anchor
            return reach > 0 && FenceIndex.chordSquared(point, a.x, a.y, a.z) <= reach * reach
        }
        if recent < hoods.count, covers(recent) {
            hoods[recent].used = clock
            return hoods[recent].entries
        }
        for h in hoods.indices where h != recent && covers(h) {
            recent = h
            hoods[h].used = clock
            return hoods[h].entries
        }
        guard consecutive else { return nil }
        if direct > 0 {
            direct -= 1
            return nil
        }
        builds += 1
        // The least recently used neighbourhood's place (and storage), or a new one.
        var h = hoods.count
        if hoods.count == NearFences.kept {
            h = 0
            for j in hoods.indices where hoods[j].used < hoods[h].used { h = j }
        } else {
            hoods.append(Neighbourhood(anchor: point, rho: 0, entries: [], used: 0))
        }
        var entries: [Entry] = []
        swap(&entries, &hoods[h].entries)
        entries.removeAll(keepingCapacity: true)
        var r = NearFences.radius
        index.forEachNear(point, within: r) { slot, k in entries.append(Entry(slot: slot, fence: k)) }
        while entries.count > NearFences.capacity, r > NearFences.minimumRadius {
            r /= 2
            let limit = r
            entries.removeAll { e in
                let reach = FenceIndex.reach(e.slot.radius) + limit
                return FenceIndex.chordSquared(point, e.slot.x, e.slot.y, e.slot.z) > reach * reach
            }
        }
        if entries.count > NearFences.capacity {
            // Too dense for a list: this place gives none (rho 0 covers no fix).
            entries.removeAll(keepingCapacity: true)
            hoods[h] = Neighbourhood(anchor: point, rho: 0, entries: entries, used: 0)
            direct = NearFences.directFixes
            return nil
        }
        hoods[h] = Neighbourhood(anchor: point, rho: r, entries: entries, used: clock)
        recent = h
        return hoods[h].entries
    }
}
