/// The fence states a trace keeps (the fences it is inside, and those with a dwell under way),
/// ascending by fence: a few entries as a rule, which a fix walks in one merge with its
/// candidates (also ascending) instead of a hash lookup each. Under `--assume inside` without
/// a limit every fence starts with a state, in order, and the merge writes the next fix's
/// states out of place, so that a million fences leaving at once cost one pass, not a
/// removal each.
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

    /// The fence of the i-th state.
    @inline(__always)
    func key(_ i: Int) -> Int { entries[i].key }

    /// Appends a state past every kept one (`k` must be larger than the last key).
    @inline(__always)
    mutating func append(_ k: Int, place: Int, _ state: FenceState) {
        entries.append(Entry(key: k, place: place, state: state))
    }

    /// Appends another list's i-th entry, copied in one piece.
    @inline(__always)
    mutating func append(_ other: FenceStates, at i: Int) {
        entries.append(other.entries[i])
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
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
