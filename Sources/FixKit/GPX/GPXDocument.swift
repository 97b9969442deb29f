/// What a GPX document means, element by element: the streaming state behind gpx2fix's GPX
/// reader. It is fed start tags, text and end tags (by `XMLStreamParser`, the only code that
/// talks to libxml2) and hands over each point as a `Fix` when its end tag arrives, so memory does
/// not grow with the file.
///
/// Read, in the GPX namespace (see `GPXNamespace`):
/// - `<trk>` `<name>` → `trace`; each `<trkseg>` is `seg`, counted from 0 within its track
///   (empty segments count, so the numbers match the file). fix2gpx marks a track whose
///   fixes had no `seg` with `<fixkit:unsegmented/>` in the track's `<extensions>`.
/// - `<rte>` `<name>` → `trace`; `<rtept>` has no `seg`.
/// - `<trkpt|rtept|wpt lat="…" lon="…">` with `<ele>` → `alt`, `<time>`, `<hdop>`, `<vdop>`,
///   `<pdop>`, `<sat>`, `<name>`, GPX 1.0's `<speed>` and `<course>` (and COROS's `<cog>`).
/// - Inside a point's `<extensions>`, in any namespace: `speed` and `course` (Garmin
///   TrackPointExtension v1/v2, ClueTrust gpxdata, Apple Health), `hAcc`/`hacc`/
///   `accuracy_horizontal` → `hacc`, `vAcc`/`vacc`/`accuracy_vertical` → `vacc`, `cacc`; and
///   fix2gpx's `json` (our namespace only), whose members become the fix's extra members, and
///   its `lon`, which restores a longitude of 180 that the `lon` attribute cannot hold.
/// A track's `<name>` must come before its points (as the schema orders it) to name them; a
/// name that arrives later is ignored, since the points are already written. Names are
/// trimmed of XML white space; fix2gpx's `name` and `trace` extensions give exact ones.
struct GPXDocument: XMLVocabulary {
    var fileName: String?
    var uere: Double?

    private(set) var depth = 0
    private var rootURI: [UInt8]? = nil
    private var sawRoot = false

    /// Which `<trk>` or `<rte>` of the file the points come from, counted from 1 (0 before
    /// the first): what tells two recordings of one name apart (`TraceNames`).
    private(set) var recording = 0
    private var trkDepth = 0
    private var trkName: String?
    private var segIndex = -1
    private var trkUnsegmented = false
    private var rteDepth = 0
    private var rteName: String?
    private var containerNameDepth = 0  // depth of a trk/rte <name> being read

    private var pointDepth = 0
    private var pointKind: GPXName = .unknown
    private var pointLine = 0
    private var pointValid = false
    private var fix = Fix(lat: 0, lon: 0)
    private var extensionsDepth = 0

    /// The field whose text is being collected, and the depth of its element.
    private var capture: GPXName = .unknown
    private var captureDepth = 0
    private var captureIsContainerName = false
    /// The name comes from fix2gpx's extension: exact, not trimmed, and it wins.
    private var captureExact = false
    var text = ElementText()
    var capturing: Bool { captureDepth != 0 }

    init(fileName: String?, uere: Double?) {
        self.fileName = fileName
        self.uere = uere
    }

    // MARK: Events

    /// A start tag. `attributes` yields (local name, value bytes) for lat/lon lookup.
    mutating func start(
        // SAFETY: `name` and `uri` are libxml2's NUL-terminated strings, valid for this callback
        // only (the URI, interned in the parser's dictionary, for the whole parse); `name` is read
        // up to its NUL.
        name: UnsafePointer<UInt8>, uri: UnsafePointer<UInt8>?, line: Int,
        attribute: XMLAttributes, sink: FixSink
    ) throws {
        depth += 1
        let element = GPXName.of(name)
        if !sawRoot {
            sawRoot = true
            guard element == .gpx else {
                try sink.problem(
                    line: line, "not a GPX file: the root element is <\(String(cString: name))>, expected <gpx>")
                return
            }
            // SAFETY: `uri` is NUL-terminated (libxml2's), valid during this callback;
            // `strlenBytes` counts its bytes up to the NUL and the array copies them.
            if let uri { rootURI = Array(UnsafeBufferPointer(start: uri, count: strlenBytes(uri))) }
            return
        }
        let ns = namespace(uri)
        if pointDepth != 0 {
            // Inside a point: its fields, and extension elements at any depth.
            if ns == .gpx && depth == pointDepth + 1 {
                switch element {
                case .ele, .time, .hdop, .vdop, .pdop, .sat, .name, .speed, .course, .cog: beginCapture(element)
                case .extensions: extensionsDepth = depth
                default: break
                }
            } else if extensionsDepth != 0 {
                switch element {
                case .speed, .course, .hacc, .vacc, .cacc: beginCapture(element)
                case .json where ns == .fixKit, .lon where ns == .fixKit: beginCapture(element)
                case .name where ns == .fixKit:
                    beginCapture(.name)
                    captureExact = true
                case .extensions where ns == .gpx: break
                default: break
                }
            }
            return
        }
        if ns == .fixKit, trkDepth != 0 {
            if element == .unsegmented { trkUnsegmented = true }
            if element == .continued, recording > 1 { recording -= 1 }
            if element == .trace {
                beginCapture(.name)
                captureIsContainerName = true
                captureExact = true
            }
            return
        }
        guard ns == .gpx else { return }
        switch element {
        case .trk:
            recording += 1
            trkDepth = depth
            trkName = nil
            segIndex = -1
            trkUnsegmented = false
        case .rte:
            recording += 1
            rteDepth = depth
            rteName = nil
        case .trkseg where trkDepth != 0:
            segIndex += 1
        case .name where (trkDepth != 0 && depth == trkDepth + 1) || (rteDepth != 0 && depth == rteDepth + 1):
            beginCapture(.name)
            captureIsContainerName = true
        case .trkpt, .rtept, .wpt:
            try startPoint(element, line: line, attribute: attribute, sink: sink)
        default:
            break
        }
    }

    mutating func end(line: Int, sink: FixSink) throws {
        defer { depth -= 1 }
        if captureDepth == depth {
            try endCapture(line: line, sink: sink)
            return
        }
        if depth == extensionsDepth { extensionsDepth = 0 }
        if depth == pointDepth {
            pointDepth = 0
            extensionsDepth = 0
            if pointValid {
                if fix.hacc == nil, let uere, let hdop = fix.hdop { fix.hacc = hdop * uere }
                try sink.emit(
                &fix, kind: pointKind == .trkpt ? .track : pointKind == .rtept ? .route : .waypoint, recording: recording)
            }
            return
        }
        if depth == trkDepth {
            trkDepth = 0
            trkName = nil
        } else if depth == rteDepth {
            rteDepth = 0
            rteName = nil
        }
    }

    // SAFETY: `bytes` is libxml2's text, valid only during this callback; `append` copies it.
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>, sink: FixSink) {
        guard captureDepth != 0 else { return }
        text.append(bytes)
    }

    // MARK: Pieces

    /// libxml2 interns namespace URIs in its dictionary, so the same pointer comes back for
    /// every element of a namespace: remember the last few answers by pointer.
    // SAFETY: libxml2 interns namespace URIs in the parser's dictionary, which lives for the parse,
    // and a document is made per input (one parse): the pointers are compared by address only,
    // never read after the parse.
    private var namespaceCache: [(UnsafePointer<UInt8>, GPXNamespace)] = []

    // SAFETY: `uri` is libxml2's interned, NUL-terminated URI, valid for the whole parse.
    private mutating func namespace(_ uri: UnsafePointer<UInt8>?) -> GPXNamespace {
        guard let uri else { return .gpx }
        for (p, ns) in namespaceCache where p == uri { return ns }
        let ns = classify(uri)
        if namespaceCache.count >= 8 { namespaceCache.removeFirst() }
        namespaceCache.append((uri, ns))
        return ns
    }

    // SAFETY: `uri` is NUL-terminated and valid during the callback; `cStringEquals` stops at its
    // NUL or at the other string's end.
    private func classify(_ uri: UnsafePointer<UInt8>) -> GPXNamespace {
        if cStringEquals(uri, GPXNamespace.gpx11) || cStringEquals(uri, GPXNamespace.gpx10) { return .gpx }
        // SAFETY: `rootURI`'s storage, lent for the comparison only.
        if let rootURI, rootURI.withUnsafeBufferPointer({ cStringEquals(uri, $0) }) { return .gpx }
        if cStringEquals(uri, GPXNamespace.fixKitURI) { return .fixKit }
        return .other
    }

    private mutating func beginCapture(_ field: GPXName) {
        capture = field
        captureDepth = depth
        captureIsContainerName = false
        captureExact = false
        text.reset()
    }

    private mutating func startPoint(
        _ kind: GPXName, line: Int, attribute: XMLAttributes, sink: FixSink
    ) throws {
        pointDepth = depth
        pointKind = kind
        pointLine = line
        extensionsDepth = 0
        fix = Fix(lat: 0, lon: 0)
        pointValid = false
        var tag: String { kind == .trkpt ? "<trkpt>" : kind == .rtept ? "<rtept>" : "<wpt>" }
        // Both coordinates are checked, and reported in one message.
        func coordinate(_ name: String, limit: Double) -> (Double?, String?) {
            guard let raw = attribute(name) else {
                return (nil, "has no \(name) attribute (expected \(name)=\"degrees\")")
            }
            // The attribute's text only for a message: a valid point makes no string of it.
            var text: String { String(decoding: raw, as: UTF8.self) }
            guard let v = DecimalNumber.parse(raw, trimmingXMLSpace: true) else {
                return (nil, "\(name)=\"\(text)\" is not a number of degrees")
            }
            guard v >= -limit, v <= limit else {
                return (nil, "\(name)=\"\(text)\" is out of range (expected -\(Int(limit)) to \(Int(limit)))")
            }
            return (v, nil)
        }
        let (lat, latProblem) = coordinate("lat", limit: 90)
        let (lon, lonProblem) = coordinate("lon", limit: 180)
        if latProblem != nil || lonProblem != nil {
            let problems = [latProblem, lonProblem].compactMap { $0 }
            try sink.problem(line: line, "\(tag) " + problems.joined(separator: " and ") + "; point skipped")
        }
        guard let lat, let lon else { return }
        fix.lat = lat
        fix.lon = lon
        switch kind {
        case .trkpt where trkDepth != 0:
            fix.trace = trkName ?? fileName
            if segIndex >= 0, !trkUnsegmented { fix.seg = segIndex }
        case .rtept where rteDepth != 0:
            fix.trace = rteName ?? fileName
        default:
            fix.trace = fileName
        }
        pointValid = true
    }

    private mutating func endCapture(line: Int, sink: FixSink) throws {
        captureDepth = 0
        let field = capture
        try text.reportCut(elementName(field), line: line, sink: sink)
        // Names lose the XML white space at their ends (pretty-printers and some apps put a line
        // break there); one of white space only is none. fix2gpx keeps a name whose ends matter
        // in its extension, which is read exactly and wins.
        let exact = captureExact
        var name: String { exact ? String(decoding: text.bytes, as: UTF8.self) : text.trimmed }
        if captureIsContainerName {
            captureIsContainerName = false
            let value = name
            guard exact || !value.isEmpty else { return }
            if trkDepth != 0, pointDepth == 0, depth > trkDepth {
                if trkName == nil || exact { trkName = value }
            } else if rteDepth != 0 {
                if rteName == nil || exact { rteName = value }
            }
            return
        }
        guard pointValid else { return }
        if field == .name {
            let value = name
            if exact || (fix.name == nil && !value.isEmpty) { fix.name = value }
            return
        }
        if field == .json {
            // SAFETY: `text.bytes`' storage, lent to the decoder for the closure only; it reads
            // within its count and copies what it keeps.
            let failure: JSONSyntaxError? = text.bytes.withUnsafeBufferPointer { raw in
                do throws(JSONSyntaxError) {
                    try FixDecoder.appendMembers(ofObject: raw, to: &fix)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                try sink.problem(
                    line: line, "<json> extension is not a JSON object of members (\(failure.message)); ignored")
            }
            return
        }
        let isEmpty = text.isBlank
        if isEmpty { return }  // `<ele></ele>` and `<ele/>` say nothing, as many producers write them
        if field == .time {
            // SAFETY: `text.bytes`' storage, read by the parser during the closure only.
            guard let t = text.bytes.withUnsafeBufferPointer({ Timestamp.parse($0) }) else {
                try sink.problem(
                    line: line,
                    "<time>\(text.shown)</time> is not an ISO 8601 time such as 2026-01-01T09:00:00Z; time left out")
                return
            }
            if fix.time == nil { fix.time = t }
            return
        }
        // SAFETY: `text.bytes`' storage, read by the parser during the closure only.
        guard let v = text.bytes.withUnsafeBufferPointer({ DecimalNumber.parse($0, trimmingXMLSpace: true) }) else {
            try sink.problem(
                line: line, "<\(elementName(field))>\(text.shown)</\(elementName(field))> is not a number; left out")
            return
        }
        // When a point repeats a field, the first value in the document wins, for every field.
        switch field {
        case .ele: if fix.alt == nil { fix.alt = v }
        case .hdop: if fix.hdop == nil { fix.hdop = v }
        case .vdop: if fix.vdop == nil { fix.vdop = v }
        case .pdop: if fix.pdop == nil { fix.pdop = v }
        case .hacc: if fix.hacc == nil { fix.hacc = v }
        case .vacc: if fix.vacc == nil { fix.vacc = v }
        case .cacc: if fix.cacc == nil { fix.cacc = v }
        case .sat:
            guard v >= 0, v == v.rounded(), v < 1e9 else {
                try sink.problem(line: line, "<sat>\(text.shown)</sat> is not a count of satellites; left out")
                return
            }
            if fix.sat == nil { fix.sat = Int(v) }
        case .speed:
            // Negative speeds are "unknown" sentinels (Apple writes -1): absent, not an error.
            if fix.speed == nil, v >= 0 { fix.speed = v }
        case .lon:
            if v == 180 || v == -180 { fix.lon = v }
        case .course, .cog:
            if fix.course == nil, v >= 0 { fix.course = v < 360 ? v : v.truncatingRemainder(dividingBy: 360) }
        default: break
        }
    }

    private func elementName(_ field: GPXName) -> String {
        field == .cog ? "cog" : "\(field)"
    }
}

// SAFETY: `p` must be a NUL-terminated string, valid for the call: bytes are read up to the NUL
// only.
@inline(__always)
func strlenBytes(_ p: UnsafePointer<UInt8>) -> Int {
    var n = 0
    while p[n] != 0 { n += 1 }
    return n
}

// SAFETY: `p` must be NUL-terminated and valid for the call: it is read at most up to `s.count`,
// stopping at the first difference, and a shorter `p` differs at its NUL first.
@inline(__always)
func cStringEquals(_ p: UnsafePointer<UInt8>, _ s: UnsafeBufferPointer<UInt8>) -> Bool {
    for k in 0..<s.count where p[k] != s[k] { return false }
    return p[s.count] == 0
}
