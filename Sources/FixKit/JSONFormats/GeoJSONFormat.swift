/// GeoJSON (RFC 7946) location logs and tracks, streamed feature by feature: a
/// FeatureCollection (`features[*]`), Overland's batches (`{"locations":[Feature, ...]}`), a
/// root array of Features, or a single Feature.
///
/// - A `Point` feature is a fix: `coordinates` `[lon, lat, alt]`, and its properties as the
///   producers write them (`GeoJSONProperties`). One with a time is a track fix; one without
///   is a waypoint (a place, as GPX's `<wpt>`).
/// - A `LineString` is a track segment, a `MultiLineString` a track of segments: one fix per
///   position, timed by `properties.coordTimes` (togeojson, GPSBabel) or
///   `properties.coordinateProperties.times` (newer togeojson), one time per position (an
///   array of arrays for a MultiLineString). The trace is `properties.name`, else the file's
///   name; `seg` counts the segments of one trace within the file, from 0.
/// - What `fix2gpx --geojson` writes (its collection carries `"generator": "fix2gpx ..."`) is
///   read back exactly: each fix's fields and unknown members under their own names, checked
///   by `FixDecoder` as a fix record is.
/// - Features without geometry (Overland's `will_terminate`), or with another geometry, are
///   not fixes: counted in a note.
struct GeoJSONFormat: InputFormat {
    static let name = "geojson"
    static let summary =
        "GeoJSON: Point features with times (Overland, GPSLogger), LineStrings with coordTimes (togeojson), fix2gpx --geojson"

    static func recognize(_ head: InputHead) -> Recognition {
        switch JSONShape.of(head) {
        case .geojson: return .yes
        case .needMore: return .needMore
        default: return .no
        }
    }

    let settings: ReaderSettings

    init(settings: ReaderSettings) { self.settings = settings }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        var reader = JSONStreamReader(source)
        var handler = GeoJSONHandler(sink: sink, fileName: settings.fileName)
        try reader.read(&handler)
        if !handler.skipped.isEmpty {
            let parts = handler.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            sink.note("features that are not fixes skipped: \(parts.joined(separator: ", "))")
        }
    }
}

struct GeoJSONHandler: JSONStreamHandler {
    let sink: FixSink
    let fileName: String?
    /// Whether the collection is fix2gpx's own.
    var ours = false
    /// A single Feature's members, kept until its root object ends.
    var rootMembers: [String: (bytes: [UInt8], line: Int)] = [:]
    /// Features skipped, by what they were.
    var skipped: [String: Int] = [:]
    /// The next `seg` of each trace the file's lines have given.
    var nextSeg: [String: Int] = [:]
    var decoder = FixDecoder()

    init(sink: FixSink, fileName: String?) {
        self.sink = sink
        self.fileName = fileName
    }

    func action(forMember key: String) -> JSONMemberAction {
        switch key {
        case "features", "locations": return .elements
        case "generator", "type", "geometry", "properties": return .value
        default: return .skip
        }
    }

    mutating func problem(line: Int, _ message: String) throws {
        try sink.problem(line: line, message)
    }

    // SAFETY: `bytes` is the stream reader's window, valid during this call only: what is kept is
    // copied (`Array(bytes)`).
    mutating func value(_ bytes: UnsafeBufferPointer<UInt8>, of key: String?, line: Int) throws {
        guard let key else { return }
        if key == "generator" {
            ours = bytes.starts(with: #""fix2gpx "#.utf8)
            return
        }
        rootMembers[key] = (Array(bytes), line)
    }

    /// A document that is one Feature.
    mutating func endOfRoot() throws {
        guard let type = rootMembers["type"], type.bytes.elementsEqual(#""Feature""#.utf8) else { return }
        let geometry = rootMembers["geometry"] ?? (Array("null".utf8), type.line)
        let properties = rootMembers["properties"] ?? (Array("null".utf8), type.line)
        let sink = self.sink
        let report: (Int, String) throws -> Void = { try sink.problem(line: $0, $1) }
        // SAFETY: the kept members' arrays, lent for the nested closures only; the elements parsed
        // from them are used inside.
        try geometry.bytes.withUnsafeBufferPointer { gb in
            // SAFETY: as above.
            try properties.bytes.withUnsafeBufferPointer { pb in
                guard
                    let g = try JSONElement.parse(
                        gb, line: geometry.line, what: "the feature's geometry", problem: report),
                    let p = try JSONElement.parse(
                        pb, line: properties.line, what: "the feature's properties", problem: report)
                else { return }
                try feature(geometry: g.root.kind == .null ? nil : g, properties: p, line: type.line)
            }
        }
    }

    // SAFETY: `bytes` is the stream reader's window, valid during this call only; the element
    // parsed from it is used inside the call.
    mutating func element(_ bytes: UnsafeBufferPointer<UInt8>, of key: String?, line: Int) throws {
        guard
            let e = try JSONElement.parse(
                bytes, line: line, what: "a feature", problem: { try sink.problem(line: $0, $1) })
        else {
            return
        }
        guard e.root.kind == .object else {
            try sink.problem(line: line, "a feature must be a JSON object, found \(e.shown(e.root)); skipped")
            return
        }
        let g = e.root["geometry"].map { JSONElement(bytes: e.bytes, root: $0, line: e.line) }
        let p = e.root["properties"].map { JSONElement(bytes: e.bytes, root: $0, line: e.line) }
        try feature(geometry: g, properties: p, line: line)
    }

    private mutating func feature(geometry g: JSONElement?, properties p: JSONElement?, line: Int) throws {
        let props = p?.root.kind == .object ? p : nil
        guard let g, g.root.kind == .object, let type = g.string(g.root["type"]) else {
            skipped["without geometry", default: 0] += 1
            return
        }
        let coordinates = g.root["coordinates"]
        switch type {
        case "Point":
            guard let c = coordinates, let position = try position(g, c) else { return }
            if ours {
                try ownFix(position, g, c, props, index: nil)
            } else {
                let properties = GeoJSONProperties(props)
                var fix = properties.pointFix(position, fileName: fileName)
                let kind: PointKind = fix.time == nil ? .waypoint : .track
                try sink.emit(&fix, kind: kind)
            }
        case "LineString":
            guard let c = coordinates, c.kind == .array else { return try badCoordinates(g, line) }
            if ours {
                for (i, item) in c.items.enumerated() {
                    guard let position = try position(g, item) else { continue }
                    try ownFix(position, g, item, props, index: i)
                }
            } else {
                try lines([c], times: GeoJSONProperties(props).times.map { [$0] }, g, props, line: line)
            }
        case "MultiLineString":
            guard let c = coordinates, c.kind == .array, c.items.allSatisfy({ $0.kind == .array }) else {
                return try badCoordinates(g, line)
            }
            let times = GeoJSONProperties(props).times
            guard times?.node.items.allSatisfy({ $0.kind == .array }) ?? true else {
                try sink.problem(line: line, "a MultiLineString's times must be one array per line; feature skipped")
                return
            }
            try lines(c.items, times: times.map { t in t.node.items.map { (t.element, $0) } }, g, props, line: line)
        default:
            skipped[type, default: 0] += 1
        }
    }

    private func badCoordinates(_ g: JSONElement, _ line: Int) throws {
        try sink.problem(line: line, "a line's coordinates must be an array of positions; feature skipped")
    }

    /// `[lon, lat]` or `[lon, lat, alt]` (numbers, or numbers in strings as Dawarich writes them).
    private func position(_ g: JSONElement, _ node: JSONNode) throws -> (lat: Double, lon: Double, alt: Double?)? {
        guard node.kind == .array, node.items.count >= 2, let lon = g.looseNumber(node.items[0]),
            let lat = g.looseNumber(node.items[1])
        else {
            try sink.problem(
                line: g.line(of: node),
                "a position must be [longitude, latitude], found \(g.shown(node)); point skipped")
            return nil
        }
        guard lat >= -90, lat <= 90, lon >= -180, lon <= 180 else {
            try sink.problem(
                line: g.line(of: node),
                "position [\(DecimalNumber.text(lon)), \(DecimalNumber.text(lat))] is out of range: expected [longitude in [-180, 180], latitude in [-90, 90]]; point skipped"
            )
            return nil
        }
        return (lat, lon, node.items.count >= 3 ? g.looseNumber(node.items[2]) : nil)
    }

    /// The lines of one feature: each a segment of the feature's trace.
    private mutating func lines(
        _ lines: [JSONNode], times: [(element: JSONElement, node: JSONNode)]?, _ g: JSONElement, _ props: JSONElement?,
        line: Int
    ) throws {
        if let times {
            for (k, l) in lines.enumerated() where times[k].node.items.count != l.items.count {
                try sink.problem(
                    line: line,
                    "a line has \(l.items.count) positions but \(times[k].node.items.count) times (coordTimes); feature skipped"
                )
                return
            }
        }
        let name = props.flatMap { $0.string($0.root["name"]) }.flatMap { $0.isEmpty ? nil : $0 }
        let trace = name ?? fileName
        let key = trace ?? ""
        for (k, l) in lines.enumerated() {
            let seg = nextSeg[key, default: 0]
            nextSeg[key] = seg + 1
            for (i, item) in l.items.enumerated() {
                guard let p = try position(g, item) else { continue }
                var fix = Fix(lat: p.lat, lon: p.lon, alt: p.alt, trace: trace, seg: seg)
                if let times {
                    let t = times[k].node.items[i]
                    fix.time = times[k].element.time(t)
                    if fix.time == nil, t.kind != .null {
                        try sink.problem(
                            line: times[k].element.line(of: t),
                            "time \(times[k].element.shown(t)) is not an RFC 3339 time; point skipped")
                        continue
                    }
                }
                try sink.emit(&fix)
            }
        }
    }

    /// A fix of fix2gpx's own collection: its members under their own names (per position in
    /// a LineString, `coordTimes` as `time`), read as a fix record is.
    private mutating func ownFix(
        _ position: (lat: Double, lon: Double, alt: Double?), _ g: JSONElement, _ node: JSONNode, _ props: JSONElement?,
        index: Int?
    ) throws {
        var line: [UInt8] = Array(#"{"lat":"#.utf8)
        line.append(contentsOf: g.raw(node.items[1]))
        line.append(contentsOf: #","lon":"#.utf8)
        line.append(contentsOf: g.raw(node.items[0]))
        if node.items.count >= 3 {
            line.append(contentsOf: #","alt":"#.utf8)
            line.append(contentsOf: g.raw(node.items[2]))
        }
        if let props {
            for m in props.root.members {
                let (key, value) = (m.key, m.value)
                var v = value
                if let index {
                    // Scalars (trace, seg) hold for every position; arrays have one value each.
                    if value.kind == .array {
                        guard index < value.items.count else { continue }
                        v = value.items[index]
                    }
                }
                if v.kind == .null && index != nil { continue }
                line.append(JSONByte.comma)
                writeString(key == "coordTimes" && index != nil ? "time" : key, into: &line)
                line.append(JSONByte.colon)
                line.append(contentsOf: props.raw(v))
            }
        }
        line.append(JSONByte.closeBrace)
        // SAFETY: the line's array, lent to the decoder for the closure only.
        let decoded = line.withUnsafeBufferPointer { buf in
            Result { () throws(FixDecodingError) in try decoder.decode(buf) }
        }
        switch decoded {
        case .success(var fix): try sink.emit(&fix)
        case .failure(let error):
            try sink.problem(line: g.line(of: node), "a fix of fix2gpx's GeoJSON: \(error.message); skipped")
        }
    }
}
