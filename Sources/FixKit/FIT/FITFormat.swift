/// Garmin's FIT activity files (Garmin, Wahoo, Bryton, COROS, Zwift, Strava's app): `record`
/// messages become fixes (see `FITRecordReader`), read by `FITDecoder`. `trace` is the
/// file's name.
struct FITFormat: InputFormat {
    static let name = "fit"
    static let summary =
        "Garmin FIT activity files: record messages, timer stops as segments, chained files (Garmin, Wahoo, COROS, Zwift, ...)"

    /// A FIT header: byte 0 is the header's size, 12 or 14, and bytes 8-11 are ".FIT".
    static func recognize(_ head: InputHead) -> Recognition {
        guard let first = head.bytes.first else { return head.undecided }
        guard first == 12 || first == 14 else { return .no }
        guard head.bytes.count >= 12 else { return head.undecided }
        return head.bytes[8..<12].elementsEqual(".FIT".utf8) ? .yes : .no
    }

    let settings: ReaderSettings

    init(settings: ReaderSettings) { self.settings = settings }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        var decoder = FITDecoder(source: source)
        var records = FITRecordReader(sink: sink, trace: settings.fileName)
        defer {
            if decoder.harmlessMisfitCount > 0 {
                let n = decoder.harmlessMisfitCount
                sink.note(
                    "\(n) definition message\(n == 1 ? " gives" : "s give") a field a size that does not fit its base type (\(decoder.harmlessMisfits.joined(separator: "; "))\(n > decoder.harmlessMisfits.count ? "; ..." : "")): those fields are left out; gpx2fix reads none of them"
                )
            }
            if records.deviceTime > 0 {
                sink.note(
                    "\(records.deviceTime) fix\(records.deviceTime == 1 ? " has" : "es have") a timestamp below 0x10000000, which counts seconds since the device started, not UTC: written without time"
                )
            }
            if records.fixes == 0, records.records > 0 {
                sink.note(
                    "none of its \(records.records) record messages has a position (position_lat and position_long): no fixes"
                )
            }
        }
        try decoder.run(&records, sink: sink)
        if !decoder.deferred.isEmpty {
            // After everything readable has been written.
            try sink.output.flush()
            for message in decoder.deferred { try sink.problem(line: nil, message) }
        }
    }
}
