/// KML (Google Earth, phones' exports): tracks, line strings and placemarks. What each element
/// means is in `KMLDocument`; the XML itself is read by `XMLPushParser`.
struct KMLFormat: InputFormat {
    static let name = "kml"
    static let summary =
        "KML 2.2: gx:Track and gx:MultiTrack, LineString and Point placemarks (Google Earth, OpenTracks)"

    /// An XML document whose root element is `kml`.
    static func recognize(_ head: InputHead) -> Recognition {
        XMLRoot.recognize(head, localName: "kml")
    }

    let settings: ReaderSettings

    init(settings: ReaderSettings) { self.settings = settings }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        try XMLPushParser.parse(source, vocabulary: KMLDocument(fileName: settings.fileName), sink: sink)
    }
}
