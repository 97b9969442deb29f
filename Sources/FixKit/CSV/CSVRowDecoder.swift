/// Turns CSV rows into fixes, by the columns a `CSVHeader` found, on the row's bytes.
struct CSVRowDecoder {
    let header: CSVHeader
    let trace: String?
    let sink: FixSink
    /// Rows with neither latitude nor longitude (sensor-only rows), for the note.
    var withoutPosition = 0
    /// A decimal comma is read as a point when the delimiter is not a comma.
    let decimalComma: Bool
    private var scratch: [UInt8] = []

    init(header: CSVHeader, trace: String?, sink: FixSink) {
        self.header = header
        self.trace = trace
        self.sink = sink
        decimalComma = header.delimiter != UInt8(ascii: ",")
    }

    /// Why a row cannot be used.
    struct Bad: Error {
        let message: String
    }

    mutating func decode(_ row: CSVRow, _ rows: CSVRowReader) throws {
        let cells = rows.cells
        let base = rows.bytes(0, row.length)
        // SAFETY: each cell is a part of `base`, the current row in the reader's window, valid
        // until the next row is read; cell bounds lie inside the row (the reader set them), and the
        // decoder copies what it keeps.
        @inline(__always) func cell(_ index: Int?) -> UnsafeBufferPointer<UInt8> {
            // SAFETY: an empty buffer: nothing is read through it.
            guard let index, index < cells.count else { return UnsafeBufferPointer(start: nil, count: 0) }
            var s = cells[index].start
            var e = cells[index].end
            while s < e, CSVHeader.isPadding(base[s]) { s += 1 }
            while e > s, CSVHeader.isPadding(base[e - 1]) { e -= 1 }
            // SAFETY: `s..<e` lies inside the cell's bounds, inside the row.
            return UnsafeBufferPointer(rebasing: base[s..<e])
        }
        // Blank lines, and rows of nothing but delimiters and padding.
        if cells.indices.allSatisfy({ cell($0).isEmpty }) { return }
        do {
            if cells.count < header.named {
                throw Bad(message: "a cut row: \(cells.count) cells where the header names \(header.named)")
            }
            let latCell = cell(header.lat)
            let lonCell = cell(header.lon)
            if latCell.isEmpty && lonCell.isEmpty {
                withoutPosition += 1
                return
            }
            guard var lat = coordinate(latCell, UInt8(ascii: "N"), UInt8(ascii: "S")) else {
                throw Bad(message: "\(title(header.lat)) \(shown(latCell)) is not a latitude in degrees")
            }
            guard var lon = coordinate(lonCell, UInt8(ascii: "E"), UInt8(ascii: "W")) else {
                throw Bad(message: "\(title(header.lon)) \(shown(lonCell)) is not a longitude in degrees")
            }
            lat = try hemisphere(
                lat, header.latHemisphere, cell(header.latHemisphere), UInt8(ascii: "N"), UInt8(ascii: "S"))
            lon = try hemisphere(
                lon, header.lonHemisphere, cell(header.lonHemisphere), UInt8(ascii: "E"), UInt8(ascii: "W"))
            var fix = Fix(lat: lat, lon: lon)
            guard fix.hasValidCoordinates else {
                throw Bad(
                    message:
                        "lat \(DecimalNumber.text(lat)), lon \(DecimalNumber.text(lon)) are out of range (expected [-90, 90] and [-180, 180])"
                )
            }
            fix.time = try time(cell(header.time), cell(header.date), cell(header.utcOffset))
            fix.alt = try quantity(header.alt, cell(header.alt), .length, header.altFactor)
            fix.speed = try quantity(header.speed, cell(header.speed), .speed, header.speedFactor)
            if let v = fix.speed, v < 0 { fix.speed = nil }
            if let c = try quantity(header.course, cell(header.course), .angle, .same), c >= 0 {
                fix.course = c.truncatingRemainder(dividingBy: 360)
            }
            fix.hacc = try quantity(header.hacc, cell(header.hacc), .length, header.haccFactor)
            fix.vacc = try quantity(header.vacc, cell(header.vacc), .length, header.vaccFactor)
            fix.hdop = try quantity(header.hdop, cell(header.hdop), .none, .same)
            fix.vdop = try quantity(header.vdop, cell(header.vdop), .none, .same)
            fix.pdop = try quantity(header.pdop, cell(header.pdop), .none, .same)
            fix.sat = try count(header.sat, cell(header.sat))
            if header.name != nil {
                let n = cell(header.name)
                if !n.isEmpty { fix.name = text(n, doubled: cells[header.name ?? 0].doubled) }
            }
            fix.trace = trace
            fix.seg = 0
            try sink.emit(&fix)
        } catch let bad as Bad {
            try sink.problem(line: row.line, bad.message + "; row skipped")
        }
    }

    func title(_ index: Int?) -> String {
        guard let index, index < header.titles.count else { return "a column" }
        return "\"" + header.titles[index] + "\""
    }

    // SAFETY: `b` is a cell of the current row, read during the call only.
    func shown(_ b: UnsafeBufferPointer<UInt8>) -> String { "\"" + escapedForMessage(b.prefix(40)) + "\"" }

    /// A cell's text, a doubled quote read as one.
    // SAFETY: `b` is a cell of the current row, read during the call only; the String copies it.
    func text(_ b: UnsafeBufferPointer<UInt8>, doubled: Bool) -> String {
        guard doubled else { return String(decoding: b, as: UTF8.self) }
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            out.append(b[i])
            i += b[i] == 0x22 && i + 1 < b.count && b[i + 1] == 0x22 ? 2 : 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Numbers

    /// The number at the start of `b`, and the bytes after it with padding skipped; nil if
    /// `b` does not start with one (`[+-]digits[.digits][e[+-]digits]`).
    // SAFETY: `b` is a cell of the current row, valid for the call; every index is checked against
    // `n = b.count`, and the rest returned is a part of it, with the same lifetime.
    mutating func number(_ b: UnsafeBufferPointer<UInt8>) -> (Double, UnsafeBufferPointer<UInt8>)? {
        var i = 0
        let n = b.count
        if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < n, b[i] &- 48 < 10 {
            i += 1
            digits += 1
        }
        var comma = false
        if i < n, b[i] == UInt8(ascii: ".") || (decimalComma && b[i] == UInt8(ascii: ",")) {
            comma = b[i] == UInt8(ascii: ",")
            i += 1
            while i < n, b[i] &- 48 < 10 {
                i += 1
                digits += 1
            }
        }
        guard digits > 0 else { return nil }
        if i + 1 < n, b[i] | 0x20 == UInt8(ascii: "e") {
            var j = i + 1
            if j < n, b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-") { j += 1 }
            if j < n, b[j] &- 48 < 10 {
                while j < n, b[j] &- 48 < 10 { j += 1 }
                i = j
            }
        }
        let value: Double?
        if comma {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: b[0..<i].lazy.map { $0 == UInt8(ascii: ",") ? UInt8(ascii: ".") : $0 })
            // SAFETY: `scratch`'s storage, read by the parser during the closure only.
            value = scratch.withUnsafeBufferPointer { DecimalNumber.parse($0) }
        } else {
            // SAFETY: `0..<i` lies inside `b` (`i <= n`).
            value = DecimalNumber.parse(UnsafeBufferPointer(rebasing: b[0..<i]))
        }
        guard let value, value.isFinite else { return nil }
        while i < n, CSVHeader.isPadding(b[i]) { i += 1 }
        // SAFETY: `i...` lies inside `b` (`i <= n`); a part of the row, valid as long as the row
        // is.
        return (value, UnsafeBufferPointer(rebasing: b[i...]))
    }

    /// Degrees, with an optional hemisphere letter before or after (`51.5N`, `W0.12`).
    // SAFETY: `b` is a cell of the current row, read during the call only; the parts made from it
    // are read in the call too.
    mutating func coordinate(_ b: UnsafeBufferPointer<UInt8>, _ positive: UInt8, _ negative: UInt8) -> Double? {
        var body = b
        var sign = 1.0
        var lettered = false
        if let f = body.first, f | 0x20 == positive | 0x20 || f | 0x20 == negative | 0x20 {
            sign = f | 0x20 == negative | 0x20 ? -1 : 1
            lettered = true
            // SAFETY: a part of `body`, inside the row.
            body = UnsafeBufferPointer(rebasing: body.dropFirst().drop(while: CSVHeader.isPadding))
        }
        guard let (v, rest) = number(body) else { return nil }
        if !rest.isEmpty {
            guard !lettered, rest.count == 1, rest[0] | 0x20 == positive | 0x20 || rest[0] | 0x20 == negative | 0x20
            else {
                return nil
            }
            sign = rest[0] | 0x20 == negative | 0x20 ? -1 : 1
            lettered = true
        }
        if lettered && v < 0 { return nil }
        return sign * v
    }

    /// A hemisphere column's letter applied to `v` (empty: as it is).
    // SAFETY: `b` is a cell of the current row, read during the call only (for a message, copied).
    func hemisphere(_ v: Double, _ index: Int?, _ b: UnsafeBufferPointer<UInt8>, _ positive: UInt8, _ negative: UInt8)
        throws -> Double
    {
        if b.isEmpty { return v }
        guard b.count == 1, b[0] | 0x20 == positive | 0x20 || b[0] | 0x20 == negative | 0x20 else {
            throw Bad(
                message:
                    "\(title(index)) \(shown(b)) is not \(Character(Unicode.Scalar(positive))) or \(Character(Unicode.Scalar(negative)))"
            )
        }
        return b[0] | 0x20 == negative | 0x20 ? -abs(v) : v
    }

    /// A number of `kind`, in the column's unit or in one written after it (`374.812 m`).
    // SAFETY: `b` is a cell of the current row, read during the call only.
    mutating func quantity(_ index: Int?, _ b: UnsafeBufferPointer<UInt8>, _ kind: CSVHeader.Kind, _ factor: CSVUnit)
        throws -> Double?
    {
        if b.isEmpty { return nil }
        guard let (v, rest) = number(b) else { throw Bad(message: "\(title(index)) \(shown(b)) is not a number") }
        if rest.isEmpty { return factor.apply(v) }
        guard let f = CSVHeader.factor(bytes: rest, kind: kind) else {
            throw Bad(message: "\(title(index)) \(shown(b)) is not a number in a unit this reader knows")
        }
        return f.apply(v)
    }

    /// A whole number, such as satellites: `11`, or `11(12)` (used and in view: the first).
    // SAFETY: `b` is a cell of the current row, read during the call only.
    func count(_ index: Int?, _ b: UnsafeBufferPointer<UInt8>) throws -> Int? {
        if b.isEmpty { return nil }
        var i = 0
        var v = 0
        while i < b.count, b[i] &- 48 < 10, i < 9 {
            v = v * 10 + Int(b[i] - 48)
            i += 1
        }
        guard i > 0, i == b.count || b[i] == UInt8(ascii: "(") || b[i] == UInt8(ascii: "/") || b[i] == UInt8(ascii: " ")
        else { throw Bad(message: "\(title(index)) \(shown(b)) is not a whole number") }
        return v
    }

    // MARK: - Times

    /// The fix's time from the time column, the date column and the UTC offset column.
    mutating func time(
        // SAFETY: `t`, `d`, `o` are cells of the current row, read during the call only.
        _ t: UnsafeBufferPointer<UInt8>, _ d: UnsafeBufferPointer<UInt8>, _ o: UnsafeBufferPointer<UInt8>
    )
        throws -> Timestamp?
    {
        if header.localTime && header.utcOffset == nil { return nil }
        var ms: Int64
        if let epoch = header.epoch {
            if t.isEmpty { return nil }
            guard let (v, rest) = number(t), rest.isEmpty else {
                throw Bad(message: "\(title(header.time)) \(shown(t)) is not a time since 1970")
            }
            guard let m = CSVRowDecoder.epochMilliseconds(v, epoch) else {
                throw Bad(
                    message: "\(title(header.time)) \(shown(t)) is not a time RFC 3339 can write (years 0000 to 9999)")
            }
            ms = m
        } else if !t.isEmpty {
            if let stamp = Timestamp.parse(t) {
                ms = stamp.milliseconds
            } else if header.date != nil {
                guard let day = CSVRowDecoder.timeOfDay(t) else {
                    throw Bad(message: "\(title(header.time)) \(shown(t)) is not a time of day (HH:MM:SS or HHMMSS)")
                }
                if d.isEmpty { return nil }
                guard let days = CSVRowDecoder.days(d) else {
                    throw Bad(
                        message: "\(title(header.date)) \(shown(d)) is not a date (YYYY-MM-DD, YYYY/MM/DD or YYMMDD)")
                }
                ms = days * 86_400_000 + day
            } else if let (v, rest) = number(t), rest.isEmpty {
                guard let m = CSVRowDecoder.epochMilliseconds(v, .byMagnitude) else {
                    throw Bad(
                        message:
                            "\(title(header.time)) \(shown(t)) is not a time RFC 3339 can write (years 0000 to 9999)")
                }
                ms = m
            } else if let m = CSVRowDecoder.dateAndTime(t) {
                ms = m
            } else {
                throw Bad(message: "\(title(header.time)) \(shown(t)) is not a time")
            }
        } else {
            return nil
        }
        if header.localTime {
            guard let offset = CSVRowDecoder.offset(o) else {
                throw Bad(message: "\(title(header.utcOffset)) \(shown(o)) is not a UTC offset (+HH:MM)")
            }
            ms -= offset * 1000
        }
        let time = Timestamp(milliseconds: ms)
        guard time.isWritable else {
            throw Bad(
                message: "\(title(header.time)) \(shown(t)) is not a time RFC 3339 can write (years 0000 to 9999)")
        }
        return time
    }

    /// Milliseconds since 1970 of `v` counted as `epoch` says; nil past what RFC 3339 can write.
    static func epochMilliseconds(_ v: Double, _ epoch: CSVHeader.Epoch) -> Int64? {
        let ms: Bool
        switch epoch {
        case .seconds: ms = false
        case .milliseconds: ms = true
        case .byMagnitude: ms = abs(v) >= 1e11
        }
        let t = ((ms ? v : v * 1000) + 0.5).rounded(.down)
        guard t >= Double(Timestamp.earliest.milliseconds), t <= Double(Timestamp.latest.milliseconds) else {
            return nil
        }
        return Int64(t)
    }

    /// Milliseconds into the day of `HH:MM:SS[.fff]`, `HH:MM` or `HHMMSS[.fff]`.
    // SAFETY: `b` is a cell of the current row, read during the call only; indices are checked
    // against its count.
    static func timeOfDay(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        func two() -> Int64? {
            guard i + 2 <= b.count, b[i] &- 48 < 10, b[i + 1] &- 48 < 10 else { return nil }
            defer { i += 2 }
            return Int64(b[i] - 48) * 10 + Int64(b[i + 1] - 48)
        }
        guard let h = two() else { return nil }
        let colon = i < b.count && b[i] == UInt8(ascii: ":")
        if colon { i += 1 }
        guard let m = two() else { return nil }
        var s: Int64 = 0
        if i < b.count {
            if colon {
                guard b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
            }
            guard let v = two() else { return nil }
            s = v
        } else if !colon {
            return nil
        }
        var tenths: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var n = 0
            while i < b.count, b[i] &- 48 < 10 {
                if n < 4 { tenths = tenths * 10 + Int64(b[i] - 48) }
                n += 1
                i += 1
            }
            guard n > 0 else { return nil }
            for _ in n..<max(n, 4) { tenths *= 10 }
        }
        guard i == b.count, h <= 23, m <= 59, s <= 60 else { return nil }
        return (h * 3600 + m * 60 + s) * 1000 + (tenths + 5) / 10
    }

    /// Days since 1970-01-01 of `YYYY-MM-DD`, `YYYY/MM/DD`, `YYYYMMDD`, `YYMMDD` (20YY) or
    /// `DD.MM.YYYY`.
    // SAFETY: `b` is a cell of the current row, read during the call only; indices are checked
    // against its count.
    static func days(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        func num(_ from: Int, _ n: Int) -> Int64? {
            guard from + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in from..<from + n {
                guard b[k] &- 48 < 10 else { return nil }
                v = v * 10 + Int64(b[k] - 48)
            }
            return v
        }
        var y: Int64?
        var m: Int64?
        var d: Int64?
        switch b.count {
        case 10 where (b[4] == UInt8(ascii: "-") || b[4] == UInt8(ascii: "/")) && b[7] == b[4]:
            (y, m, d) = (num(0, 4), num(5, 2), num(8, 2))
        case 10 where b[2] == UInt8(ascii: ".") && b[5] == UInt8(ascii: "."):
            (y, m, d) = (num(6, 4), num(3, 2), num(0, 2))
        case 8:
            (y, m, d) = (num(0, 4), num(4, 2), num(6, 2))
        case 6:
            (y, m, d) = (num(0, 2).map { $0 + 2000 }, num(2, 2), num(4, 2))
        default:
            return nil
        }
        guard let y, let m, let d, (1...12).contains(m), d >= 1, d <= Timestamp.daysInMonth(y, m) else { return nil }
        return Timestamp.daysFromCivil(y, m, d)
    }

    /// A date and a time of day in one cell, apart by a space or `T` (`2005/05/01 10:12:47`), as UTC.
    // SAFETY: `b` is a cell of the current row, read during the call only; `cut` is an index of it,
    // so both parts lie inside it.
    static func dateAndTime(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let cut = b.firstIndex(where: { $0 == 0x20 || $0 == UInt8(ascii: "T") }) else { return nil }
        let rest = UnsafeBufferPointer(rebasing: b[(cut + 1)...].drop(while: CSVHeader.isPadding))
        guard let days = days(UnsafeBufferPointer(rebasing: b[..<cut])), let t = timeOfDay(rest) else { return nil }
        return days * 86_400_000 + t
    }

    /// Seconds east of UTC of `+HH:MM`, `+HHMM`, `+HH` (or `Z`).
    // SAFETY: `b` is a cell of the current row, read during the call only; indices are checked
    // against its count.
    static func offset(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        if b.count == 1 && b[0] | 0x20 == UInt8(ascii: "z") { return 0 }
        guard b.count >= 3, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-") else { return nil }
        let digits = b.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0 &- 48 < 10 }) else { return nil }
        let v = digits.map { Int64($0 - 48) }
        let h = v[0] * 10 + v[1]
        let m = v.count == 4 ? v[2] * 10 + v[3] : 0
        guard h <= 23, m <= 59 else { return nil }
        return (h * 3600 + m * 60) * (b[0] == UInt8(ascii: "-") ? -1 : 1)
    }
}
