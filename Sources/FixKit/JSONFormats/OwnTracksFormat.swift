/// OwnTracks: the Recorder's `.rec` files and the apps' JSON messages.
///
/// A `.rec` line is an ISO time, white space, a marker (`*` padded with spaces), white space,
/// then one JSON message (older Recorders separate with spaces, newer with tabs):
///
/// ```
/// 2015-08-24T05:55:07Z\t*                 \t{"_type":"location","tst":1440395361,"lat":52.37,"lon":10.02,...}
/// ```
///
/// Messages on their own are read one after another (one a line, pretty-printed, or in a
/// JSON array). Only `"_type": "location"` messages are fixes; others (`lwt`, `transition`,
/// `waypoint`, ...) are skipped and counted.
///
/// | member | fix field | note |
/// |---|---|---|
/// | `lat`, `lon` | `lat`, `lon` | degrees |
/// | `tst` | `time` | seconds since 1970 (a number, or a string of digits) |
/// | `acc` | `hacc` | metres |
/// | `vac` | `vacc` | metres; negative (iOS's "altitude invalid") drops `alt` and `vacc` |
/// | `alt` | `alt` | metres |
/// | `vel` | `speed` | km/h, written as m/s; negative is absent |
/// | `cog` | `course` | degrees; negative is absent |
/// | `tid`, else `topic` | `trace` | else the file's name |
struct OwnTracksFormat: InputFormat {
    static let name = "owntracks"
    static let summary = "OwnTracks: Recorder .rec files and location messages (JSON, one after another or in an array)"

    static func recognize(_ head: InputHead) -> Recognition {
        if let first = head.bytes.first, first &- 48 < 10 {
            guard let line = head.firstLine else { return head.undecided }
            return isRecLine(line) ? .yes : .no
        }
        switch JSONShape.of(head) {
        case .owntracks: return .yes
        case .needMore: return .needMore
        default: return .no
        }
    }

    /// `YYYY-MM-DDT...`, white space, a marker, white space, `{`.
    static func isRecLine(_ line: ArraySlice<UInt8>) -> Bool {
        let b = Array(line)
        guard b.count > 12, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T") else {
            return false
        }
        guard let start = recJSON(b) else { return false }
        return b[start] == JSONByte.openBrace
    }

    /// The JSON part of a `.rec` line: after the time, the marker and the white space around
    /// it; nil when nothing follows them (a line cut after its marker).
    static func recJSON<C: RandomAccessCollection<UInt8>>(_ line: C) -> C.Index? {
        var i = line.startIndex
        func word() -> Bool {
            let start = i
            while i < line.endIndex, line[i] != 0x20, line[i] != 0x09 { i = line.index(after: i) }
            return i > start
        }
        func space() -> Bool {
            let start = i
            while i < line.endIndex, line[i] == 0x20 || line[i] == 0x09 { i = line.index(after: i) }
            return i > start
        }
        guard word(), space(), i < line.endIndex else { return nil }
        if line[i] != JSONByte.openBrace {
            guard word(), space(), i < line.endIndex else { return nil }
        }
        return i
    }

    let settings: ReaderSettings

    init(settings: ReaderSettings) { self.settings = settings }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        var handler = OwnTracksHandler(sink: sink, fileName: settings.fileName)
        if let first = source.headPrefix.first, first &- 48 < 10 {
            let window = ByteWindow(source)
            try window.forEachLine(limit: JSONStreamReader.elementLimit) { line, number in
                if line.allSatisfy(isXMLSpace) { return }
                guard let json = OwnTracksFormat.recJSON(line) else {
                    try sink.problem(
                        line: number, "not a .rec line (a time, a marker such as *, then a JSON message); line skipped")
                    return
                }
                // SAFETY: `line[json...]` is a part of the window's line (`json` is an index of
                // it), valid during the handler's call only.
                try handler.value(UnsafeBufferPointer(rebasing: line[json...]), of: nil, line: number)
            } tooLong: { number in
                try sink.problem(line: number, "a line longer than \(JSONStreamReader.elementLimit >> 20) MiB; skipped")
            }
        } else {
            var reader = JSONStreamReader(source)
            reader.rootObject = .whole
            reader.sequence = true
            try reader.read(&handler)
        }
        if !handler.otherTypes.isEmpty {
            let parts = handler.otherTypes.sorted { $0.key < $1.key }.map {
                "\($0.value) \(escapedForMessage($0.key.utf8.prefix(40)))"
            }
            sink.note("messages that are not locations skipped: \(parts.joined(separator: ", "))")
        }
    }
}

struct OwnTracksHandler: JSONStreamHandler {
    let sink: FixSink
    let fileName: String?
    var otherTypes: [String: Int] = [:]

    func action(forMember key: String) -> JSONMemberAction { .skip }

    mutating func problem(line: Int, _ message: String) throws {
        try sink.problem(line: line, message)
    }

    // SAFETY: `bytes` is the stream reader's window, valid during this call only.
    mutating func element(_ bytes: UnsafeBufferPointer<UInt8>, of key: String?, line: Int) throws {
        try value(bytes, of: nil, line: line)
    }

    /// One message.
    // SAFETY: `bytes` is the window's line, valid during this call only.
    mutating func value(_ bytes: UnsafeBufferPointer<UInt8>, of key: String?, line: Int) throws {
        guard
            let e = try JSONElement.parse(
                bytes, line: line, what: "an OwnTracks message", problem: { try sink.problem(line: $0, $1) })
        else {
            return
        }
        let m = e.root
        guard m.kind == .object else {
            try sink.problem(line: line, "an OwnTracks message is a JSON object, found \(e.shown(m)); skipped")
            return
        }
        let type = e.string(m["_type"]) ?? "messages without _type"
        guard type == "location" else {
            otherTypes[type, default: 0] += 1
            return
        }
        guard let lat = e.number(m["lat"]), let lon = e.number(m["lon"]) else {
            try sink.problem(line: line, "a location message needs \"lat\" and \"lon\" (numbers of degrees); skipped")
            return
        }
        var fix = Fix(lat: lat, lon: lon)
        guard fix.hasValidCoordinates else {
            try sink.problem(
                line: line,
                "lat \(DecimalNumber.text(lat)), lon \(DecimalNumber.text(lon)) are out of range (expected [-90, 90] and [-180, 180]); skipped"
            )
            return
        }
        if let tst = m["tst"] {
            guard let t = e.time(tst) else {
                try sink.problem(line: e.line(of: tst), "\"tst\" \(e.shown(tst)) is not seconds since 1970; skipped")
                return
            }
            fix.time = t
        }
        fix.hacc = e.number(m["acc"])
        fix.alt = e.number(m["alt"])
        fix.vacc = e.number(m["vac"])
        if let v = fix.vacc, v < 0 {
            fix.vacc = nil
            fix.alt = nil
        }
        // km/h to m/s.
        if let v = e.number(m["vel"]), v >= 0 { fix.speed = v / 3.6 }
        if let c = e.number(m["cog"]), c >= 0 { fix.course = c.truncatingRemainder(dividingBy: 360) }
        fix.trace = [e.string(m["tid"]), e.string(m["topic"])].compactMap { $0 }.first { !$0.isEmpty } ?? fileName
        try sink.emit(&fix)
    }
}
