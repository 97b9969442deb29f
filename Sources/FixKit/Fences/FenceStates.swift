/// The fence states a trace keeps (the fences it is inside, and those with a dwell under way),
/// ascending by fence: a few entries as a rule, which a fix walks in one merge with its
/// candidates (also ascending) instead of a hash lookup each. Under `--assume inside` without
/// a limit every fence starts with a state, in order, and the merge writes the next fix's
/// states out of place, so that a million fences leaving at once cost one pass, not a
/// removal each.
struct FenceStates {
    private(set) var keys: [Int] = []
    private(set) var values: [FenceState] = []

    var isEmpty: Bool { keys.isEmpty }
    var count: Int { keys.count }

    /// Appends a state past every kept one (`k` must be larger than the last key).
    @inline(__always)
    mutating func append(_ k: Int, _ state: FenceState) {
        keys.append(k)
        values.append(state)
    }

    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    /// The place of `k`, or where it would go.
    private func place(_ k: Int) -> (Int, found: Bool) {
        var lo = 0
        var hi = keys.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if keys[mid] < k { lo = mid + 1 } else { hi = mid }
        }
        return (lo, lo < keys.count && keys[lo] == k)
    }

    /// The state of `k`, if kept.
    subscript(_ k: Int) -> FenceState? {
        let (at, found) = place(k)
        return found ? values[at] : nil
    }

    /// Keeps `state` for `k`, replacing the one kept.
    mutating func set(_ k: Int, _ state: FenceState) {
        let (at, found) = place(k)
        if found {
            values[at] = state
        } else {
            keys.insert(k, at: at)
            values.insert(state, at: at)
        }
    }

    /// Forgets the states whose fence fails `keep`.
    mutating func filter(keeping keep: (Int) -> Bool) {
        var n = 0
        for i in keys.indices where keep(keys[i]) {
            keys[n] = keys[i]
            values[n] = values[i]
            n += 1
        }
        keys.removeLast(keys.count - n)
        values.removeLast(values.count - n)
    }

    /// The fences whose state is inside, ascending.
    func insideFences() -> [Int] { keys.indices.filter { values[$0].inside }.map { keys[$0] } }
}
