/// Turns a stream of NMEA sentences into fixes: one fix per epoch, the sentences that share a
/// UTC time merged, the date carried from RMC or ZDA.
///
/// Epochs: a sentence with a time joins the epoch of that time if it is one of the two last
/// opened, else it opens a new epoch; the oldest of three is then finished. So a sentence may
/// come one epoch late (a receiver that interleaves two epochs' sentences, as GPSBabel's
/// `nmea+ms.txt` shows) and still be merged, and each epoch is written when the second epoch
/// after it begins. Sentences without a time (VTG, GSA) join the epoch of the last sentence
/// that had one; before the first timed sentence there is none, and they are dropped (they
/// describe an epoch whose time the log does not show). A GLL without time (NMEA 1.x) that
/// brings a second position starts an epoch of its own.
///
/// Dates: a sentence's date (RMC, ZDA) is used for its epoch; epochs without one take the last
/// known date, advanced by a day when the time of day falls back by more than twelve hours
/// (midnight). When the first date comes only later in the log, the epochs before it are held
/// and dated backwards from it, a day earlier across each midnight: up to `maxPending` epochs,
/// or, with `--date`, up to `maxPendingWithDate`, after which they take `--date` (rolled over
/// at midnight) so that a live feed is not held back. A log that never gives a date and no
/// `--date`: fixes without `time`, and one note on standard error.
struct NMEAAssembler {
    var fileName: String?
    var uere: Double?
    /// `--date`: days since 1970-01-01.
    let optionDate: Int64?
    /// Days since 1970-01-01 of the current date, once known.
    private(set) var day: Int64?
    private var lastTimeOfDay: Int64?
    /// The epoch opened last.
    private var epoch = NMEAEpoch()
    private var epochOpen = false
    /// The epoch opened before it, still open for a sentence that comes one epoch late.
    private var previous = NMEAEpoch()
    private var previousOpen = false
    /// Whether the last sentence with a time joined `previous` (then the sentences without a
    /// time that follow it join it too).
    private var inPrevious = false
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

    /// One sentence. `emit` receives finished fixes in order. A malformed sentence changes
    /// nothing, and the verdict says why it was refused.
    mutating func add<P: NMEASentenceParser>(
        _ parser: P.Type, _ s: NMEASentence, emit: (inout Fix) throws -> Void
    ) throws -> NMEAVerdict {
        var time: Int64?
        if let f = P.timeField, !s.isEmpty(f) {
            guard let t = s.timeOfDay(f) else { return .refused(.time(field: f)) }
            time = t
        }
        if let t = time {
            if epochOpen, let current = epoch.timeOfDay, current != t {
                if previousOpen, previous.timeOfDay == t {
                    inPrevious = true
                    return P.apply(s, to: &previous)
                }
                try shift(emit: emit)
            }
            inPrevious = false
            if !epochOpen { open() }
            if epoch.timeOfDay == nil { epoch.timeOfDay = t }
        } else if P.givesPosition {
            if inPrevious {
                if previous.hasPosition || previous.sawVoid {
                    try shift(emit: emit)
                    inPrevious = false
                    open()
                } else {
                    return P.apply(s, to: &previous)
                }
            } else if epochOpen, epoch.hasPosition || epoch.sawVoid {
                try shift(emit: emit)
            }
            if !epochOpen { open() }
        } else if inPrevious {
            return P.apply(s, to: &previous)
        } else if !epochOpen {
            return .used
        }
        return P.apply(s, to: &epoch)
    }

    /// Makes room for a new epoch: finishes the previous one, and the open one becomes the
    /// previous.
    private mutating func shift(emit: (inout Fix) throws -> Void) throws {
        if previousOpen { try finishEpoch(previous, emit: emit) }
        previousOpen = epochOpen
        if epochOpen { swap(&previous, &epoch) }
        epochOpen = false
    }

    private mutating func open() {
        epochOpen = true
        epoch = NMEAEpoch()
    }

    /// The end of the input: the last epoch, and whatever still waits for a date.
    mutating func finish(emit: (inout Fix) throws -> Void) throws {
        try shift(emit: emit)
        try shift(emit: emit)
        inPrevious = false
        if !pending.isEmpty { try flushUndated(emit: emit) }
    }

    private mutating func finishEpoch(_ e: NMEAEpoch, emit: (inout Fix) throws -> Void) throws {
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
        if optionDate != nil, pending.count >= NMEAAssembler.maxPendingWithDate {
            try flushWithOptionDate(emit: emit)
        } else if pending.count >= NMEAAssembler.maxPending {
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
