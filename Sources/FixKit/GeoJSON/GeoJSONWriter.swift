/// Writes fixes as a GeoJSON FeatureCollection (RFC 7946), streaming: `fix2gpx --geojson`.
///
/// One feature per run of consecutive fixes with the same `trace` and `seg`: a `LineString`,
/// or a `Point` for a run of one fix. Its properties hold `trace` and `seg` (when the fixes
/// have them) and, for a LineString, one array per field with a value per position, `null`
/// where a fix lacks the field: `coordTimes` (the times, as togeojson names them), `hacc`,
/// `vacc`, `speed`, `course`, `cacc`, `hdop`, `vdop`, `pdop`, `sat`, `name`, then every unknown
/// member under its own name. A Point's properties hold the same as single values (`time`
/// for the time). `alt` is each position's third coordinate.
///
/// The collection's `"generator": "fix2gpx (FixKit) VERSION"` tells gpx2fix to read it back
/// exactly, so that `gpx2fix | fix2gpx --geojson | gpx2fix` loses nothing.
///
/// Unknown members keep their order: a fix whose members would come back in another order
/// starts a new feature (see `keepsOrder`).
///
/// A feature is held until its run ends, so memory is bounded by ending a feature after
/// `maxFixes` fixes or `maxBytes` bytes; the next feature carries on with the same trace and
/// seg, and gpx2fix reads the two as one segment. Fixes of interleaved traces make a feature
/// per run, in input order, and come back in that order.
public struct GeoJSONWriter {
    static let maxFixes = 50_000
    static let maxBytes = 8 << 20

    private struct Column {
        var name: String
        var values: [UInt8] = []
    }

    private var inFeature = false
    private var wroteFeature = false
    private var trace: String?
    private var seg: Int?
    private var count = 0
    private var coordinates: [UInt8] = []
    private var columns: [Column] = []
    private var columnIndex: [String: Int] = [:]
    private var held = 0

    /// `continuing`: features were written before this writer's (another trace's, in the same
    /// collection), so its first one starts with a comma.
    public init(continuing: Bool = false) { wroteFeature = continuing }

    /// Writes the feature held, leaving the collection open: the trace is over.
    public mutating func finishFeature(into out: inout [UInt8]) { flush(into: &out) }

    public mutating func begin(into out: inout [UInt8]) {
        out.append(contentsOf: #"{"type":"FeatureCollection","generator":"fix2gpx (FixKit) \#(fixKitVersion)","features":["#.utf8)
    }

    public mutating func end(into out: inout [UInt8]) {
        flush(into: &out)
        out.append(contentsOf: (wroteFeature ? "\n]}\n" : "]}\n").utf8)
    }

    public mutating func write(_ fix: Fix, into out: inout [UInt8]) {
        if inFeature
            && (fix.trace != trace || fix.seg != seg || count >= GeoJSONWriter.maxFixes || held >= GeoJSONWriter.maxBytes
                || !keepsOrder(fix.extra))
        {
            flush(into: &out)
        }
        if !inFeature {
            inFeature = true
            trace = fix.trace
            seg = fix.seg
        }
        if count > 0 { coordinates.append(UInt8(ascii: ",")) }
        let before = coordinates.count
        coordinates.append(UInt8(ascii: "["))
        DecimalNumber.write(fix.lon, into: &coordinates)
        coordinates.append(UInt8(ascii: ","))
        DecimalNumber.write(fix.lat, into: &coordinates)
        if let alt = fix.alt {
            coordinates.append(UInt8(ascii: ","))
            DecimalNumber.write(alt, into: &coordinates)
        }
        coordinates.append(UInt8(ascii: "]"))
        held += coordinates.count - before

        var values: [(String, [UInt8])] = []
        if let t = fix.time {
            var v: [UInt8] = [UInt8(ascii: "\"")]
            t.write(into: &v)
            v.append(UInt8(ascii: "\""))
            values.append(("coordTimes", v))
        }
        func number(_ name: String, _ x: Double?) {
            guard let x else { return }
            var v: [UInt8] = []
            DecimalNumber.write(x, into: &v)
            values.append((name, v))
        }
        number("hacc", fix.hacc)
        number("vacc", fix.vacc)
        number("speed", fix.speed)
        number("course", fix.course)
        number("cacc", fix.cacc)
        number("hdop", fix.hdop)
        number("vdop", fix.vdop)
        number("pdop", fix.pdop)
        if let s = fix.sat {
            var v: [UInt8] = []
            writeInteger(s, into: &v)
            values.append(("sat", v))
        }
        if let n = fix.name {
            var v: [UInt8] = []
            writeString(n, into: &v)
            values.append(("name", v))
        }
        if !fix.extra.isEmpty { GeoJSONWriter.members(of: fix.extra, into: &values) }

        var seen = [Bool](repeating: false, count: columns.count)
        for (name, v) in values {
            let k: Int
            if let i = columnIndex[name] {
                k = i
            } else {
                // A field first seen here: null for every position before.
                var c = Column(name: name)
                for i in 0..<count { c.values.append(contentsOf: (i == 0 ? "null" : ",null").utf8) }
                columns.append(c)
                columnIndex[name] = columns.count - 1
                seen.append(false)
                k = columns.count - 1
            }
            guard !seen[k] else { continue }
            seen[k] = true
            if count > 0 { columns[k].values.append(UInt8(ascii: ",")) }
            columns[k].values.append(contentsOf: v)
            held += v.count + 1
        }
        for k in columns.indices where !seen[k] {
            columns[k].values.append(contentsOf: (count > 0 ? ",null" : "null").utf8)
            held += 5
        }
        count += 1
    }

    /// Whether the feature's columns can hold these unknown members in their order: gpx2fix
    /// reads them back in column order, so a fix whose members come in another order than the
    /// columns (or a new member before one already a column) starts a feature of its own.
    private func keepsOrder(_ extra: [UInt8]) -> Bool {
        guard !extra.isEmpty else { return true }
        var members: [(String, [UInt8])] = []
        GeoJSONWriter.members(of: extra, into: &members)
        var last = -1
        var added = 0
        for (name, _) in members {
            let position: Int
            if let k = columnIndex[name] {
                position = k
            } else {
                position = columns.count + added
                added += 1
            }
            if position <= last { return false }
            last = position
        }
        return true
    }

    /// Writes the feature held, if any.
    private mutating func flush(into out: inout [UInt8]) {
        guard inFeature else { return }
        out.append(contentsOf: (wroteFeature ? ",\n" : "\n").utf8)
        wroteFeature = true
        let point = count == 1
        out.append(contentsOf: #"{"type":"Feature","geometry":{"type":""#.utf8)
        out.append(contentsOf: (point ? #"Point","coordinates":"# : #"LineString","coordinates":["#).utf8)
        out.append(contentsOf: coordinates)
        if !point { out.append(UInt8(ascii: "]")) }
        out.append(contentsOf: #"},"properties":{"#.utf8)
        var first = true
        func key(_ name: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            writeString(name, into: &out)
            out.append(UInt8(ascii: ":"))
        }
        if let trace {
            key("trace")
            writeString(trace, into: &out)
        }
        if let seg {
            key("seg")
            writeInteger(seg, into: &out)
        }
        for c in columns {
            if point {
                key(c.name == "coordTimes" ? "time" : c.name)
                out.append(contentsOf: c.values)
            } else {
                key(c.name)
                out.append(UInt8(ascii: "["))
                out.append(contentsOf: c.values)
                out.append(UInt8(ascii: "]"))
            }
        }
        out.append(contentsOf: "}}".utf8)
        inFeature = false
        count = 0
        held = 0
        coordinates.removeAll(keepingCapacity: true)
        columns.removeAll()
        columnIndex.removeAll()
    }

    /// The members of a fix's `extra` (`"k":v,...`, as the decoder kept them), name and raw value.
    static func members(of extra: [UInt8], into values: inout [(String, [UInt8])]) {
        let object = [UInt8(ascii: "{")] + extra + [UInt8(ascii: "}")]
        // SAFETY: the local array, lent to the parser for the closure; the members' names and
        // values are copied out inside it.
        object.withUnsafeBufferPointer { buf in
            guard let e = try? JSONNode.parse(buf), e.kind == .object else { return }
            for m in e.members {
                let (name, value) = (m.key, m.value)
                values.append((name, Array(buf[value.range])))
            }
        }
    }
}
