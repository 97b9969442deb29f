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
    /// The dates, and the fixes made of finished epochs.
    private(set) var dating: NMEADating
    /// The last two epochs opened: the newest, and the one before it (the previous), still
    /// open for a sentence that comes one epoch late. Which slot is which alternates, so that
    /// no epoch is copied from one to the other.
    private var slotA = NMEAEpoch()
    private var slotB = NMEAEpoch()
    private var newestIsA = true
    private var epochOpen = false
    private var previousOpen = false
    /// Whether the last sentence with a time joined `previous` (then the sentences without a
    /// time that follow it join it too).
    private var inPrevious = false
    var wroteUndated: Bool { dating.wroteUndated }
    var epochs: Int { dating.epochs }
    var fixes: Int { dating.fixes }
    var repeatedTimes: Int { dating.repeatedTimes }
    var tooFarBack: Int { dating.tooFarBack }

    init(fileName: String?, uere: Double?, date: Int64?) {
        dating = NMEADating(fileName: fileName, uere: uere, date: date)
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
            let newestTime = newestIsA ? slotA.timeOfDay : slotB.timeOfDay
            if epochOpen, let current = newestTime, current != t {
                if previousOpen, (newestIsA ? slotB.timeOfDay : slotA.timeOfDay) == t {
                    inPrevious = true
                    return apply(P.self, s, newest: false)
                }
                try shift(emit: emit)
            }
            inPrevious = false
            if !epochOpen { open() }
            if newestIsA {
                if slotA.timeOfDay == nil { slotA.timeOfDay = t }
            } else if slotB.timeOfDay == nil {
                slotB.timeOfDay = t
            }
        } else if P.givesPosition {
            if inPrevious {
                let previousHasOne = newestIsA ? slotB.hasPosition || slotB.sawVoid : slotA.hasPosition || slotA.sawVoid
                guard previousHasOne else { return apply(P.self, s, newest: false) }
                try shift(emit: emit)
                inPrevious = false
                open()
            } else if epochOpen, newestIsA ? slotA.hasPosition || slotA.sawVoid : slotB.hasPosition || slotB.sawVoid {
                try shift(emit: emit)
            }
            if !epochOpen { open() }
        } else if inPrevious {
            return apply(P.self, s, newest: false)
        } else if !epochOpen {
            return .used
        }
        return apply(P.self, s, newest: true)
    }

    /// Applies a sentence to the newest epoch or to the previous one.
    @inline(__always)
    private mutating func apply<P: NMEASentenceParser>(_ parser: P.Type, _ s: NMEASentence, newest: Bool) -> NMEAVerdict
    {
        newest == newestIsA ? P.apply(s, to: &slotA) : P.apply(s, to: &slotB)
    }

    /// Makes room for a new epoch: finishes the previous one, and the newest becomes the
    /// previous.
    private mutating func shift(emit: (inout Fix) throws -> Void) throws {
        if previousOpen {
            if newestIsA {
                try dating.finishEpoch(slotB, emit: emit)
            } else {
                try dating.finishEpoch(slotA, emit: emit)
            }
        }
        previousOpen = epochOpen
        newestIsA.toggle()
        epochOpen = false
    }

    /// Opens the newest epoch, in the slot of the one finished last.
    private mutating func open() {
        epochOpen = true
        if newestIsA { slotA.clear() } else { slotB.clear() }
    }

    /// The end of the input: the last epoch, and whatever still waits for a date.
    mutating func finish(emit: (inout Fix) throws -> Void) throws {
        try shift(emit: emit)
        try shift(emit: emit)
        inPrevious = false
        try dating.finish(emit: emit)
    }
}
