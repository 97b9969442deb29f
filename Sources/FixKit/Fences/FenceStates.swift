/// The fence states a trace keeps (the fences it is inside, and those with a dwell under way),
/// ascending by fence: a few entries as a rule, which a fix walks in one merge with its
/// candidates (also ascending) instead of a hash lookup each. The merge updates them in place
/// (`withEntries`), moving the ones kept down over the ones dropped, so that a million fences
/// leaving at once under `--assume inside` cost one pass, not a removal each, and a state kept
/// unchanged is not copied at all; the fences that gain a state are merged in after
/// (`insert(sorted:)`), which few fixes need.
///
/// The states are the first `count` places of an array that never shrinks: dropping states
/// is one store, where an array's `removeLast(_:)` is a generic call through
/// `replaceSubrange` (about 40 instructions a fix, and a mispredicted branch in four, with a
/// million fences and noisy fixes, where half the fixes drop a one-fix dwell); the places past
/// `count` are storage for later, never read. An array, not a `ScratchBuffer` (which does the
/// same for the engine's per-fix scratch): each trace's states are a value of its own.
struct FenceStates {
    /// One fence's state, with its fence and its fence's place in the index's slots (where a
    /// distance to it reads the centre).
    struct Entry {
        var key: Int
        var place: Int
        var state: FenceState
    }

    /// The states ascending by key in the first `count` places; one array, so that an append is
    /// one uniqueness and capacity check.
    private var storage: [Entry] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// What fills a place before a state is written to it.
    private static let vacant = Entry(key: 0, place: 0, state: FenceState(inside: false))

    /// Appends a state past every kept one (`k` must be larger than the last key).
    @inline(__always)
    mutating func append(_ k: Int, place: Int, _ state: FenceState) {
        let entry = Entry(key: k, place: place, state: state)
        if count < storage.count { storage[count] = entry } else { storage.append(entry) }
        count += 1
    }

    /// Lends the entries for an update in place; `body` returns how many, from the first, are
    /// kept (it moves those it keeps to the front, in order), and the rest are dropped.
    @inline(__always)
    mutating func withEntries(_ body: (UnsafeMutableBufferPointer<Entry>) -> Int) {
        let n = count
        // SAFETY: the storage's first n ≤ storage.count places, lent for the call.
        count = storage.withUnsafeMutableBufferPointer { all in
            body(UnsafeMutableBufferPointer(rebasing: all[..<n]))
        }
    }

    /// Merges in states for fences that have none, ascending by key like the entries: the
    /// places after the kept ones made enough, then the two runs merged from the back, in place.
    @inline(never)
    mutating func insert(sorted added: ScratchBuffer<Entry>) {
        guard !added.isEmpty else { return }
        let old = count
        let total = old + added.count
        if storage.count < total {
            storage.append(contentsOf: repeatElement(FenceStates.vacant, count: total - storage.count))
        }
        storage.withUnsafeMutableBufferPointer { e in
            var i = old - 1  // the last of the old entries not yet placed
            var a = added.count - 1  // the last of the added ones not yet placed
            var w = total - 1
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
        count = total
    }

    /// The place of `k`, or where it would go.
    private func place(_ k: Int) -> (Int, found: Bool) {
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if storage[mid].key < k { lo = mid + 1 } else { hi = mid }
        }
        return (lo, lo < count && storage[lo].key == k)
    }

    /// The state of `k`, if kept.
    subscript(_ k: Int) -> FenceState? {
        let (at, found) = place(k)
        return found ? storage[at].state : nil
    }

    /// Keeps `state` for `k`, replacing the one kept.
    mutating func set(_ k: Int, place slotPlace: Int, _ state: FenceState) {
        let (at, found) = place(k)
        if found {
            storage[at].state = state
            return
        }
        if count == storage.count { storage.append(FenceStates.vacant) }
        var i = count
        while i > at {
            storage[i] = storage[i - 1]
            i -= 1
        }
        storage[at] = Entry(key: k, place: slotPlace, state: state)
        count += 1
    }

    /// Forgets the states whose fence fails `keep`.
    mutating func filter(keeping keep: (Int) -> Bool) {
        var w = 0
        for i in 0..<count where keep(storage[i].key) {
            storage[w] = storage[i]
            w += 1
        }
        count = w
    }

    /// The fences whose state is inside, ascending.
    func insideFences() -> [Int] { storage[..<count].filter { $0.state.inside }.map(\.key) }
}
