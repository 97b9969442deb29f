/// GPX 1.0 and 1.1 (Topografix): tracks, routes and waypoints. What each element means is in
/// `GPXDocument`.
struct GPXFormat: XMLFormat {
    static let name = "gpx"
    static let summary = "GPX 1.0 and 1.1: tracks, routes and waypoints (Garmin, Strava, Komoot, Xcode, ...)"
    static let rootName = "gpx"

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

    static func vocabulary(_ settings: ReaderSettings) -> GPXDocument {
        GPXDocument(fileName: settings.fileName, uere: settings.uere)
    }

    let settings: ReaderSettings
    init(settings: ReaderSettings) { self.settings = settings }
}
