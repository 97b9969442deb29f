/// CSV track logs: delimited text whose header line names a latitude and a longitude column
/// (GPSBabel's unicsv, loggers' vendor tools, apps' exports). See `CSVHeader` for the names.
///
/// Up to `maxPreamble` lines starting with `#` may come before the header (the Garmin G1000's
/// airframe line and units row); a `#` line just before the header with a cell per column
/// gives the columns' units. Rows are read one at a time in constant memory: quoted cells
/// (RFC 4180, doubled quotes, line breaks inside quotes), CR LF or CR line ends, NUL padding
/// and blank lines. Every row with a position is a track fix (`seg` 0, `trace` the file's name);
/// a row that cannot be used is reported with its line and skipped, and rows with no position
/// at all (sensor-only rows) are counted in a note.
struct CSVFormat: InputFormat {
    static let name = "csv"
    static let summary =
        "CSV with a header naming latitude and longitude columns (GPSBabel unicsv, logger and app exports)"

    /// `#` lines allowed before the header.
    static let maxPreamble = 8
    /// A row longer than this (a quote never closed) is reported and skipped.
    static let rowLimit = 1 << 20

    /// Decided on whole lines only (monotone): the first line that is not a `#` line must be a
    /// header naming latitude and longitude; up to `maxPreamble` `#` lines may come first.
    static func recognize(_ head: InputHead) -> Recognition {
        let b = head.bytes
        guard let first = b.first else { return head.undecided }
        // Markup, JSON and NMEA never start a CSV header.
        if first == UInt8(ascii: "<") || first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
            || first == UInt8(ascii: "$") || first == UInt8(ascii: "!")
        {
            return .no
        }
        var i = 0
        var preamble = 0
        while true {
            var end = i
            while end < b.count, b[end] != 0x0A, b[end] != 0x0D { end += 1 }
            if end == b.count && !head.isComplete { return .needMore }
            let line = b[i..<end]
            if !line.allSatisfy(CSVHeader.isPadding) {
                if CSVHeader.parse(line) != nil { return .yes }
                guard line.first == UInt8(ascii: "#"), preamble < maxPreamble else { return .no }
                preamble += 1
            }
            if end == b.count { return .no }
            i = end + 1
        }
    }

    let settings: ReaderSettings

    init(settings: ReaderSettings) { self.settings = settings }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        var rows = CSVRowReader(ByteWindow(source))
        var previous: [UInt8]?
        var preamble = 0
        var found: (CSVHeader, Int)?
        while found == nil, let row = try rows.next(delimiter: nil) {
            defer { rows.consume(row) }
            if row.skip { continue }
            let line = Array(rows.bytes(0, row.length))
            if line.allSatisfy(CSVHeader.isPadding) { continue }
            if var header = CSVHeader.parse(line) {
                if let previous { header.applyUnits(CSVHeader.cells(of: previous, delimiter: header.delimiter)) }
                found = (header, row.line)
            } else if line.first == UInt8(ascii: "#") && preamble < Self.maxPreamble {
                preamble += 1
                previous = line
            } else {
                try sink.problem(
                    line: row.line,
                    "not CSV with a header naming latitude and longitude columns: found \"\(escapedForMessage(line.prefix(40)))\""
                )
                return
            }
        }
        guard let (header, headerLine) = found else {
            try sink.problem(line: nil, "no CSV header naming latitude and longitude columns")
            return
        }
        for cell in header.unknownUnits {
            try sink.problem(
                line: headerLine,
                "column \"\(escapedForMessage(Array(cell.utf8)))\": the unit is not one this reader knows; column ignored"
            )
        }
        var reader = CSVRowDecoder(header: header, trace: settings.fileName, sink: sink)
        while let row = try rows.next(delimiter: header.delimiter) {
            defer { rows.consume(row) }
            if row.skip {
                try sink.problem(
                    line: row.line, "a row longer than \(Self.rowLimit >> 20) MiB (a quote not closed?); skipped")
                continue
            }
            try reader.decode(row, rows)
        }
        if reader.withoutPosition > 0 {
            let n = reader.withoutPosition
            sink.note("\(n) row\(n == 1 ? "" : "s") without a position (sensor-only) skipped")
        }
        if header.localTime && header.utcOffset == nil {
            sink.note(
                "the times are local (\"Lcl\" columns) and no UTC offset column is given: fixes written without time")
        }
    }
}

/// One cell of a row: byte offsets from the row's start (quotes excluded).
struct CSVCell {
    var start: Int
    var end: Int
    /// Quoted, with a doubled quote inside.
    var doubled: Bool
}

/// A row found by `CSVRowReader.next`, valid until `consume`.
struct CSVRow {
    /// The row's first line in the input.
    var line: Int
    /// Bytes before its line end.
    var length: Int
    /// Bytes to consume, its line end included.
    var consumed: Int
    /// Line ends within it, its own included.
    var lineEnds: Int
    /// Longer than `CSVFormat.rowLimit`: reported and skipped, its bytes not kept.
    var skip: Bool
}

/// Splits the input into rows and cells, in a sliding window: a line end inside quotes does
/// not end a row. A line end is LF, CR LF, or a run of CRs (with or without an LF after it),
/// as the other line readers count them.
struct CSVRowReader {
    let window: ByteWindow
    /// The cells of the last row found.
    var cells: [CSVCell] = []

    init(_ window: ByteWindow) {
        self.window = window
        cells.reserveCapacity(64)
    }

    private enum State {
        case cellStart, plain, quoted, quoteInQuoted, afterQuote, lineEnd, discarding, discardingLineEnd
    }

    /// The bytes `offset..<offset+n` of the current row.
    // SAFETY: a part of the reader's window, valid until the next row is read (the window may
    // move); the caller keeps `offset + n` within the row.
    func bytes(_ offset: Int, _ n: Int) -> UnsafeBufferPointer<UInt8> { window.bytes(offset, n) }

    /// The next row, nil at the end of the input. With `delimiter` nil, a row is a whole line
    /// (quotes are not special), one cell.
    mutating func next(delimiter: UInt8?) throws -> CSVRow? {
        cells.removeAll(keepingCapacity: true)
        let line = window.line
        let d = delimiter ?? 0x0A
        let quotes = delimiter != nil
        var state = State.cellStart
        var i = 0
        var cellStart = 0
        var quoteEnd = 0
        var doubled = false
        var length = 0
        var lineEnds = 0
        var pendingCR = false
        var skip = false
        var ended = false

        func finishCell(_ end: Int) {
            cells.append(CSVCell(start: cellStart, end: end, doubled: doubled))
            doubled = false
        }

        scan: while true {
            let n = window.available
            let p = window.bytes(0, n)
            // A row is scanned no further than the limit, unless it is being skipped or has
            // ended (a run of CRs may go on).
            let end = skip || state == .lineEnd ? n : min(n, CSVFormat.rowLimit + 1)
            while i < end {
                let c = p[i]
                switch state {
                case .cellStart:
                    if c == 0x22 && quotes {
                        state = .quoted
                        cellStart = i + 1
                        i += 1
                        continue
                    }
                    cellStart = i
                    state = .plain
                    continue
                case .plain:
                    if c == 0x0A || c == 0x0D {
                        finishCell(i)
                        length = i
                        lineEnds += 1
                        if c == 0x0A {
                            i += 1
                            ended = true
                            break scan
                        }
                        state = .lineEnd
                    } else if c == d {
                        finishCell(i)
                        state = .cellStart
                    }
                    i += 1
                case .quoted:
                    if c == 0x22 {
                        if pendingCR {
                            lineEnds += 1
                            pendingCR = false
                        }
                        state = .quoteInQuoted
                    } else if c == 0x0A {
                        lineEnds += 1
                        pendingCR = false
                    } else if c == 0x0D {
                        pendingCR = true
                    } else if pendingCR {
                        lineEnds += 1
                        pendingCR = false
                    }
                    i += 1
                case .quoteInQuoted:
                    if c == 0x22 {
                        doubled = true
                        state = .quoted
                        i += 1
                    } else {
                        quoteEnd = i - 1
                        state = .afterQuote
                    }
                case .afterQuote:
                    // Bytes after a closing quote, up to the delimiter, are dropped.
                    if c == 0x0A || c == 0x0D {
                        finishCell(quoteEnd)
                        length = i
                        lineEnds += 1
                        if c == 0x0A {
                            i += 1
                            ended = true
                            break scan
                        }
                        state = .lineEnd
                    } else if c == d {
                        finishCell(quoteEnd)
                        state = .cellStart
                    }
                    i += 1
                case .lineEnd:
                    if c == 0x0D {
                        i += 1
                    } else {
                        if c == 0x0A { i += 1 }
                        ended = true
                        break scan
                    }
                case .discarding:
                    guard c == 0x0A || c == 0x0D else {
                        // A row too long to keep: on to its line end a word at a time (300 MB of
                        // one line took a byte at a time 3.8 times `cat`'s time).
                        // SAFETY: `p` is the window's `n` bytes, and `end` ≤ n.
                        i = p.baseAddress.map { ByteRuns.lineEnd($0, from: i + 1, to: end) } ?? end
                        continue
                    }
                    lineEnds += 1
                    state = c == 0x0A ? .discarding : .discardingLineEnd
                    i += 1
                    if c == 0x0A {
                        ended = true
                        break scan
                    }
                case .discardingLineEnd:
                    if c == 0x0D {
                        i += 1
                    } else {
                        if c == 0x0A { i += 1 }
                        ended = true
                        break scan
                    }
                }
            }
            if !skip && state != .lineEnd && i > CSVFormat.rowLimit {
                // Too long: nothing of the row is kept from here on; what follows it stays.
                skip = true
                state = .discarding
                window.consume(i, lines: lineEnds)
                lineEnds = 0
                i = 0
                cells.removeAll(keepingCapacity: true)
                continue scan
            }
            if skip && i == n {
                // Everything held belongs to the row being skipped.
                window.discardAll(lines: lineEnds)
                lineEnds = 0
                i = 0
            }
            if i < n { continue scan }
            if !(try window.fill()) { break }
        }
        if !ended {
            // The end of the input.
            if i == 0 && state == .cellStart && cells.isEmpty { return nil }
            switch state {
            case .cellStart: finishCell(i)
            case .plain: finishCell(i)
            case .quoted: finishCell(i)
            case .quoteInQuoted: finishCell(i - 1)
            case .afterQuote: finishCell(quoteEnd)
            case .lineEnd, .discarding, .discardingLineEnd: break
            }
            if state != .lineEnd && state != .discardingLineEnd { length = i }
        }
        if skip {
            cells.removeAll(keepingCapacity: true)
            length = 0
        }
        return CSVRow(line: line, length: length, consumed: i, lineEnds: lineEnds, skip: skip)
    }

    /// Drops `row` from the window.
    func consume(_ row: CSVRow) {
        window.consume(row.consumed, lines: row.lineEnds)
    }
}
