/// Dates the epochs that `NMEAAssembler` finishes, in order, and turns those with a position
/// into fixes (see `NMEAAssembler` for the rules). Kept apart from the epochs so that an epoch
/// is read where it stands, not copied, when it is finished.
struct NMEADating {
    var fileName: String?
    var uere: Double?
    /// `--date`: days since 1970-01-01.
    let optionDate: Int64?
    /// Days since 1970-01-01 of the current date, once known.
    private(set) var day: Int64?
    private var lastTimeOfDay: Int64?
    /// Fixes waiting for a date, with their times of day.
    private var pending: [(fix: Fix, timeOfDay: Int64?)] = []
    static let maxPending = 20_000
    static let maxPendingWithDate = 10
    /// Whether some fixes were written without a time because no date was known.
    private(set) var wroteUndated = false
    private(set) var epochs = 0
    private(set) var fixes = 0
    /// The times of the fixes written (SPEC: two fixes of one trace never share a time).
    private var written = WrittenTimes()
    /// Fixes skipped because a fix of their time was already written.
    private(set) var repeatedTimes = 0
    /// Fixes skipped because their time goes back further than `WrittenTimes` remembers.
    private(set) var tooFarBack = 0
    /// The fix every epoch with a position is written as, one for all (a held epoch is copied
    /// out of it): a fix made for each epoch was made in memory of its own and copied, its
    /// references retained and released again, on the way out (4.6% of gpx2fix's
    /// instructions on NMEA).
    private var scratch = Fix(lat: 0, lon: 0)

    init(fileName: String?, uere: Double?, date: Int64?) {
        self.fileName = fileName
        self.uere = uere
        self.optionDate = date
    }

    /// The end of the input: whatever still waits for a date.
    mutating func finish(emit: (inout Fix) throws -> Void) throws {
        if !pending.isEmpty { try flushUndated(emit: emit) }
    }

    mutating func finishEpoch(_ e: borrowing NMEAEpoch, emit: (inout Fix) throws -> Void) throws {
        epochs += 1
        let tod = e.timeOfDay
        // Date bookkeeping happens for every epoch, with a position or not.
        var dated = false
        if let d = e.day {
            day = d
            dated = true
        } else if let d = day, let tod, let last = lastTimeOfDay, tod < last - 43_200_000 {
            day = d + 1
        }
        if let tod { lastTimeOfDay = tod }
        if dated, !pending.isEmpty, let d = e.day, let tod { try backfill(from: d, at: tod, emit: emit) }

        guard e.hasPosition, let lat = e.lat, let lon = e.lon else { return }
        var hacc: Double?
        if let a = e.sigmaLat, let b = e.sigmaLon {
            hacc = (a * a + b * b).squareRoot()
        } else if let uere, let h = e.hdop {
            hacc = h * uere
        }
        // Every member an epoch gives is set, those it does not are cleared (what the way out
        // set, the trace's name, is set again).
        scratch.lat = lat
        scratch.lon = lon
        scratch.alt = e.alt
        scratch.hacc = hacc
        scratch.vacc = e.sigmaAlt
        scratch.speed = e.speed
        scratch.course = e.course
        scratch.cacc = nil
        scratch.hdop = e.hdop
        scratch.vdop = e.vdop
        scratch.pdop = e.pdop
        scratch.sat = e.sat
        scratch.seg = nil
        if scratch.name != nil { scratch.name = nil }
        if !scratch.extra.isEmpty { scratch.extra = [] }
        scratch.trace = fileName
        guard let tod else {
            // A position without any time (GLL of NMEA 1.x).
            scratch.time = nil
            fixes += 1
            try emit(&scratch)
            return
        }
        if let d = day {
            scratch.time = Timestamp(milliseconds: d * 86_400_000 + tod)
            guard admits(scratch.time) else { return }
            fixes += 1
            try emit(&scratch)
            return
        }
        scratch.time = nil
        pending.append((scratch, tod))
        if optionDate != nil, pending.count >= NMEADating.maxPendingWithDate {
            try flushWithOptionDate(emit: emit)
        } else if pending.count >= NMEADating.maxPending {
            try flushUndated(emit: emit)
        }
    }

    /// Writes a fix unless a fix of its time was written before (or might have been: see
    /// `WrittenTimes`), which is skipped and counted.
    @inline(__always)
    private mutating func write(_ fix: inout Fix, _ emit: (inout Fix) throws -> Void) throws {
        guard admits(fix.time) else { return }
        fixes += 1
        try emit(&fix)
    }

    /// Whether a fix of time `time` is written: not when a fix of its time was written before
    /// (or might have been: see `WrittenTimes`), which is counted; a fix without time always.
    @inline(__always)
    private mutating func admits(_ time: Timestamp?) -> Bool {
        guard let t = time else { return true }
        switch written.insert(t.milliseconds) {
        case .new: return true
        case .repeated:
            repeatedTimes += 1
            return false
        case .tooFarBack:
            tooFarBack += 1
            return false
        }
    }

    /// Writes the held fixes in order and empties the list.
    private mutating func writePending(_ emit: (inout Fix) throws -> Void) throws {
        var held: [(fix: Fix, timeOfDay: Int64?)] = []
        swap(&held, &pending)  // `write` changes `self`: the list is taken out meanwhile
        for k in held.indices { try write(&held[k].fix, emit) }
        held.removeAll(keepingCapacity: true)
        swap(&held, &pending)
    }

    /// Dates the held epochs forwards from `--date`, which then is the current date.
    private mutating func flushWithOptionDate(emit: (inout Fix) throws -> Void) throws {
        guard var d = optionDate else { return }
        var previous: Int64?
        for k in pending.indices {
            guard let tod = pending[k].timeOfDay else { continue }
            if let p = previous, tod < p - 43_200_000 { d += 1 }
            pending[k].fix.time = Timestamp(milliseconds: d * 86_400_000 + tod)
            previous = tod
        }
        day = d
        try writePending(emit)
    }

    /// Dates the held epochs backwards from the first dated one.
    private mutating func backfill(from day: Int64, at timeOfDay: Int64, emit: (inout Fix) throws -> Void) throws {
        var d = day
        var next = timeOfDay
        for k in stride(from: pending.count - 1, through: 0, by: -1) {
            guard let tod = pending[k].timeOfDay else { continue }
            if tod > next + 43_200_000 { d -= 1 }
            pending[k].fix.time = Timestamp(milliseconds: d * 86_400_000 + tod)
            next = tod
        }
        try writePending(emit)
    }

    private mutating func flushUndated(emit: (inout Fix) throws -> Void) throws {
        if optionDate != nil { return try flushWithOptionDate(emit: emit) }
        wroteUndated = true
        try writePending(emit)
    }
}

/// The times of the fixes an NMEA log has written, in constant memory, so that no time is
/// written twice (SPEC: two fixes of one trace never share a time). A log's times mostly
/// increase, and a time after every time written is new at the cost of one comparison; the
/// last `capacity` times are kept to tell a repeat among them from a time that only goes back
/// (a receiver that mixes up two epochs' sentences). A time at or before the newest time that
/// has left that window cannot be told apart, so it counts as going back too far: the rule
/// holds whatever the input, and a log whose time goes back that far (thousands of fixes)
/// is a log whose fixes fixfilter would reject as old anyway.
///
/// The window's times are distinct (a repeat is never recorded), so from the first time that
/// goes back they are also kept as a hash set, which answers in a probe or two. Scanning the
/// ring instead cost 4,096 reads for every epoch of a log whose time goes back for long (two
/// logs concatenated in the wrong order: ten copies of a log took 3.3 s instead of 0.8 s).
/// A log whose time only increases never builds the set.
struct WrittenTimes {
    static let capacity = 4096
    enum Verdict { case new, repeated, tooFarBack }
    /// The last `capacity` times written (milliseconds), a ring; `count` have been written.
    private var ring = [Int64](repeating: 0, count: WrittenTimes.capacity)
    private var count = 0
    /// The newest time written, and the newest of those that left the ring.
    private var newest = Int64.min
    private var floor = Int64.min
    /// The ring's times, once a time has gone back: open addressing with linear probing in
    /// twice the ring's places, `WrittenTimes.free` where none is (no time in milliseconds
    /// is `Int64.min`). Empty until then.
    private var set: [Int64] = []
    static let free = Int64.min
    static let places = 2 * capacity

    /// Records `t` unless it repeats (or may repeat) a time recorded before.
    @inline(__always)
    mutating func insert(_ t: Int64) -> Verdict {
        if t > newest {
            newest = t
        } else {
            if set.isEmpty { buildSet() }
            if place(of: t).found { return .repeated }
            if t <= floor { return .tooFarBack }
        }
        let slot = count & (WrittenTimes.capacity - 1)
        if count >= WrittenTimes.capacity {
            floor = max(floor, ring[slot])
            if !set.isEmpty { remove(ring[slot]) }
        }
        ring[slot] = t
        if !set.isEmpty { add(t) }
        count += 1
        return .new
    }

    @inline(__always)
    private static func home(_ t: Int64) -> Int {
        // Fibonacci hashing: the top 13 bits of the product (places is 2^13).
        Int(truncatingIfNeeded: (UInt64(bitPattern: t) &* 0x9E37_79B9_7F4A_7C15) >> 51)
    }

    /// Where `t` is in the set, or the free place where its probe ended.
    @inline(__always)
    private func place(of t: Int64) -> (at: Int, found: Bool) {
        var h = WrittenTimes.home(t)
        while true {
            let v = set[h]
            if v == t { return (h, true) }
            if v == WrittenTimes.free { return (h, false) }
            h = (h + 1) & (WrittenTimes.places - 1)
        }
    }

    private mutating func buildSet() {
        set = [Int64](repeating: WrittenTimes.free, count: WrittenTimes.places)
        for k in 0..<min(count, WrittenTimes.capacity) { add(ring[k]) }
    }

    /// Adds a time the set does not hold (at most `capacity` are held: half the places).
    @inline(__always)
    private mutating func add(_ t: Int64) {
        precondition(t != WrittenTimes.free, "a time of Int64.min milliseconds")
        set[place(of: t).at] = t
    }

    /// Removes a time the set holds, moving back the later ones of its probe run that would
    /// no longer be found (Knuth's algorithm R, for linear probing), so no tombstone is left.
    private mutating func remove(_ t: Int64) {
        let mask = WrittenTimes.places - 1
        var gap = place(of: t).at
        var j = gap
        while true {
            j = (j + 1) & mask
            let v = set[j]
            if v == WrittenTimes.free { break }
            // v stays unless its home is cyclically outside (gap, j]: then the gap is on its way.
            let h = WrittenTimes.home(v)
            let stays = gap <= j ? (gap < h && h <= j) : (gap < h || h <= j)
            if !stays {
                set[gap] = v
                gap = j
            }
        }
        set[gap] = WrittenTimes.free
    }
}
