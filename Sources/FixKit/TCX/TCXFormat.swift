/// Garmin Training Center XML (TCX): activities and courses. What each element means is in
/// `TCXDocument`.
struct TCXFormat: XMLFormat {
    static let name = "tcx"
    static let summary =
        "Garmin Training Center XML: activities (laps, tracks) and courses (Garmin Connect, Strava exports)"
    static let rootName = "TrainingCenterDatabase"

    static func vocabulary(_ settings: ReaderSettings) -> TCXDocument { TCXDocument(fileName: settings.fileName) }

    let settings: ReaderSettings
    init(settings: ReaderSettings) { self.settings = settings }
}
