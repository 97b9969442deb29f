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
/// One list for the whole engine, held by the trace whose fixes came two in a row (a stream
/// carries one trace for long runs; interleaved traces query the index as before), so memory
/// does not grow with the traces. Where fences are dense the radius shrinks until the list
/// holds at most `capacity` fences; where even `minimumRadius` holds more, the index is
/// queried directly for the next `directFixes` fixes.
final class NearFences {
    struct Entry {
        var slot: FenceIndex.Slot
        var fence: Int
    }

    static let radius = 256.0
    static let minimumRadius = 32.0
    static let capacity = 64
    static let directFixes = 64

    // Unchecked: only `list` and `newSerial` touch these, neither while the other runs (the
    // engine's fixes are processed one at a time), and the run-time check on each access was
    // 2% of fencerule's instructions.
    /// The trace the list was built for (0: none) and the trace of the last fix.
    @exclusivity(unchecked) private(set) var owner = 0
    @exclusivity(unchecked) private var last = 0
    @exclusivity(unchecked) private var serials = 0
    @exclusivity(unchecked) private var anchor = Geodesy.Point(lat: 0, lon: 0)
    @exclusivity(unchecked) private var rho = 0.0
    @exclusivity(unchecked) private(set) var entries: [Entry] = []
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
        if owner == serial {
            let reach = rho - 1 - FenceIndex.chordPerDistance * margin
            if reach > 0, FenceIndex.chordSquared(point, anchor.x, anchor.y, anchor.z) <= reach * reach {
                return entries
            }
        } else if !consecutive {
            return nil
        }
        if direct > 0 {
            direct -= 1
            return nil
        }
        builds += 1
        owner = 0
        var r = NearFences.radius
        entries.removeAll(keepingCapacity: true)
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
            entries.removeAll(keepingCapacity: true)
            direct = NearFences.directFixes
            return nil
        }
        owner = serial
        anchor = point
        rho = r
        return entries
    }
}
