/// Turns a stream of NMEA sentences into fixes: one fix per epoch, the sentences that share a
/// UTC time merged, the date carried from RMC or ZDA.
///
/// Dates: a sentence's date (RMC, ZDA) is used for its epoch; epochs without one take the last
/// known date, advanced by a day when the time of day falls back by more than twelve hours
/// (midnight). `--date` gives the start date of a log that has none. When the first date comes
/// only later in the log, the epochs before it are held (at most `maxPending`) and dated
/// backwards from it, a day earlier across each midnight. A log that never gives a date gets
/// fixes without `time`, and one note on standard error.
struct NMEAAssembler {
    var fileName: String?
    var uere: Double?
    /// Days since 1970-01-01 of the current date, once known.
    private(set) var day: Int64?
    private var lastTimeOfDay: Int64?
    private var epoch = NMEAEpoch()
    private var epochOpen = false
    /// Fixes waiting for a date, with their times of day.
    private var pending: [(fix: Fix, timeOfDay: Int64?)] = []
    static let maxPending = 20_000
    /// Whether some fixes were written without a time because no date was known.
    private(set) var wroteUndated = false

    init(fileName: String?, uere: Double?, date: Int64?) {
        self.fileName = fileName
        self.uere = uere
        self.day = date
    }

    /// One sentence. `emit` receives finished fixes in order.
    mutating func add<P: NMEASentenceParser>(_ parser: P.Type, _ s: NMEASentence, emit: (inout Fix) throws -> Void) throws -> Bool {
        if let t = P.timeOfDay(s) {
            if epochOpen, let current = epoch.timeOfDay, current != t {
                try finishEpoch(emit: emit)
            }
            if !epochOpen {
                epochOpen = true
                epoch = NMEAEpoch()
            }
            if epoch.timeOfDay == nil { epoch.timeOfDay = t }
        } else if !epochOpen {
            epochOpen = true
            epoch = NMEAEpoch()
        }
        return P.apply(s, to: &epoch)
    }

    /// The end of the input: the last epoch, and whatever still waits for a date.
    mutating func finish(emit: (inout Fix) throws -> Void) throws {
        if epochOpen { try finishEpoch(emit: emit) }
        if !pending.isEmpty { try flushUndated(emit: emit) }
    }

    private mutating func finishEpoch(emit: (inout Fix) throws -> Void) throws {
        epochOpen = false
        let e = epoch
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
        if dated, !pending.isEmpty, let tod { try backfill(from: e.day!, at: tod, emit: emit) }

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
            try emit(&fix)  // a position without any time (GLL of NMEA 1.x)
            return
        }
        if let d = day {
            fix.time = Timestamp(milliseconds: d * 86_400_000 + tod)
            try emit(&fix)
            return
        }
        pending.append((fix, tod))
        if pending.count >= NMEAAssembler.maxPending { try flushUndated(emit: emit) }
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
        for k in pending.indices { try emit(&pending[k].fix) }
        pending.removeAll(keepingCapacity: true)
    }

    private mutating func flushUndated(emit: (inout Fix) throws -> Void) throws {
        wroteUndated = true
        for k in pending.indices { try emit(&pending[k].fix) }
        pending.removeAll(keepingCapacity: true)
    }
}
