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
        var fix = Fix(lat: lat, lon: lon)
        fix.alt = e.alt
        if let a = e.sigmaLat, let b = e.sigmaLon {
            fix.hacc = (a * a + b * b).squareRoot()
        } else if let uere, let h = e.hdop {
            fix.hacc = h * uere
        }
        fix.vacc = e.sigmaAlt
        fix.speed = e.speed
        fix.course = e.course
        fix.hdop = e.hdop
        fix.vdop = e.vdop
        fix.pdop = e.pdop
        fix.sat = e.sat
        fix.trace = fileName
        guard let tod else {
            try write(&fix, emit)  // a position without any time (GLL of NMEA 1.x)
            return
        }
        if let d = day {
            fix.time = Timestamp(milliseconds: d * 86_400_000 + tod)
            try write(&fix, emit)
            return
        }
        pending.append((fix, tod))
        if optionDate != nil, pending.count >= NMEADating.maxPendingWithDate {
            try flushWithOptionDate(emit: emit)
        } else if pending.count >= NMEADating.maxPending {
            try flushUndated(emit: emit)
        }
    }

    private mutating func write(_ fix: inout Fix, _ emit: (inout Fix) throws -> Void) throws {
        fixes += 1
        try emit(&fix)
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
        fixes += pending.count
        for k in pending.indices { try emit(&pending[k].fix) }
        pending.removeAll(keepingCapacity: true)
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
        fixes += pending.count
        for k in pending.indices { try emit(&pending[k].fix) }
        pending.removeAll(keepingCapacity: true)
    }

    private mutating func flushUndated(emit: (inout Fix) throws -> Void) throws {
        if optionDate != nil { return try flushWithOptionDate(emit: emit) }
        wroteUndated = true
        fixes += pending.count
        for k in pending.indices { try emit(&pending[k].fix) }
        pending.removeAll(keepingCapacity: true)
    }
}
