/// GPX 1.0 and 1.1 (Topografix): tracks, routes and waypoints. What each element means is in
/// `GPXDocument`; the XML itself is read by `XMLPushParser`.
struct GPXFormat: InputFormat {
    static let name = "gpx"
    static let summary = "GPX 1.0 and 1.1: tracks, routes and waypoints (Garmin, Strava, Komoot, Xcode, ...)"

    /// Any XML that another XML format has not claimed by its root element: a GPX file's root
    /// may come after a long prologue, and a file that is not GPX after all is best told so
    /// by the GPX reader ("the root element is <x>, expected <gpx>"). A UTF-16 byte order
    /// mark is XML too: libxml2 reads it.
    static func recognize(_ head: InputHead) -> Recognition {
        guard let first = head.bytes.first else { return head.undecided }
        if first == UInt8(ascii: "<") { return .yes }
        if head.bytes.count >= 2, (first == 0xFF && head.bytes[1] == 0xFE) || (first == 0xFE && head.bytes[1] == 0xFF) {
            return .yes
        }
        if head.bytes.count < 2, first == 0xFF || first == 0xFE { return head.undecided }
        return .no
    }

    let settings: ReaderSettings

    init(settings: ReaderSettings) { self.settings = settings }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        try XMLPushParser.parse(
            source, vocabulary: GPXDocument(fileName: settings.fileName, uere: settings.uere), sink: sink)
    }
}
