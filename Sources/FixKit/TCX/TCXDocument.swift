/// What a Garmin Training Center XML (TCX v2) document means, element by element; fed by
/// `XMLStreamParser`.
///
/// ```
/// TrainingCenterDatabase
///   Activities/Activity/Lap/Track/Trackpoint      → fixes, trace: the file's name
///   Courses/Course[Name]/Track/Trackpoint         → fixes, trace: the course's <Name>
///   Courses/Course/CoursePoint[Name]              → waypoints
/// Trackpoint: Time, Position/LatitudeDegrees, Position/LongitudeDegrees, AltitudeMeters,
///             Extensions/TPX/Speed (ActivityExtension v2, m/s)
/// ```
/// Each `<Track>` is one `seg`, counted from 0 within its trace (a lap or a pause starts a new
/// track in Garmin's files). A Trackpoint without a Position (heart rate or cadence only,
/// common indoors and while the receiver has no fix) gives no fix and is not a problem.
/// Elements are matched by local name: TCX files come with the v2 namespace, with none, and
/// with the extension in several prefixes. Like GPX, a course's `<Name>` must come before its
/// tracks (as the schema orders it) to name them.
struct TCXDocument: XMLVocabulary {
    enum Name: UInt8 {
        case root, activity, course, courseName, lap, track, trackpoint, coursePoint, time, position, lat, lon
        case alt, extensions, speed, pointName, other
    }

    let fileName: String?
    private var stack: [Name] = []
    private var text = ElementText()
    private var capture: Name?
    private var captureDepth = 0

    private var courseName: String?
    private var inCourse = false
    private var inActivity = false
    /// Elements open inside a point's `<Extensions>`, the element itself included.
    private var inExtensions = 0
    private var seg = -1
    private var activitySeg = -1
    private var fix = Fix(lat: 0, lon: 0)
    private var lat: Double?
    private var lon: Double?
    private var pointLine = 0
    private var badPoint = false

    init(fileName: String?) {
        self.fileName = fileName
        stack.reserveCapacity(16)
    }

    var depth: Int { stack.count }
    var capturing: Bool { captureDepth != 0 }

    private var parent: Name? { stack.last }

    mutating func start(
        // SAFETY: `name` and `uri` are libxml2's NUL-terminated strings, valid until this callback
        // returns; read up to their NUL, not kept.
        name: UnsafePointer<UInt8>, uri: UnsafePointer<UInt8>?, line: Int,
        attribute: XMLAttributes, sink: FixSink
    ) throws {
        let element = classify(name)
        if stack.isEmpty, element != .root {
            try sink.problem(
                line: line,
                "not a TCX file: the root element is <\(String(cString: name))>, expected <TrainingCenterDatabase>")
        }
        switch element {
        case .course:
            inCourse = true
            courseName = nil
            seg = -1
        case .activity:
            inCourse = false
            inActivity = true
        case .track:
            if inCourse {
                seg += 1
            } else {
                activitySeg += 1
            }
        case .trackpoint, .coursePoint:
            fix = Fix(lat: 0, lon: 0)
            lat = nil
            lon = nil
            badPoint = false
            pointLine = line
        case .courseName, .time, .lat, .lon, .alt, .speed, .pointName:
            capture = element
            captureDepth = stack.count + 1
            text.reset()
        default: break
        }
        if element == .extensions || inExtensions > 0 { inExtensions += 1 }
        stack.append(element)
    }

    /// What an element is, from its name and where it stands.
    // SAFETY: `p` is libxml2's NUL-terminated name, valid during the callback; each comparison
    // stops at its NUL.
    private func classify(_ p: UnsafePointer<UInt8>) -> Name {
        guard let parent else { return xmlNameIs(p, "TrainingCenterDatabase") ? .root : .other }
        switch parent {
        case .trackpoint:
            if xmlNameIs(p, "Time") { return .time }
            if xmlNameIs(p, "Position") { return .position }
            if xmlNameIs(p, "AltitudeMeters") { return .alt }
            if xmlNameIs(p, "Extensions") { return .extensions }
        case .coursePoint:
            if xmlNameIs(p, "Time") { return .time }
            if xmlNameIs(p, "Position") { return .position }
            if xmlNameIs(p, "AltitudeMeters") { return .alt }
            if xmlNameIs(p, "Name") { return .pointName }
        case .position:
            if xmlNameIs(p, "LatitudeDegrees") { return .lat }
            if xmlNameIs(p, "LongitudeDegrees") { return .lon }
        case .track:
            if xmlNameIs(p, "Trackpoint") { return .trackpoint }
        case .lap:
            if xmlNameIs(p, "Track") { return .track }
        case .activity:
            if xmlNameIs(p, "Lap") { return .lap }
        case .course:
            if xmlNameIs(p, "Name") { return .courseName }
            if xmlNameIs(p, "Track") { return .track }
            if xmlNameIs(p, "CoursePoint") { return .coursePoint }
        case .extensions, .other:
            // Garmin's ActivityExtension: <TPX><Speed>, at any depth inside a point's <Extensions>.
            if inExtensions > 0 {
                return xmlNameIs(p, "Speed") ? .speed : .other
            }
            // Activities/Activity, and MultiSportSession/FirstSport/Activity deeper down.
            if !inActivity, !inCourse {
                if xmlNameIs(p, "Activity") { return .activity }
                if xmlNameIs(p, "Course") { return .course }
            }
        default:
            break
        }
        return .other
    }

    // SAFETY: libxml2's text, valid during this callback only; copied.
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>, sink: FixSink) {
        text.append(bytes)
    }

    mutating func end(line: Int, sink: FixSink) throws {
        guard let element = stack.popLast() else { return }
        if inExtensions > 0 { inExtensions -= 1 }
        if captureDepth == stack.count + 1 {
            captureDepth = 0
            try endCapture(element, line: line, sink: sink)
            return
        }
        switch element {
        case .trackpoint, .coursePoint:
            guard let lat, let lon, !badPoint else {
                if !badPoint, (lat == nil) != (lon == nil) {
                    try sink.problem(
                        line: pointLine,
                        "<\(element == .trackpoint ? "Trackpoint" : "CoursePoint")> has a Position with only one coordinate; point skipped"
                    )
                }
                return
            }
            fix.lat = lat
            fix.lon = lon
            if element == .trackpoint {
                fix.trace = inCourse ? (courseName ?? fileName) : fileName
                let s = inCourse ? seg : activitySeg
                if s >= 0 { fix.seg = s }
                try sink.emit(&fix, kind: .track)
            } else {
                fix.trace = courseName ?? fileName
                try sink.emit(&fix, kind: .waypoint)
            }
        case .course:
            inCourse = false
            courseName = nil
        case .activity:
            inActivity = false
        default: break
        }
    }

    /// The tag of a captured element, for a message.
    private static func tagName(_ element: Name) -> String {
        switch element {
        case .courseName, .pointName: return "Name"
        case .time: return "Time"
        case .lat: return "LatitudeDegrees"
        case .lon: return "LongitudeDegrees"
        case .alt: return "AltitudeMeters"
        case .speed: return "Speed"
        default: return "\(element)"
        }
    }

    private mutating func endCapture(_ element: Name, line: Int, sink: FixSink) throws {
        try text.reportCut(TCXDocument.tagName(element), line: line, sink: sink)
        if element == .courseName || element == .pointName {
            let value = text.trimmed
            guard !value.isEmpty else { return }
            if element == .courseName {
                if courseName == nil { courseName = value }
            } else {
                fix.name = value
            }
            return
        }
        if text.isBlank { return }
        if element == .time {
            guard let t = text.timestamp else {
                try sink.problem(
                    line: line,
                    "<Time>\(text.shown)</Time> is not an ISO 8601 time such as 2026-01-01T09:00:00Z; time left out")
                return
            }
            fix.time = t
            return
        }
        let tag: String
        switch element {
        case .lat: tag = "LatitudeDegrees"
        case .lon: tag = "LongitudeDegrees"
        case .alt: tag = "AltitudeMeters"
        default: tag = "Speed"
        }
        guard let v = text.number else {
            if element == .lat || element == .lon {
                badPoint = true
                try sink.problem(line: line, "<\(tag)>\(text.shown)</\(tag)> is not a number of degrees; point skipped")
            } else {
                try sink.problem(line: line, "<\(tag)>\(text.shown)</\(tag)> is not a number; left out")
            }
            return
        }
        switch element {
        case .lat, .lon:
            let limit: Double = element == .lat ? 90 : 180
            guard v >= -limit, v <= limit else {
                badPoint = true
                try sink.problem(
                    line: line,
                    "<\(tag)>\(text.shown)</\(tag)> is out of range (expected -\(Int(limit)) to \(Int(limit))); point skipped"
                )
                return
            }
            if element == .lat { lat = v } else { lon = v }
        case .alt: fix.alt = v
        default: if v >= 0 { fix.speed = v }
        }
    }
}
