/// A hash table from 64-bit keys to values, for the bounded summaries of long stays
/// (`WeightedBins`, `CellGrid`), which look up a bin or a cell for every fix.
///
/// Swift's `Dictionary` hashes each key with SipHash under a seed drawn for each process: on a
/// month of 1 Hz fixes the seeding and the probing were a tenth of visits' time, and the order
/// the summaries were merged and read in changed from run to run (and could change a sum's last
/// bits with it).
///
/// Here a key is hashed by one multiplication (Fibonacci hashing: nearby keys, which differ in
/// their low bits, land far apart), found by linear probing in a table at most half full, and
/// the entries are visited in the order of their places, which the keys alone decide: the same
/// in every run.
struct CellTable<Value> {
    private var slots: [(key: UInt64, value: Value)?]
    /// log2 of the number of places.
    private var bits: UInt64
    private(set) var count = 0

    /// A table that holds `minimumCapacity` entries before it first grows.
    init(minimumCapacity: Int = 0) {
        var bits: UInt64 = 4
        while 1 << bits < 2 * minimumCapacity { bits += 1 }
        self.bits = bits
        slots = Array(repeating: nil, count: 1 << bits)
    }

    /// The place of `key`, or the empty place where it would go: from its home place (the top
    /// bits of one multiplication), onwards past the places other keys took.
    @inline(__always)
    private func place(_ key: UInt64) -> Int {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> (64 - bits))
        while let slot = slots[i], slot.key != key { i = (i + 1) & mask }
        return i
    }

    /// Calls `body` on the value of `key`, first stored as `value()` if the key is new.
    @inline(__always)
    mutating func update(_ key: UInt64, default value: @autoclosure () -> Value, _ body: (inout Value) -> Void) {
        if 2 * (count + 1) > slots.count { grow() }
        let i = place(key)
        if var slot = slots[i] {
            body(&slot.value)
            slots[i] = slot
            return
        }
        var v = value()
        body(&v)
        slots[i] = (key, v)
        count += 1
    }

    /// The value of `key`, if stored.
    subscript(_ key: UInt64) -> Value? { slots[place(key)]?.value }

    /// Each entry, in the order of their places.
    func forEach(_ body: (UInt64, Value) -> Void) {
        for case let slot? in slots { body(slot.key, slot.value) }
    }

    /// A coarser table of the same sums: each entry's value merged, in the order of their
    /// places, into the entry of `parent(key)`, which starts as `empty`.
    func regrouped(by parent: (UInt64) -> UInt64, from empty: Value, _ merge: (inout Value, Value) -> Void)
        -> CellTable
    {
        var coarser = CellTable(minimumCapacity: count / 2 + 1)
        forEach { key, value in coarser.update(parent(key), default: empty) { merge(&$0, value) } }
        return coarser
    }

    private mutating func grow() {
        var bigger = CellTable(minimumCapacity: slots.count)
        for case let slot? in slots { bigger.slots[bigger.place(slot.key)] = slot }
        bigger.count = count
        self = bigger
    }
}
