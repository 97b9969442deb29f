/// The properties of a GeoJSON Point feature as the apps that log them write them: which
/// property fills which fix field. The first name present wins.
///
/// | fix field | properties | producers |
/// |---|---|---|
/// | `time` | `timestamp`, `time`, `datetime`, `when`, `recorded_at`, `time_long` | Overland, togeojson and Dawarich (`timestamp`, RFC 3339 or seconds since 1970), GPSLogger (`time`; `time_long` in ms) |
/// | `alt` | `altitude`, `ele`, `elevation`, `height`, else the third coordinate | Overland, GPSLogger |
/// | `hacc` | `horizontal_accuracy`, `accuracy`, `hacc`, `acc` | Overland, GPSLogger |
/// | `vacc` | `vertical_accuracy`, `vacc`, `vac`; negative (Core Location's "altitude invalid") drops `alt` and `vacc` | Overland |
/// | `speed` | `speed` (m/s), `speed_kmh` (km/h); negative is absent | Overland, GPSLogger |
/// | `course` | `course`, `bearing`, `heading`, `cog`; negative is absent | Overland, GPSLogger |
/// | `cacc` | `course_accuracy`; negative is absent | Overland |
/// | `hdop`, `vdop`, `pdop` | the same names | GPSLogger |
/// | `sat` | `sat`, `satellites` | GPSLogger |
/// | `name` | `name` | togeojson |
/// | `trace` | `trace`, `device_id`, `deviceId`, `device`, `tid` (not empty), else the file's name | Overland |
///
/// Other properties (battery, motion, wifi, ...) are not fix fields and are not kept.
struct GeoJSONProperties {
    let element: JSONElement?

    init(_ element: JSONElement?) {
        self.element = element
    }

    func first(_ names: [String]) -> JSONNode? {
        guard let element else { return nil }
        for name in names {
            if let v = element.root[name], v.kind != .null { return v }
        }
        return nil
    }

    func number(_ names: [String]) -> Double? {
        guard let element else { return nil }
        for name in names {
            if let v = element.looseNumber(element.root[name]) { return v }
        }
        return nil
    }

    /// The per-position times of a line: `coordTimes`, or `coordinateProperties.times`.
    var times: (element: JSONElement, node: JSONNode)? {
        guard let element else { return nil }
        if let t = element.root["coordTimes"], t.kind == .array { return (element, t) }
        if let t = element.root["coordinateProperties"]?["times"], t.kind == .array { return (element, t) }
        return nil
    }

    func pointFix(_ p: (lat: Double, lon: Double, alt: Double?), fileName: String?) -> Fix {
        var fix = Fix(lat: p.lat, lon: p.lon)
        guard let element else {
            fix.alt = p.alt
            fix.trace = fileName
            return fix
        }
        for name in ["timestamp", "time", "datetime", "when", "recorded_at", "time_long"] {
            if let v = element.root[name], let t = element.time(v) {
                fix.time = t
                break
            }
        }
        fix.alt = number(["altitude", "ele", "elevation", "height"]) ?? p.alt
        fix.hacc = number(["horizontal_accuracy", "accuracy", "hacc", "acc"])
        fix.vacc = number(["vertical_accuracy", "vacc", "vac"])
        if let v = fix.vacc, v < 0 {
            fix.vacc = nil
            fix.alt = nil
        }
        if let v = number(["speed"]) {
            fix.speed = v
        } else if let v = number(["speed_kmh"]) {
            fix.speed = v / 3.6
        }
        if let v = fix.speed, v < 0 { fix.speed = nil }
        if let c = number(["course", "bearing", "heading", "cog"]) { fix.course = c < 0 ? nil : c.truncatingRemainder(dividingBy: 360) }
        fix.cacc = number(["course_accuracy"]).flatMap { $0 < 0 ? nil : $0 }
        fix.hdop = number(["hdop"])
        fix.vdop = number(["vdop"])
        fix.pdop = number(["pdop"])
        if let s = number(["sat", "satellites"]), s >= 0, s == s.rounded(), s < 1e9 { fix.sat = Int(s) }
        fix.name = element.string(element.root["name"])
        fix.trace = fileName
        for name in ["trace", "device_id", "deviceId", "device", "tid"] {
            if let t = element.string(element.root[name]), !t.isEmpty {
                fix.trace = t
                break
            }
        }
        return fix
    }
}
