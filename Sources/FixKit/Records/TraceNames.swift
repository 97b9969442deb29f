/// Gives every recording of a run a trace name of its own (SPEC "Two recordings never share
/// a trace"): a recording is one `<trk>` or `<rte>` of a GPX file (its waypoints are one
/// more), one NMEA log, one device of a gpsd log; more formats tell theirs the same way.
///
/// The first recording to use a name keeps it. A later one, from another track of the same
/// file or from another input, gets the input's file name appended: `Morning Ride
/// (2026-01-02.gpx)`; when that is taken too (two tracks of one name in one file, or the
/// same file name in two folders), a number: `Morning Ride (2026-01-02.gpx, 2)`, the first
/// number that is free, from 2. A name that is the file name already (an unnamed track), or
/// one read from standard input, which has no file name, gets the number alone:
/// `ride.gpx (2)`. A recording without any name (standard input, unnamed track) keeps none
/// the first time and is called `standard input (2)`, `(3)`, ... after that.
///
/// Names made here are names used too, so a later track really called `Morning Ride
/// (2026-01-02.gpx)` is not merged with the renamed one either.
/// - Complexity: O(1) per fix (the last recording's name is remembered); memory grows with
///   the number of recordings in the run, never with the number of fixes.
public struct TraceNames {
    private var used: Set<String> = []
    private var fileName: String?
    /// The names given to the current input's recordings, by (recording, name read).
    private var current: [Key: String?] = [:]
    private var last: (key: Key, name: String?)?
    private var unnamed = 0
    /// The next number to try for a stem such as `Morning Ride (ride.gpx, `.
    private var nextNumber: [String: Int] = [:]

    struct Key: Hashable {
        var recording: Int
        var name: String?
    }

    public init() {}

    /// Starts the next input; `fileName` is its last path component, nil for standard input.
    public mutating func beginInput(fileName: String?) {
        self.fileName = fileName
        current.removeAll(keepingCapacity: true)
        last = nil
    }

    /// The trace for a fix of the current input whose format named it `name`, in the input's
    /// recording number `recording` (any integer that tells the input's recordings apart; 0
    /// for formats with one recording per input, where a different `name` is a different
    /// recording, as gpsd's devices are).
    public mutating func trace(for name: String?, recording: Int) -> String? {
        let key = Key(recording: recording, name: name)
        if let last, last.key == key { return last.name }
        let given: String?
        if let known = current[key] {
            given = known
        } else {
            given = fresh(name)
            current[key] = given
        }
        last = (key, given)
        return given
    }

    /// The trace `trace(for:recording:)` would give, without taking the name: for fixes held
    /// back (a GPX file's waypoints, written only if it has no tracks) until they are written.
    public func peekTrace(for name: String?, recording: Int) -> String? {
        if let known = current[Key(recording: recording, name: name)] { return known }
        return free(name).name
    }

    private mutating func fresh(_ name: String?) -> String? {
        let (given, stem, k) = free(name)
        if name == nil { unnamed += 1 }
        if let given { used.insert(given) }
        if let stem { nextNumber[stem] = k + 1 }
        return given
    }

    /// The first name of the rule above that no recording has yet, and the stem and number
    /// of a numbered one.
    private func free(_ name: String?) -> (name: String?, stem: String?, number: Int) {
        guard let name else {
            guard unnamed > 0 else { return (nil, nil, 0) }
            return numbered("standard input (", from: unnamed + 1)
        }
        if !used.contains(name) { return (name, nil, 0) }
        if let file = fileName, file != name {
            let withFile = "\(name) (\(file))"
            if !used.contains(withFile) { return (withFile, nil, 0) }
            return numbered("\(name) (\(file), ", from: 2)
        }
        return numbered("\(name) (", from: 2)
    }

    /// `stem` + k + `)` for the first k from `start` that no recording has. Numbers already
    /// given for the stem are skipped without a look, so ten thousand rides of one name and
    /// one file name cost linear time.
    private func numbered(_ stem: String, from start: Int) -> (name: String?, stem: String?, number: Int) {
        var k = max(start, nextNumber[stem] ?? start)
        while used.contains("\(stem)\(k))") { k += 1 }
        return ("\(stem)\(k))", stem, k)
    }
}
