/// Google location history, in its three shapes, streamed element by element whatever the
/// file's size (`JSONStreamReader`):
///
/// - `Records.json` (Takeout, raw): `{"locations":[...]}`; every location with coordinates is a
///   fix (see `RecordsLocationDecoder`).
/// - Semantic Location History months (`2013_MAY.json`): `{"timelineObjects":[...]}`.
///   An `activitySegment`'s `startLocation` (at `duration.startTimestamp`), the points of its
///   `simplifiedRawPath` (`latE7`, `lngE7`, `accuracyMeters`, `timestamp`) and its
///   `endLocation` (at `duration.endTimestamp`) are track fixes: positions with times. Its
///   `waypointPath` is not: those are points snapped to roads, without times. A
///   `placeVisit`'s `location` is a waypoint (named by the place's `name`, else `address`, at
///   the visit's start): a place, as a GPX `<wpt>`, written when the file has no track fixes
///   or with `--waypoints`; the points of its `simplifiedRawPath` are track fixes.
/// - The on-device `Timeline.json` (Android; iPhone's is a root array of the same segments):
///   `semanticSegments[].timelinePath[]` points (`"point": "48.1°, 11.5°"` or
///   `"geo:48.1,11.5"`, `time` or `durationMinutesOffsetFromStartTime`) are track fixes;
///   `rawSignals[].position` (`LatLng`, `accuracyMeters`, `altitudeMeters`,
///   `speedMetersPerSecond`, `timestamp`) are track fixes of their own trace, `NAME
///   (rawSignals)`, since they overlap the timeline's path in time; a `visit`'s
///   `topCandidate.placeLocation` is a waypoint at its `startTime`, named by its
///   `semanticType` (but `UNKNOWN`). An `activity`'s `start` and `end` are not fixes: the
///   timeline path holds the positions of the same time.
struct TakeoutFormat: InputFormat {
    static let name = "takeout"
    static let summary =
        "Google location history: Records.json, Semantic Location History months, on-device Timeline.json"

    static func recognize(_ head: InputHead) -> Recognition {
        switch JSONShape.of(head) {
        case .takeout: return .yes
        case .needMore: return .needMore
        default: return .no
        }
    }

    let settings: ReaderSettings

    init(settings: ReaderSettings) { self.settings = settings }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        var reader = JSONStreamReader(source)
        var handler = TakeoutHandler(sink: sink, fileName: settings.fileName)
        try reader.read(&handler)
        if handler.untimedWaypoints > 0 {
            sink.note("\(handler.untimedWaypoints) waypointPath points have no time and are not fixes")
        }
        if handler.noPosition > 0 { sink.note("\(handler.noPosition) locations without coordinates skipped") }
    }
}

struct TakeoutHandler: JSONStreamHandler {
    let sink: FixSink
    let fileName: String?
    let records = RecordsLocationDecoder()
    var firstDevice: Int64?
    var deviceTraces: [Int64: String] = [:]
    var untimedWaypoints = 0
    var noPosition = 0

    init(sink: FixSink, fileName: String?) {
        self.sink = sink
        self.fileName = fileName
    }

    func action(forMember key: String) -> JSONMemberAction {
        switch key {
        case "locations", "timelineObjects", "semanticSegments", "rawSignals": return .elements
        default: return .skip
        }
    }

    mutating func problem(line: Int, _ message: String) throws {
        try sink.problem(line: line, message)
    }

    // SAFETY: `bytes` is the stream reader's element, valid during this call only; the decoders
    // copy what they keep.
    mutating func element(_ bytes: UnsafeBufferPointer<UInt8>, of key: String?, line: Int) throws {
        if key == "locations" {
            let outcome: RecordsLocationDecoder.Outcome
            do throws(JSONSyntaxError) {
                outcome = try records.decode(bytes)
            } catch {
                let at = JSONStreamReader.line(of: error.offset, in: bytes, from: line)
                try sink.problem(line: at, "a location of Records.json: \(error.message); skipped")
                return
            }
            switch outcome {
            case .fix(var fix, let device):
                fix.trace = trace(device)
                try sink.emit(&fix)
            case .noPosition:
                noPosition += 1
            }
            return
        }
        let what = key.map { "an element of \"\($0)\"" } ?? "a timeline segment"
        guard let e = try JSONElement.parse(bytes, line: line, what: what, problem: { try sink.problem(line: $0, $1) }) else { return }
        switch key {
        case "timelineObjects": try timelineObject(e)
        case "rawSignals": try rawSignal(e)
        default: try segment(e)
        }
    }

    private mutating func trace(_ device: Int64?) -> String? {
        guard let device else { return fileName }
        if firstDevice == nil { firstDevice = device }
        if device == firstDevice { return fileName }
        if let t = deviceTraces[device] { return t }
        let t = "\(fileName ?? "Records.json") (device \(device))"
        deviceTraces[device] = t
        return t
    }

    // MARK: Semantic Location History

    private mutating func timelineObject(_ e: JSONElement) throws {
        if let a = e.root["activitySegment"] {
            let d = a["duration"]
            try e7(e, a["startLocation"], time: e.time(d?["startTimestamp"]), kind: .track)
            try rawPath(e, a)
            try e7(e, a["endLocation"], time: e.time(d?["endTimestamp"]), kind: .track)
            untimedWaypoints += a["waypointPath"]?["waypoints"]?.items.count ?? 0
        } else if let v = e.root["placeVisit"] {
            let place = v["location"]
            let name = e.string(place?["name"]) ?? e.string(place?["address"])
            try e7(e, place, time: e.time(v["duration"]?["startTimestamp"]), kind: .waypoint, name: name)
            try rawPath(e, v)
        }
    }

    private mutating func rawPath(_ e: JSONElement, _ segment: JSONNode) throws {
        for p in segment["simplifiedRawPath"]?["points"]?.items ?? [] {
            try e7(e, p, time: e.time(p["timestamp"]) ?? e.time(p["timestampMs"]), kind: .track, hacc: e.number(p["accuracyMeters"]))
        }
    }

    /// A position in E7 members (`latitudeE7`/`longitudeE7`, or `latE7`/`lngE7`); nothing
    /// when the object has none (Google writes empty `startLocation`s).
    private mutating func e7(
        _ e: JSONElement, _ node: JSONNode?, time: Timestamp?, kind: PointKind, name: String? = nil, hacc: Double? = nil
    ) throws {
        guard let node else { return }
        guard let lat = e.number(node["latitudeE7"] ?? node["latE7"]), let lon = e.number(node["longitudeE7"] ?? node["lngE7"]) else {
            return
        }
        var fix = Fix(
            time: time, lat: RecordsLocationDecoder.unwrapE7(lat, max: 900_000_000) / 1e7,
            lon: RecordsLocationDecoder.unwrapE7(lon, max: 1_800_000_000) / 1e7, hacc: hacc, name: name, trace: fileName)
        try emit(&fix, e, node, kind)
    }

    private func emit(_ fix: inout Fix, _ e: JSONElement, _ node: JSONNode, _ kind: PointKind) throws {
        guard fix.hasValidCoordinates else {
            try sink.problem(
                line: e.line(of: node),
                "coordinates \(DecimalNumber.text(fix.lat)), \(DecimalNumber.text(fix.lon)) are out of range (expected [-90, 90] and [-180, 180]); point skipped")
            return
        }
        try sink.emit(&fix, kind: kind)
    }

    // MARK: Timeline.json

    private mutating func segment(_ e: JSONElement) throws {
        let start = e.time(e.root["startTime"])
        for p in e.root["timelinePath"]?.items ?? [] {
            var time = e.time(p["time"])
            if time == nil, let start, let minutes = e.looseNumber(p["durationMinutesOffsetFromStartTime"]) {
                time = Timestamp(milliseconds: start.milliseconds + Int64((minutes * 60_000).rounded()))
            }
            try latLng(e, p["point"], time: time, kind: .track, trace: fileName)
        }
        if let candidate = e.root["visit"]?["topCandidate"] {
            let location = candidate["placeLocation"]
            let text = location?.kind == .object ? location?["latLng"] : location
            var name = e.string(candidate["semanticType"])
            if name?.uppercased() == "UNKNOWN" { name = nil }
            try latLng(e, text, time: start, kind: .waypoint, trace: fileName, name: name)
        }
    }

    private mutating func rawSignal(_ e: JSONElement) throws {
        guard let p = e.root["position"] else { return }
        let trace = "\(fileName ?? "Timeline.json") (rawSignals)"
        try latLng(
            e, p["LatLng"] ?? p["latLng"], time: e.time(p["timestamp"]), kind: .track, trace: trace,
            alt: e.number(p["altitudeMeters"]), hacc: e.number(p["accuracyMeters"]),
            speed: e.number(p["speedMetersPerSecond"]).flatMap { $0 < 0 ? nil : $0 })
    }

    /// A position written as text: `"48.1°, 11.5°"` (Android) or `"geo:48.1,11.5"` (iPhone).
    private mutating func latLng(
        _ e: JSONElement, _ node: JSONNode?, time: Timestamp?, kind: PointKind, trace: String?, name: String? = nil,
        alt: Double? = nil, hacc: Double? = nil, speed: Double? = nil
    ) throws {
        guard let node else { return }
        guard let text = e.string(node), let (lat, lon) = TakeoutHandler.parseLatLng(text) else {
            try sink.problem(line: e.line(of: node), "a position \(e.shown(node)) is not \"LAT°, LON°\" or \"geo:LAT,LON\"; skipped")
            return
        }
        var fix = Fix(time: time, lat: lat, lon: lon, alt: alt, hacc: hacc, speed: speed, name: name, trace: trace)
        try emit(&fix, e, node, kind)
    }

    static func parseLatLng(_ text: String) -> (Double, Double)? {
        var t = Substring(text)
        if t.hasPrefix("geo:") { t = t.dropFirst(4) }
        let parts = t.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func degrees(_ s: Substring) -> Double? {
            var s = s.trimmingSpace
            if s.hasSuffix("°") { s = s.dropLast() }
            return DecimalNumber.parse(String(s))
        }
        guard let lat = degrees(parts[0]), let lon = degrees(parts[1]) else { return nil }
        return (lat, lon)
    }
}

extension Substring {
    var trimmingSpace: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
