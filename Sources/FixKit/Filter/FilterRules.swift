/// Why fixfilter rejected a fix: the first rule, in this order, that did.
public enum RejectReason: String, CaseIterable, Sendable {
    case hacc, age, speed, course, move
}

/// What fixfilter does with `course` when the fix has no valid `cacc`.
public enum CourseMode: String, CaseIterable, Sendable {
    /// Remove the course, pass the fix.
    case strip
    /// Reject the fix (reason `course`).
    case reject
    /// Leave it.
    case keep
}

/// The rules of fixfilter, each nil when turned `off`. The seed values follow Core Location's
/// habits: accuracy under 100 m, fixes younger than 15 s, 80 m/s as a glitch, no course
/// without a course accuracy, and no publishing of moves under 10 m.
public struct FilterRules: Equatable, Sendable {
    /// Reject `hacc` negative or >= this (metres).
    public var maxHacc: Double? = 100
    /// Reject fixes without `hacc` (reason `hacc`).
    public var requireHacc = false
    /// Reject fixes this many seconds or more older than the clock.
    public var maxAge: Double? = 15
    /// The clock, when fixed by `--now`; else the newest time seen on the trace.
    public var now: Timestamp?
    /// Reject a reported speed above this (m/s).
    public var maxSpeed: Double? = 80
    public var course: CourseMode = .strip
    /// Reject fixes closer than this (metres) to the last fix passed on the trace.
    public var minMove: Double? = 10

    public init() {}
}

/// What a rule decided about one fix.
public enum Verdict: Equatable, Sendable {
    case pass(stripCourse: Bool)
    case reject(RejectReason)
}

/// The state fixfilter keeps per trace: its clock and the last fix it passed.
public struct TraceFilterState: Sendable {
    public var clock: Timestamp?
    public var lastPassed: Geodesy.Centre?
    /// Consecutive fixes rejected as `age`, and where the run began (for fixfilter's one
    /// warning per trace that its time went back).
    public var ageRun = 0
    public var ageRunStart: (line: Int, input: InputName, time: Timestamp?)?
    public var saidBackInTime = false

    public init() {}
}

extension FilterRules {
    /// Judges `fix` and updates the trace's state: the clock moves forward with every fix
    /// seen, passed or not; the last passed position only with a fix that passes.
    public func judge(_ fix: Fix, state: inout TraceFilterState) -> Verdict {
        if let t = fix.time, now == nil, state.clock.map({ t > $0 }) ?? true { state.clock = t }
        let verdict = evaluate(fix, state: state)
        // The passed fix becomes the centre the next fixes are measured from: its trigonometry
        // is worked out once, for a fix that passes, and the fixes tested against it mostly
        // need none (`Geodesy.Centre`).
        if case .pass = verdict, minMove != nil { state.lastPassed = Geodesy.Centre(lat: fix.lat, lon: fix.lon) }
        return verdict
    }

    func evaluate(_ fix: Fix, state: TraceFilterState) -> Verdict {
        if let maxHacc {
            if let h = fix.hacc {
                if h < 0 || h >= maxHacc { return .reject(.hacc) }
            } else if requireHacc {
                return .reject(.hacc)
            }
        } else if requireHacc, (fix.hacc ?? -1) < 0 {
            return .reject(.hacc)
        }
        if let maxAge, let t = fix.time {
            // Any age past the span of writable times (about 3.2e14 ms) rejects nothing; the
            // cap keeps `--max-age 1e300` from trapping in the conversion.
            let limit = Int64(min((maxAge * 1000).rounded(.up), 1e15))
            if let now {
                let lag = now.milliseconds - t.milliseconds
                if lag >= limit || -lag >= limit { return .reject(.age) }
            } else if let clock = state.clock, clock.milliseconds - t.milliseconds >= limit {
                return .reject(.age)
            }
        }
        if let maxSpeed, let v = fix.speed, v > maxSpeed { return .reject(.speed) }
        var strip = false
        if fix.course != nil, course != .keep, !(fix.cacc.map { $0 >= 0 } ?? false) {
            if course == .reject { return .reject(.course) }
            strip = true
        }
        if let minMove, let last = state.lastPassed, last.isCloser(than: minMove, lat: fix.lat, lon: fix.lon) {
            return .reject(.move)
        }
        return .pass(stripCourse: strip)
    }
}
