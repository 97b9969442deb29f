/// What a KML document (2.2, with Google's `gx:` extensions) means for gpx2fix; fed by
/// `XMLStreamParser`.
///
/// ```
/// Placemark[name]/gx:Track: when*, gx:coord*           → fixes ("lon lat [alt]"), paired in order
/// Placemark[name]/gx:MultiTrack/gx:Track ...          → one seg per gx:Track
/// Placemark[name]/LineString/coordinates              → fixes without time ("lon,lat[,alt] ...")
/// Placemark[name]/MultiGeometry/LineString ...        → one seg per LineString
/// Placemark[name][TimeStamp/when]/Point/coordinates   → a waypoint, named after the placemark
/// ```
/// `trace` is the placemark's `<name>` (which must come before its geometry, as it does in
/// every producer we know), else the file's name; `seg` counts the placemark's tracks and
/// line strings from 0. The i-th `<when>` of a track goes with its i-th `<gx:coord>`, whatever
/// order they come in (Google Earth writes every `when` first, OpenTracks interleaves them);
/// an empty `<gx:coord/>` (OpenTracks' pause) consumes its time and gives no fix. Until its
/// partner arrives, a `when` or a coordinate waits in memory: a track written all times first
/// holds its times (16 bytes each), not the document. Coordinate lists are parsed as their
/// text arrives, so a LineString of any length takes constant memory. Per-point
/// `ExtendedData` arrays (`gx:SimpleArrayData`: heart rate, cadence) are not read: they come
/// after all of a track's points. Elements are matched by local name, so KML 2.3's unprefixed
/// `Track` reads as `gx:Track` does.
struct KMLDocument: XMLVocabulary {
    enum Name: UInt8 {
        case root, placemark, placemarkName, point, lineString, coordinates, track, when, coord, timeStamp, stampWhen
        case other
    }

    let fileName: String?
    private var stack: [Name] = []
    private var text = ElementText()
    private var captureDepth = 0
    private var line = 0

    private var inPlacemark = false
    private var placemarkName: String?
    private var placemarkTime: Timestamp?
    private var point: Fix?
    private var seg = -1
    /// Pairing a track's times and coordinates: what waits for its partner.
    private var whens: [Timestamp?] = []
    private var coords: [Fix?] = []
    private var whenIndex = 0
    private var coordIndex = 0
    private var trackLine = 0

    /// A `coordinates` list being parsed as it arrives: the tuple so far.
    private var tuple: [UInt8] = []
    private var coordinatesOf: Name = .other
    private var tupleProblemReported = false

    init(fileName: String?) {
        self.fileName = fileName
        stack.reserveCapacity(16)
    }

    var depth: Int { stack.count }
    var capturing: Bool { captureDepth != 0 }

    mutating func start(
        // SAFETY: `name` and `uri` are libxml2's NUL-terminated strings, valid until this callback
        // returns; read up to their NUL, not kept.
        name: UnsafePointer<UInt8>, uri: UnsafePointer<UInt8>?, line: Int,
        attribute: XMLAttributes, sink: FixSink
    ) throws {
        self.line = line
        if stack.isEmpty, !xmlNameIs(name, "kml") {
            try sink.problem(
                line: line, "not a KML file: the root element is <\(String(cString: name))>, expected <kml>")
        }
        let element = classify(name)
        switch element {
        case .placemark:
            inPlacemark = true
            placemarkName = nil
            placemarkTime = nil
            point = nil
            seg = -1
        case .track:
            seg += 1
            whens.removeAll(keepingCapacity: true)
            coords.removeAll(keepingCapacity: true)
            whenIndex = 0
            coordIndex = 0
            trackLine = line
        case .lineString:
            seg += 1
        case .coordinates:
            coordinatesOf = stack.last == .point ? .point : .lineString
            tuple.removeAll(keepingCapacity: true)
            tupleProblemReported = false
            captureDepth = stack.count + 1
        case .placemarkName, .when, .coord, .stampWhen:
            captureDepth = stack.count + 1
            text.reset()
        default: break
        }
        stack.append(element)
    }

    // SAFETY: `p` is libxml2's NUL-terminated name, valid during the callback; each comparison
    // stops at its NUL.
    private func classify(_ p: UnsafePointer<UInt8>) -> Name {
        guard let parent = stack.last else { return .root }
        switch parent {
        case .placemark:
            if xmlNameIs(p, "name") { return .placemarkName }
            if xmlNameIs(p, "Point") { return .point }
            if xmlNameIs(p, "LineString") { return .lineString }
            if xmlNameIs(p, "Track") { return .track }
            if xmlNameIs(p, "TimeStamp") { return .timeStamp }
        case .point, .lineString:
            if xmlNameIs(p, "coordinates") { return .coordinates }
        case .track:
            if xmlNameIs(p, "when") { return .when }
            if xmlNameIs(p, "coord") { return .coord }
        case .timeStamp:
            if xmlNameIs(p, "when") { return .stampWhen }
        case .other:
            // MultiGeometry and MultiTrack hold line strings and tracks at any depth.
            if inPlacemark {
                if xmlNameIs(p, "LineString") { return .lineString }
                if xmlNameIs(p, "Track") { return .track }
                if xmlNameIs(p, "Point"), !stack.contains(.point) { return .point }
            }
        default:
            break
        }
        if !inPlacemark, xmlNameIs(p, "Placemark") { return .placemark }
        return .other
    }

    // SAFETY: libxml2's text, valid during this callback only; copied.
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>, sink: FixSink) throws {
        guard stack.last == .coordinates else {
            text.append(bytes)
            return
        }
        // Tuples are separated by white space; a tuple is "lon,lat[,alt]".
        for b in bytes {
            if isXMLSpace(b) {
                if !tuple.isEmpty { try endTuple(sink: sink) }
            } else if tuple.count < 256 {
                tuple.append(b)
            }
        }
    }

    mutating func end(line: Int, sink: FixSink) throws {
        self.line = line
        guard let element = stack.popLast() else { return }
        if captureDepth == stack.count + 1 {
            captureDepth = 0
            if element != .coordinates {  // its text is read as it comes, not kept
                let tag = element == .placemarkName ? "name" : element == .coord ? "gx:coord" : "when"
                try text.reportCut(tag, line: line, sink: sink)
            }
        }
        switch element {
        case .placemarkName:
            let value = text.trimmed
            if !value.isEmpty, placemarkName == nil { placemarkName = value }
        case .stampWhen:
            if !text.isBlank {
                guard let t = text.timestamp else {
                    try sink.problem(line: line, "<when>\(text.shown)</when> is not an ISO 8601 time; time left out")
                    return
                }
                placemarkTime = t
            }
        case .when:
            var t: Timestamp?
            if !text.isBlank {
                t = text.timestamp
                if t == nil {
                    try sink.problem(
                        line: line, "<when>\(text.shown)</when> is not an ISO 8601 time; its point has no time")
                }
            }
            whens.append(t)
            try pair(sink: sink)
        case .coord:
            coords.append(try coordinate(text.bytes[...], separator: 0x20, line: line, sink: sink))
            try pair(sink: sink)
        case .coordinates:
            if !tuple.isEmpty { try endTuple(sink: sink) }
        case .track:
            let times = whens.count - whenIndex
            let places = coords.count - coordIndex
            if places > 0 {
                // Coordinates with no time of their own are still positions: written without time.
                while coordIndex < coords.count {
                    if var fix = coords[coordIndex] { try emitTrack(&fix, sink: sink) }
                    coordIndex += 1
                }
            }
            if times > 0 || places > 0 {
                try sink.problem(
                    line: trackLine,
                    "<gx:Track> has \(whenIndex + times) <when> and \(coordIndex) <gx:coord> elements; "
                        + (places > 0
                            ? "\(places) coordinates written without time"
                            : "\(times) times without coordinates ignored"))
            }
            whens.removeAll(keepingCapacity: true)
            coords.removeAll(keepingCapacity: true)
        case .placemark:
            inPlacemark = false
            if var fix = point {
                fix.name = placemarkName
                fix.time = placemarkTime
                fix.trace = fileName
                try sink.emit(&fix, kind: .waypoint)
            }
            point = nil
        default: break
        }
    }

    /// Writes the fixes whose time and coordinates have both arrived.
    private mutating func pair(sink: FixSink) throws {
        while whenIndex < whens.count, coordIndex < coords.count {
            if var fix = coords[coordIndex] {
                fix.time = whens[whenIndex]
                try emitTrack(&fix, sink: sink)
            }
            whenIndex += 1
            coordIndex += 1
        }
        if whenIndex == whens.count, coordIndex == coords.count {
            whens.removeAll(keepingCapacity: true)
            coords.removeAll(keepingCapacity: true)
            whenIndex = 0
            coordIndex = 0
        }
    }

    private mutating func emitTrack(_ fix: inout Fix, sink: FixSink) throws {
        fix.trace = placemarkName ?? fileName
        if seg >= 0 { fix.seg = seg }
        try sink.emit(&fix, kind: .track)
    }

    private mutating func endTuple(sink: FixSink) throws {
        defer { tuple.removeAll(keepingCapacity: true) }
        guard var fix = try coordinate(tuple[...], separator: UInt8(ascii: ","), line: line, sink: sink) else { return }
        if coordinatesOf == .point {
            if point == nil { point = fix }
        } else {
            try emitTrack(&fix, sink: sink)
        }
    }

    /// "lon lat [alt]" (gx:coord) or "lon,lat[,alt]" (coordinates); nil for an empty one and,
    /// with a problem reported, for a bad one.
    private mutating func coordinate(
        _ bytes: ArraySlice<UInt8>, separator: UInt8, line: Int, sink: FixSink
    ) throws -> Fix? {
        var parts: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i <= bytes.endIndex {
            let atEnd = i == bytes.endIndex
            if atEnd || bytes[i] == separator || (separator == 0x20 && isXMLSpace(bytes[i])) {
                if i > start { parts.append(bytes[start..<i]) }
                start = i + 1
            }
            if atEnd { break }
            i += 1
        }
        if parts.isEmpty { return nil }
        let values = parts.prefix(3).map { p in
            // SAFETY: each part's array, lent to the parser for the closure only.
            p.withUnsafeBufferPointer { DecimalNumber.parse($0, trimmingXMLSpace: true) }
        }
        let shown = escapedForMessage(bytes.prefix(60))
        guard parts.count >= 2, parts.count <= 3, let lon = values[0], let lat = values[1],
            parts.count < 3 || values[2] != nil
        else {
            try sink.problem(
                line: line,
                "coordinates \"\(shown)\" are not longitude, latitude and an optional altitude; point skipped")
            return nil
        }
        guard lat >= -90, lat <= 90, lon >= -180, lon <= 180 else {
            try sink.problem(
                line: line,
                "coordinates \"\(shown)\" are out of range (longitude -180 to 180, latitude -90 to 90); point skipped")
            return nil
        }
        var fix = Fix(lat: lat, lon: lon)
        if parts.count == 3 { fix.alt = values[2] }
        return fix
    }
}
