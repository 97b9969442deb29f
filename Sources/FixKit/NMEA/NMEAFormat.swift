/// NMEA 0183 logs, and gpsd's JSON reports, which gpspipe mixes with them (`gpspipe -r` starts
/// with gpsd's JSON greeting): one reader, `NMEAReader`, takes both, line by line.
struct NMEAFormat: InputFormat {
    static let name = "nmea"
    static let summary =
        "NMEA 0183 logs: RMC, GGA, GNS, GLL, VTG, GSA, GST, ZDA from any talker (receivers, loggers, gpspipe -r)"

    /// A sentence start (`$` or `!` and a letter) in the first line. Also the format gpx2fix
    /// falls back on when no format recognises an input: NMEA logs often begin with binary
    /// frames or garbage, and its reader says so when it finds no sentence at all.
    static func recognize(_ head: InputHead) -> Recognition {
        guard let line = head.firstLine else { return head.undecided }
        var i = line.startIndex
        while let k = line[i...].firstIndex(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "!") }) {
            let next = line.index(after: k)
            if next < line.endIndex, line[next] &- UInt8(ascii: "A") < 26 { return .yes }
            i = next
        }
        return .no
    }

    var reader: NMEAReader

    init(settings: ReaderSettings) {
        reader = NMEAReader(fileName: settings.fileName, uere: settings.uere, date: settings.date)
    }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        do {
            try reader.read(
                source, head: [], firstLine: source.firstLine,
                emit: { fix in try sink.emit(&fix) },
                problem: { line, message in try sink.problem(line: line, message) })
        } catch let error as InputError {
            // The input failed (a cut .gz, a read error): the epoch read before it is complete
            // and is still written, then the failure is reported.
            try reader.assembler.finish(emit: { fix in try sink.emit(&fix) })
            throw error
        }
        if !reader.recognizedAnything {
            // `InputFormats` falls back on this reader: say what was expected, and what came.
            try sink.problem(
                line: source.firstLine,
                "not a format gpx2fix reads (\(InputFormats.names)): it starts with \(source.shownHead)")
            return
        }
        if let summary = reader.noiseSummary { sink.note(summary) }
        let a = reader.assembler
        if a.repeatedTimes > 0 {
            sink.note(
                "\(a.repeatedTimes) epoch\(a.repeatedTimes == 1 ? "" : "s") skipped: a fix of \(a.repeatedTimes == 1 ? "its" : "their") time was already written (the log's time goes back); the first fix of a time is kept"
            )
        }
        if a.tooFarBack > 0 {
            sink.note(
                "\(a.tooFarBack) epoch\(a.tooFarBack == 1 ? "" : "s") skipped: \(a.tooFarBack == 1 ? "its" : "their") time goes back past the last \(WrittenTimes.capacity) fixes, where a repeated time can no longer be told"
            )
        }
        if a.fixes == 0, a.repeatedTimes == 0, a.tooFarBack == 0, a.epochs > 0 {
            sink.note("none of its \(reader.assembler.epochs) NMEA epochs has a valid position (all void): no fixes")
        }
        if reader.assembler.wroteUndated {
            sink.note("the log gives no date (no RMC or ZDA): fixes written without time; give --date YYYY-MM-DD")
        }
    }
}

/// gpsd's JSON reports (`gpspipe -w`): TPV records become fixes (see `GPSDReader`).
struct GPSDFormat: InputFormat {
    static let name = "gpsd"
    static let summary = "gpsd's JSON reports (gpspipe -w): TPV records; other classes are skipped"

    /// A first line that is a JSON object whose first member is gpsd's `"class"`.
    static func recognize(_ head: InputHead) -> Recognition {
        guard head.bytes.first == UInt8(ascii: "{") else { return .no }
        guard let line = head.firstLine else { return head.undecided }
        var i = line.index(after: line.startIndex)
        while i < line.endIndex, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
        return line[i...].starts(with: #""class""#.utf8) ? .yes : .no
    }

    var nmea: NMEAFormat

    init(settings: ReaderSettings) { nmea = NMEAFormat(settings: settings) }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        try nmea.read(source, into: sink)
    }
}
