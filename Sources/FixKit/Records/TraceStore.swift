/// The state a tool keeps per trace (fixfilter's clock and last fix, fencerule's fence states,
/// visits' stay, fixstats' sums), keyed by the trace name's bytes, with the fixes without a
/// trace as one more key.
///
/// Keys are bytes, not `String` equality: a name is the `String` of `ByteText.decode`, whose
/// UTF-8 is a one-to-one image of the name's bytes, so two traces are one exactly when their
/// names are the same bytes (`String`'s `==` would merge `café` spelt with U+00E9 and with
/// `e` + U+0301, which are different bytes and so different traces for every other tool).
///
/// It is on the hot path of every tool that keeps state. A stream carries one trace for long
/// runs, so the last key looked up is kept at hand: a fix of the same trace costs a compare of
/// its name's bytes, and only a change of trace hashes the name (FNV-1a) into an
/// open-addressed table. Neither allocates; a new trace stores its name's bytes once. States
/// live in one array in order of first appearance, which is the order `forEach` gives.
///
/// Idle traces (`idleDeadline`, `shrinkIdle`): a tool whose state for a trace is large can
/// give the store the clock value (a time, or a count of fixes) past which that state may shrink when its trace has had no fix; the
/// store queues a trace when the input moves on to another one, and `shrinkIdle(clock:)`
/// hands back, in deadline order, the states whose deadline the tool's clock has passed. The
/// check costs one compare a fix; a trace is queued at most once. visits uses it, with the
/// number of fixes read as its clock, to park a quiet trace's stays (`StaySpool`); the other
/// tools' states are a few fixed-size values a trace, and keep them.
public struct TraceStore<State> {
    private var states: [State] = []
    /// Each slot's name (nil: the fixes without a trace), for `forEach`.
    private var names: [String?] = []
    /// The names' UTF-8, one after another; slot k's is `arena[starts[k]..<starts[k + 1]]`
    /// (the untraced slot's is empty and never looked up by bytes).
    private var arena: [UInt8] = []
    private var starts: [Int] = [0]
    /// Open addressing, linear probing: slot + 1, 0 for empty. Its size is a power of two at
    /// least twice the number of names.
    private var table: [Int32] = Array(repeating: 0, count: 16)
    private var untracedSlot = -1
    /// The slot of the last lookup (it may be the untraced one).
    private var current = -1
    /// The name of the last traced lookup, kept so that its storage lives while
    /// `currentBits` names it, and the two words of that `String` (`bits`).
    private var currentName: String?
    private var currentBits: (UInt64, UInt64) = (0, 0)
    private let make: (String?) -> State

    private let idleDeadline: ((State) -> Double?)?
    /// Min-heap of (deadline, slot) for traces left for another; `queued` marks the slots in it.
    private var idle: [(deadline: Double, slot: Int)] = []
    private var queued: [Bool] = []

    /// `make` gives a trace's state on its first fix. `idleDeadline`, if given, says past which
    /// time a state may shrink (nil: it need not); see `shrinkIdle`.
    public init(make: @escaping (String?) -> State, idleDeadline: ((State) -> Double?)? = nil) {
        self.make = make
        self.idleDeadline = idleDeadline
    }

    /// The number of traces seen (the fixes without a trace count as one, once seen).
    public var count: Int { states.count }

    /// The state of `trace` (nil: the fixes without one), made on its first fix.
    @inline(__always)
    public mutating func withState<R>(_ trace: String?, _ body: (inout State) throws -> R) rethrows -> R {
        let k = slot(trace)
        return try body(&states[k])
    }

    /// The state of `trace`, if it has been seen; nothing is made.
    public func state(_ trace: String?) -> State? {
        guard let trace else { return untracedSlot >= 0 ? states[untracedSlot] : nil }
        let k = TraceStore.bytes(of: trace) { find($0).slot }
        return k >= 0 ? states[k] : nil
    }

    /// Every state, in order of first appearance, with its trace.
    public mutating func forEach(_ body: (String?, inout State) throws -> Void) rethrows {
        for k in states.indices { try body(names[k], &states[k]) }
    }

    /// The slot of `trace`, made on its first fix.
    @inline(__always)
    mutating func slot(_ trace: String?) -> Int {
        guard let trace else {
            if current >= 0, current == untracedSlot { return current }
            return switchTo(untraced())
        }
        let b = TraceStore.bits(trace)
        if current >= 0, current != untracedSlot {
            // The decoder hands back the same string while a trace goes on: the same words.
            if b == currentBits { return current }
            let same = TraceStore.bytes(of: trace) { name in
                let s = starts[current]
                let n = starts[current + 1] - s
                return name.count == n
                    && arena.withUnsafeBufferPointer { a in sameBytes(name, a, at: s, count: n) }
            }
            if same {
                currentName = trace
                currentBits = b
                return current
            }
        }
        let k = switchTo(lookUp(trace))
        currentName = trace
        currentBits = b
        return k
    }

    /// The two words of a `String`.
    @inline(__always)
    private static func bits(_ s: String) -> (UInt64, UInt64) {
        // SAFETY: a String is two words (unsafeBitCast checks the size), copied here without
        // a retain and never turned back into a String: a small string's bytes and count in
        // place, or a large one's count and flags and a reference to its storage. Storage that
        // another reference keeps alive (`currentName`) is not freed, reused or changed, so
        // equal words mean the same bytes; unequal words say nothing (the bytes are compared).
        unsafeBitCast(s, to: (UInt64, UInt64).self)
    }

    private mutating func untraced() -> Int {
        if untracedSlot < 0 {
            untracedSlot = append(nil, bytes: UnsafeBufferPointer(start: nil, count: 0))
        }
        return untracedSlot
    }

    /// The input moves from the current trace to slot `k`: the one left is queued as idle.
    private mutating func switchTo(_ k: Int) -> Int {
        if let idleDeadline, current >= 0, current != k, !queued[current],
            let d = idleDeadline(states[current])
        {
            push(d, current)
        }
        current = k
        return k
    }

    private mutating func lookUp(_ trace: String) -> Int {
        TraceStore.bytes(of: trace) { name in
            let (k, at) = find(name)
            if k >= 0 { return k }
            let made = append(trace, bytes: name)
            table[at] = Int32(made + 1)
            if 2 * (states.count - (untracedSlot >= 0 ? 1 : 0)) > table.count { grow() }
            return made
        }
    }

    private mutating func append(_ trace: String?, bytes name: UnsafeBufferPointer<UInt8>) -> Int {
        let k = states.count
        states.append(make(trace))
        names.append(trace)
        arena.append(contentsOf: name)
        starts.append(arena.count)
        queued.append(false)
        return k
    }

    /// The slot holding `name` (-1 if none), and the table position where it is or would go.
    private func find(_ name: UnsafeBufferPointer<UInt8>) -> (slot: Int, at: Int) {
        let mask = table.count - 1
        var i = Int(truncatingIfNeeded: TraceStore.hash(name)) & mask
        return arena.withUnsafeBufferPointer { a in
            while true {
                let e = Int(table[i])
                if e == 0 { return (-1, i) }
                let s = starts[e - 1]
                let n = starts[e] - s
                if n == name.count, sameBytes(name, a, at: s, count: n) {
                    return (e - 1, i)
                }
                i = (i + 1) & mask
            }
        }
    }

    private mutating func grow() {
        var bigger = [Int32](repeating: 0, count: table.count * 2)
        let mask = bigger.count - 1
        arena.withUnsafeBufferPointer { a in
            for e in table where e != 0 {
                let s = starts[Int(e) - 1]
                let n = starts[Int(e)] - s
                var i = Int(truncatingIfNeeded: TraceStore.hash(UnsafeBufferPointer(rebasing: a[s..<s + n]))) & mask
                while bigger[i] != 0 { i = (i + 1) & mask }
                bigger[i] = e
            }
        }
        table = bigger
    }

    /// FNV-1a, 64 bits.
    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// The name's UTF-8 (for a native string, its own storage: nothing is copied to the heap).
    @inline(__always)
    private static func bytes<R>(of name: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = name.utf8.withContiguousStorageIfAvailable(body) { return r }
        var copy = name
        return copy.withUTF8(body)
    }

    // MARK: Idle traces

    /// Hands `shrink` each state, other than the current trace's, whose deadline (from
    /// `idleDeadline`, asked again now) is before `clock`. The first compare is all a fix pays
    /// while no deadline is due.
    @inline(__always)
    public mutating func shrinkIdle(clock: Double, _ shrink: (inout State) throws -> Void) rethrows {
        guard let top = idle.first, top.deadline < clock else { return }
        try shrinkDue(clock: clock, shrink)
    }

    private mutating func shrinkDue(clock: Double, _ shrink: (inout State) throws -> Void) rethrows {
        guard let idleDeadline else { return }
        while let top = idle.first, top.deadline < clock {
            pop()
            let k = top.slot
            queued[k] = false
            // The current trace is queued again when the input leaves it.
            guard k != current, let d = idleDeadline(states[k]) else { continue }
            if d < clock {
                try shrink(&states[k])
            } else {
                push(d, k)  // it had fixes since it was queued
            }
        }
    }

    private mutating func push(_ deadline: Double, _ k: Int) {
        queued[k] = true
        idle.append((deadline, k))
        var i = idle.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard idle[i].deadline < idle[parent].deadline else { break }
            idle.swapAt(i, parent)
            i = parent
        }
    }

    private mutating func pop() {
        let last = idle.removeLast()
        guard !idle.isEmpty else { return }
        idle[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var m = i
            if l < idle.count, idle[l].deadline < idle[m].deadline { m = l }
            if r < idle.count, idle[r].deadline < idle[m].deadline { m = r }
            if m == i { break }
            idle.swapAt(i, m)
            i = m
        }
    }
}

/// Whether `name`'s `count` bytes are `arena[start ..< start + count]`.
// SAFETY: both buffers are the callers' for the call; `start + count <= arena.count` and
// `count == name.count` (the callers check), so memcmpBytes reads inside both. A buffer without
// a base address is empty: then `count` is 0 and the bytes are the same.
@inline(__always)
private func sameBytes(
    _ name: UnsafeBufferPointer<UInt8>, _ arena: UnsafeBufferPointer<UInt8>, at start: Int, count: Int
) -> Bool {
    guard count > 0, let p = name.baseAddress, let q = arena.baseAddress else { return count == 0 }
    return memcmpBytes(p, q + start, count)
}
