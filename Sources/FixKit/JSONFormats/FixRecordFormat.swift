/// Our own fix records (NDJSON, SPEC "The fix record"), passed through: each line is decoded
/// and checked by `FixDecoder` as every tool reads it, and written again (unknown members kept,
/// in their order), so that `gpx2fix *` works on a folder that mixes GPS files with fixes.
/// A fix without `trace` keeps none. Blank lines are skipped; a line that is not a usable
/// fix is reported with its number, as the other tools report it.
struct FixRecordFormat: InputFormat {
    static let name = "fix"
    static let summary = "fix records (NDJSON, as gpx2fix writes them): checked and passed through"

    /// A first line that is a fix record: a JSON object with `lat` and `lon` (gpsd's reports,
    /// with `"class"`, and OwnTracks' messages, with `"_type"`, are claimed before).
    static func recognize(_ head: InputHead) -> Recognition {
        guard head.bytes.first == JSONByte.openBrace else { return .no }
        guard let line = head.firstLine else { return head.undecided }
        // SAFETY: a copy of the head's first line, lent to the decoder for the closure only.
        let decoded = Array(line).withUnsafeBufferPointer { buf in
            var decoder = FixDecoder()
            return (try? decoder.decode(buf)) != nil
        }
        return decoded ? .yes : .no
    }

    init(settings: ReaderSettings) {}

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        var decoder = FixDecoder()
        let window = ByteWindow(source)
        // Lines of up to 1 MiB, as every reader of fix records takes them (fix(5)): a longer
        // one is no fix, and is dropped without being held.
        try window.forEachLine(limit: InputReader.maxLineLength) { line, number in
            if line.allSatisfy(isXMLSpace) { return }
            var fix: Fix
            do throws(FixDecodingError) {
                fix = try decoder.decode(line)
            } catch {
                try sink.problem(line: number, error.message + "; line skipped")
                return
            }
            try sink.emit(&fix)
        } tooLong: { number in
            try sink.problem(line: number, InputReader.tooLongMessage)
        }
    }
}

/// A JSON input that no format claims: reported, naming what gpx2fix reads, instead of being
/// handed to the NMEA reader (which would find no sentence in it). Not a `--format` choice.
struct UnclaimedJSONFormat: InputFormat {
    static let name = "json"
    static let summary = "JSON that is none of the formats gpx2fix reads"

    static func recognize(_ head: InputHead) -> Recognition {
        guard let first = head.bytes.first else { return head.undecided }
        return first == JSONByte.openBrace || first == JSONByte.openBracket ? .yes : .no
    }

    init(settings: ReaderSettings) {}

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        try sink.problem(
            line: source.firstLine,
            "JSON of no shape gpx2fix reads: expected GeoJSON (\"type\": \"FeatureCollection\" or \"Feature\", Overland's \"locations\"), "
                + "Google location history (\"locations\", \"timelineObjects\", \"semanticSegments\", \"rawSignals\"), "
                + "OwnTracks messages (\"_type\"), gpsd reports (\"class\") or fix records (\"lat\" and \"lon\", one a line); "
                + "it starts with \(source.shownHead)")
    }
}
