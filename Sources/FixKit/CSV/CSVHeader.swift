/// A CSV file's header line: the delimiter, and which column holds what, in which unit.
///
/// Names are matched after trimming white space and NUL padding, dropping leading `#`s,
/// lower-casing, taking a unit from a trailing `(unit)` or `[unit]`, and turning spaces, `-`
/// and `.` into `_`: `# Speed (km/h)` is `speed` in km/h, `Lcl Date` is `lcl_date`. A name not
/// in the table may end in a unit of its kind (`speed_kmh`, `ele_ft`, `time_ms`). The first
/// column with a role takes it; later ones with the same role are ignored.
struct CSVHeader {
    /// `text` without the white space at either end that Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes (Unicode's space separators, Zs, the tab
    /// and U+200B: every scalar was compared), without Foundation: importing it anywhere in FixKit links Foundation and its
    /// start-up into every tool.
    static func trimmingWhitespaces(_ text: Substring) -> String {
        func blank(_ s: Unicode.Scalar) -> Bool {
            // Foundation's set also holds U+200B (zero width space), a format character.
            s == "\t" || s == "\u{200B}" || s.properties.generalCategory == .spaceSeparator
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !blank($0) }),
            let last = scalars.lastIndex(where: { !blank($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// What a column holds.
    enum Role: Equatable {
        case lat, lon, latHemisphere, lonHemisphere
        /// A date-time (RFC 3339, or `YYYY-MM-DD HH:MM:SS` as UTC), a time of day beside a
        /// date column, or, for epoch-named columns, seconds or milliseconds since 1970.
        case time
        case date
        case utcOffset
        case alt, speed, course, hacc, vacc, sat, hdop, vdop, pdop, name
    }

    /// How an epoch column counts: seconds, milliseconds, or by magnitude (from 1e11, ms).
    enum Epoch: Equatable { case byMagnitude, seconds, milliseconds }

    /// The unit kinds a column's values may be in.
    enum Kind { case length, speed, time, angle, none }

    var delimiter: UInt8
    /// Column index by role; `lat` and `lon` are always present.
    var lat: Int
    var lon: Int
    var latHemisphere: Int?
    var lonHemisphere: Int?
    var time: Int?
    var date: Int?
    var utcOffset: Int?
    var alt: Int?
    var speed: Int?
    var course: Int?
    var hacc: Int?
    var vacc: Int?
    var sat: Int?
    var hdop: Int?
    var vdop: Int?
    var pdop: Int?
    var name: Int?
    /// The time column counts seconds or milliseconds since 1970 (epoch-named).
    var epoch: Epoch?
    /// The date and time columns are local (`Lcl Date`, `Lcl Time`): UTC is local minus the
    /// UTC offset column; without one, times are not read.
    var localTime = false
    /// Multiply to get metres, metres per second.
    var altFactor = CSVUnit.same
    var speedFactor = CSVUnit.same
    var haccFactor = CSVUnit.same
    var vaccFactor = CSVUnit.same
    /// The header's cells as written (trimmed), for messages.
    var titles: [String] = []
    /// Whether the header gave the unit of `alt`, `speed` (a units row gives them otherwise).
    var altUnitGiven = false
    var speedUnitGiven = false
    /// How many cells the header names (trailing empty names not counted): a shorter row was cut.
    var named: Int
    /// Header names with a unit this reader does not know, for a message.
    var unknownUnits: [String] = []

    /// The delimiters sniffed, in the order ties are broken.
    static let delimiters: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]

    /// The header `line` is, if its cells (split at the delimiter that occurs most often
    /// outside quotes and gives them) name a latitude and a longitude column.
    static func parse<C: Collection<UInt8>>(_ line: C) -> CSVHeader? {
        let bytes = Array(line)
        let counts = delimiters.map { d in count(of: d, outsideQuotesIn: bytes) }
        let order = delimiters.indices.filter { counts[$0] > 0 }.sorted { counts[$0] > counts[$1] }
        for k in order {
            if let header = CSVHeader(cells: cells(of: bytes, delimiter: delimiters[k]), delimiter: delimiters[k]) {
                return header
            }
        }
        return nil
    }

    /// Occurrences of `d` in `bytes` outside double quotes.
    static func count(of d: UInt8, outsideQuotesIn bytes: [UInt8]) -> Int {
        var n = 0
        var quoted = false
        for b in bytes {
            if b == 0x22 { quoted.toggle() } else if b == d && !quoted { n += 1 }
        }
        return n
    }

    /// The cells of a line (not the hot path: header and preamble lines only), unquoted, a
    /// doubled quote inside quotes being one quote (RFC 4180).
    static func cells(of bytes: [UInt8], delimiter: UInt8) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var cell: [UInt8] = []
        var i = 0
        var atStart = true
        var quoted = false
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == 0x22 {
                    if i + 1 < bytes.count, bytes[i + 1] == 0x22 {
                        cell.append(0x22)
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    cell.append(b)
                }
            } else if b == delimiter {
                out.append(cell)
                cell = []
                atStart = true
                i += 1
                continue
            } else if b == 0x22 && atStart {
                quoted = true
            } else {
                cell.append(b)
            }
            atStart = false
            i += 1
        }
        out.append(cell)
        return out
    }

    /// Spaces, tabs and NUL padding (the Columbus V-900 pads its cells with NULs).
    @inline(__always) static func isPadding(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0 }

    /// A header name, normalised: its name and the unit it gives, if any.
    static func normalise(_ cell: [UInt8]) -> (name: String, unit: String?) {
        var bytes = cell[...]
        while let b = bytes.first, isPadding(b) || b == UInt8(ascii: "#") { bytes = bytes.dropFirst() }
        while let b = bytes.last, isPadding(b) { bytes = bytes.dropLast() }
        var name = String(decoding: bytes, as: UTF8.self).lowercased()
        var unit: String?
        for (open, close) in [("(", ")"), ("[", "]")] where name.hasSuffix(close) {
            if let start = name.lastIndex(of: Character(open)) {
                unit = CSVHeader.trimmingWhitespaces(name[name.index(after: start)..<name.index(before: name.endIndex)])
                name = CSVHeader.trimmingWhitespaces(name[..<start])
                break
            }
        }
        // The V-900's "LATITUDE N/S": the hemisphere is a suffix of the values.
        for suffix in [" n/s", " e/w"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        var squeezed = ""
        for c in name {
            let c2: Character = (c == " " || c == "-" || c == ".") ? "_" : c
            if c2 == "_" && squeezed.last == "_" { continue }
            squeezed.append(c2)
        }
        return (squeezed, unit)
    }

    /// Names, by role (GPSBabel unicsv's and the common spellings).
    static let roles: [String: Role] = {
        var t: [String: Role] = [:]
        func add(_ role: Role, _ names: String) { for n in names.split(separator: " ") { t[String(n)] = role } }
        add(.lat, "lat latitude")
        add(.lon, "lon lng long longitude")
        add(.latHemisphere, "n/s ns")
        add(.lonHemisphere, "e/w ew")
        add(.time, "time timestamp datetime date_time utc_time time_utc utc_t lcl_time iso_time")
        add(.date, "date utc_date date_utc utc_d lcl_date")
        add(.utcOffset, "utcofst utc_offset utcoffset")
        add(.alt, "ele alt altitude elevation height altmsl alt_msl")
        add(.speed, "speed spd velocity ground_speed groundspeed gndspd")
        add(.course, "course heading head bearing cog trk")
        add(.hacc, "accuracy acc hacc accuracy_horizontal horizontal_accuracy")
        add(.vacc, "vacc accuracy_vertical vertical_accuracy")
        add(.sat, "sat sats satellites nsat")
        add(.hdop, "hdop")
        add(.vdop, "vdop")
        add(.pdop, "pdop")
        add(.name, "name")
        return t
    }()

    /// Epoch-named time columns and how they count.
    static let epochNames: [String: Epoch] = {
        var t: [String: Epoch] = [:]
        for n in "epoch unix unixtime unix_time epoch_time time_epoch timestamp_epoch unix_timestamp timestamp_unix"
            .split(separator: " ")
        {
            t[String(n)] = .byMagnitude
        }
        for n in "epoch_ms unix_ms time_ms timestamp_ms millis time_millis timestamp_millis".split(separator: " ") {
            t[String(n)] = .milliseconds
        }
        for n in "epoch_s unix_s timestamp_s".split(separator: " ") { t[String(n)] = .seconds }
        return t
    }()

    static func kind(of role: Role) -> Kind {
        switch role {
        case .alt, .hacc, .vacc: return .length
        case .speed: return .speed
        case .time: return .time
        case .course, .lat, .lon: return .angle
        default: return .none
        }
    }

    /// The unit of `kind` a name (`m`, `ft`, `km/h`, `kt`, ...) stands for, nil if not known.
    static func factor(_ unit: String, kind: Kind) -> CSVUnit? {
        let u = unit.lowercased()
        switch kind {
        case .length:
            switch u {
            case "m", "meter", "meters", "metre", "metres": return .same
            case "ft", "feet", "foot": return .foot
            default: return nil
            }
        case .speed:
            switch u {
            case "m/s", "mps", "ms", "m_s": return .same
            case "km/h", "kmh", "kph", "kmph", "km_h": return .kmh
            case "mph": return .mph
            case "kt", "kts", "kn", "knot", "knots": return .knot
            default: return nil
            }
        case .time:
            switch u {
            case "s", "sec", "secs", "seconds": return .same
            case "ms", "millis", "milliseconds": return .milli
            default: return nil
            }
        case .angle:
            return ["deg", "degree", "degrees", "°"].contains(u) ? .same : nil
        case .none:
            return nil
        }
    }

    /// Units as they follow values (`374.812 m`, `0.865 km/h`), matched on bytes without case.
    static let valueUnits: [(unit: [UInt8], kind: Kind, factor: CSVUnit)] = {
        var t: [(unit: [UInt8], kind: Kind, factor: CSVUnit)] = []
        for (kind, names) in [
            (Kind.length, "m meter meters metre metres ft feet foot"),
            (Kind.speed, "m/s mps km/h kmh kph kmph mph kt kts kn knot knots"),
            (Kind.angle, "deg degree degrees °"),
        ] {
            for n in names.split(separator: " ") {
                if let f = factor(String(n), kind: kind) { t.append((Array(n.utf8), kind, f)) }
            }
        }
        return t
    }()

    /// The factor of a unit written after a value, nil if not one of `kind`.
    // SAFETY: `bytes` is a header cell, read during the call only.
    static func factor(bytes: UnsafeBufferPointer<UInt8>, kind: Kind) -> CSVUnit? {
        search: for entry in valueUnits where entry.kind == kind && entry.unit.count == bytes.count {
            for (a, b) in zip(entry.unit, bytes) where a != (b &- 65 < 26 ? b + 32 : b) { continue search }
            return entry.factor
        }
        return nil
    }

    /// A header from its cells, if they name a latitude and a longitude column.
    init?(cells: [[UInt8]], delimiter: UInt8) {
        self.delimiter = delimiter
        var found: [Role: Int] = [:]
        var factors: [Role: CSVUnit] = [:]
        var epoch: Epoch?
        var local = false
        var unknown: [String] = []
        var names: [String] = []
        for (index, cell) in cells.enumerated() {
            let (name, unit) = CSVHeader.normalise(cell)
            names.append(name)
            var role = CSVHeader.roles[name]
            var unitText = unit
            var columnEpoch: Epoch? = CSVHeader.epochNames[name]
            if columnEpoch != nil { role = .time }
            if role == nil, let cut = name.lastIndex(of: "_") {
                // `speed_kmh`, `ele_ft`, `time_ms`: a known name and a unit of its kind.
                let base = String(name[..<cut])
                let suffix = String(name[name.index(after: cut)...])
                if let r = CSVHeader.roles[base], CSVHeader.factor(suffix, kind: CSVHeader.kind(of: r)) != nil {
                    role = r
                    unitText = suffix
                }
            }
            guard let role, found[role] == nil else { continue }
            if let u = unitText {
                if let f = CSVHeader.factor(u, kind: CSVHeader.kind(of: role)) {
                    if role == .time {
                        columnEpoch = f == .same ? .seconds : .milliseconds
                    } else {
                        factors[role] = f
                    }
                } else if role == .alt || role == .speed || role == .hacc || role == .vacc {
                    unknown.append(String(decoding: cell, as: UTF8.self))
                    continue
                }
            }
            if role == .time {
                epoch = columnEpoch
                if name == "lcl_time" { local = true }
            }
            if role == .date && name == "lcl_date" { local = true }
            found[role] = index
        }
        guard let lat = found[.lat], let lon = found[.lon] else { return nil }
        self.lat = lat
        self.lon = lon
        latHemisphere = found[.latHemisphere]
        lonHemisphere = found[.lonHemisphere]
        time = found[.time]
        date = found[.date]
        utcOffset = found[.utcOffset]
        alt = found[.alt]
        speed = found[.speed]
        course = found[.course]
        hacc = found[.hacc]
        vacc = found[.vacc]
        sat = found[.sat]
        hdop = found[.hdop]
        vdop = found[.vdop]
        pdop = found[.pdop]
        name = found[.name]
        self.epoch = epoch
        localTime = local
        haccFactor = factors[.hacc] ?? .same
        vaccFactor = factors[.vacc] ?? .same
        titles = cells.map { cell in
            String(
                decoding: cell.drop(while: CSVHeader.isPadding).reversed().drop(while: CSVHeader.isPadding).reversed(),
                as: UTF8.self)
        }
        if let f = factors[.alt] {
            altFactor = f
            altUnitGiven = true
        }
        if let f = factors[.speed] {
            speedFactor = f
            speedUnitGiven = true
        } else if names.contains("index") && (names.contains("rcr") || names.contains("tag")) {
            // The loggers' own layouts (iBlue, Holux/MTK, Columbus V-900) write km/h.
            speedFactor = .kmh
        }
        var n = cells.count
        while n > 0, names[n - 1].isEmpty { n -= 1 }
        named = n
        unknownUnits = unknown
    }

    /// A preamble line just before the header with a cell for every column (the Garmin
    /// G1000's `#yyy-mm-dd, hh:mm:ss, ..., ft msl, ..., kt`): its first word in a column is
    /// that column's unit, unless the header gave one.
    mutating func applyUnits(_ cells: [[UInt8]]) {
        guard cells.count >= named else { return }
        func unit(_ index: Int?, _ kind: Kind) -> CSVUnit? {
            guard let index, index < cells.count else { return nil }
            let text = CSVHeader.trimmingWhitespaces(Substring(decoding: cells[index], as: UTF8.self)).drop {
                $0 == "#"
            }
            guard let word = text.split(separator: " ").first else { return nil }
            return CSVHeader.factor(String(word), kind: kind)
        }
        if !altUnitGiven, let f = unit(alt, .length) { altFactor = f }
        if !speedUnitGiven, let f = unit(speed, .speed) { speedFactor = f }
    }
}

/// A unit values are converted from, by the arithmetic gpx2fix(1) states.
enum CSVUnit: Equatable {
    /// Metres, metres per second, seconds, degrees: as written.
    case same
    case foot, kmh, mph, knot
    /// Milliseconds (epoch columns).
    case milli

    /// `v` in metres or metres per second.
    @inline(__always) func apply(_ v: Double) -> Double {
        switch self {
        case .same, .milli: return v
        case .foot: return v * 0.3048
        case .kmh: return v / 3.6
        case .mph: return v * 0.44704
        case .knot: return v * 1852 / 3600
        }
    }
}
