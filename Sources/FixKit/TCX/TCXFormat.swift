/// Garmin Training Center XML (TCX): activities and courses. What each element means is in
/// `TCXDocument`; the XML itself is read by `XMLPushParser`.
struct TCXFormat: InputFormat {
    static let name = "tcx"
    static let summary =
        "Garmin Training Center XML: activities (laps, tracks) and courses (Garmin Connect, Strava exports)"

    /// An XML document whose root element is `TrainingCenterDatabase`.
    static func recognize(_ head: InputHead) -> Recognition {
        XMLRoot.recognize(head, localName: "TrainingCenterDatabase")
    }

    let settings: ReaderSettings

    init(settings: ReaderSettings) { self.settings = settings }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        try XMLPushParser.parse(source, vocabulary: TCXDocument(fileName: settings.fileName), sink: sink)
    }
}
