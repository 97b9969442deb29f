/// KML (Google Earth, phones' exports): tracks, line strings and placemarks. What each element
/// means is in `KMLDocument`.
struct KMLFormat: XMLFormat {
    static let name = "kml"
    static let summary =
        "KML 2.2: gx:Track and gx:MultiTrack, LineString and Point placemarks (Google Earth, OpenTracks)"
    static let rootName = "kml"

    static func vocabulary(_ settings: ReaderSettings) -> KMLDocument { KMLDocument(fileName: settings.fileName) }

    let settings: ReaderSettings
    init(settings: ReaderSettings) { self.settings = settings }
}
