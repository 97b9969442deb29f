/// The fence states a trace keeps (the fences it is inside, and those with a dwell under way),
/// ascending by fence: a few entries as a rule, which a fix walks in one merge with its
/// candidates (also ascending) instead of a hash lookup each. The merge updates them in place
/// (`withEntries`), moving the ones kept down over the ones dropped, so that a million fences
/// leaving at once under `--assume inside` cost one pass, not a removal each, and a state kept
/// unchanged is not copied at all; the fences that gain a state are merged in after
/// (`insert(sorted:)`), which few fixes need.
struct FenceStates {
    /// One fence's state, with its fence and its fence's place in the index's slots (where a
    /// distance to it reads the centre).
    struct Entry {
        var key: Int
        var place: Int
        var state: FenceState
    }

    /// Ascending by key; one array, so that an append is one uniqueness and capacity check.
    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// Appends a state past every kept one (`k` must be larger than the last key).
    @inline(__always)
    mutating func append(_ k: Int, place: Int, _ state: FenceState) {
        entries.append(Entry(key: k, place: place, state: state))
    }

    /// Lends the entries for an update in place; `body` returns how many, from the first, are
    /// kept (it moves those it keeps to the front, in order), and the rest are dropped.
    @inline(__always)
    mutating func withEntries(_ body: (UnsafeMutableBufferPointer<Entry>) -> Int) {
        let n = entries.count
        let kept = entries.withUnsafeMutableBufferPointer { body($0) }
        if kept < n { entries.removeLast(n - kept) }
    }

    /// Merges in states for fences that have none, ascending by key like the entries: the new
    /// ones appended, then the two runs merged from the back, in place.
    @inline(never)
    mutating func insert(sorted added: ScratchBuffer<Entry>) {
        guard !added.isEmpty else { return }
        let old = entries.count
        entries.append(contentsOf: added.elements)
        entries.withUnsafeMutableBufferPointer { e in
            var i = old - 1  // the last of the old entries not yet placed
            var a = added.count - 1  // the last of the added ones not yet placed
            var w = e.count - 1
            while a >= 0 {
                if i >= 0, e[i].key > added[a].key {
                    e[w] = e[i]
                    i -= 1
                } else {
                    e[w] = added[a]
                    a -= 1
                }
                w -= 1
            }
        }
    }

    /// The place of `k`, or where it would go.
    private func place(_ k: Int) -> (Int, found: Bool) {
        var lo = 0
        var hi = entries.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if entries[mid].key < k { lo = mid + 1 } else { hi = mid }
        }
        return (lo, lo < entries.count && entries[lo].key == k)
    }

    /// The state of `k`, if kept.
    subscript(_ k: Int) -> FenceState? {
        let (at, found) = place(k)
        return found ? entries[at].state : nil
    }

    /// Keeps `state` for `k`, replacing the one kept.
    mutating func set(_ k: Int, place slotPlace: Int, _ state: FenceState) {
        let (at, found) = place(k)
        if found {
            entries[at].state = state
        } else {
            entries.insert(Entry(key: k, place: slotPlace, state: state), at: at)
        }
    }

    /// Forgets the states whose fence fails `keep`.
    mutating func filter(keeping keep: (Int) -> Bool) {
        entries.removeAll { !keep($0.key) }
    }

    /// The fences whose state is inside, ascending.
    func insideFences() -> [Int] { entries.filter { $0.state.inside }.map(\.key) }
}
