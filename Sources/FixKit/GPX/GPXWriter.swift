/// Writes fixes as GPX 1.1, streaming: one `<trk>` per run of fixes with the same `trace`, one
/// `<trkseg>` per `seg`, each point as its fix arrives.
///
/// Fields GPX has no element for go into `<extensions>`: `speed` and `course` in Garmin's
/// TrackPointExtension v2 (which other tools read), `hacc`, `vacc`, `cacc` and every member
/// the fix kept verbatim (`extra`, as a JSON object in `<fixkit:json>`) in our own namespace,
/// so `gpx2fix | fix2gpx | gpx2fix` gives back the same fixes. Segment numbers survive too:
/// a jump from seg 0 to seg 2 writes the empty segment 1 between them, and a track of fixes
/// without `seg` is marked `<fixkit:unsegmented/>`, so gpx2fix gives them none. A name or
/// trace with white space at its ends (which gpx2fix trims from `<name>`) is also written
/// exactly as `<fixkit:name>` or `<fixkit:trace>`.
///
/// `xcode` writes an Xcode location-simulation file instead: one `<wpt>` with its `<time>`
/// per fix, under `<gpx version="1.1" creator="Xcode">`.
public struct GPXWriter {
    public enum Mode { case track, xcode }

    let mode: Mode
    private var open = false
    private var inTrack = false
    private var trace: String?
    private var seg: Int?
    private var wroteTrack = false

    public init(mode: Mode) {
        self.mode = mode
    }

    public mutating func begin(into out: inout [UInt8]) {
        switch mode {
        case .track:
            out.append(
                contentsOf: """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <gpx version="1.1" creator="fix2gpx (FixKit) \(fixKitVersion)" \
                    xmlns="\(GPXNamespace.gpx11)" \
                    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
                    xmlns:gpxtpx="\(GPXNamespace.garminTPXv2)" \
                    xmlns:fixkit="\(GPXNamespace.fixKitURI)" \
                    xsi:schemaLocation="\(GPXNamespace.gpx11) http://www.topografix.com/GPX/1/1/gpx.xsd \
                    \(GPXNamespace.garminTPXv2) https://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">

                    """.utf8)
        case .xcode:
            // Xcode writes no namespace; with GPX 1.1's the file is also valid against the schema,
            // and Xcode reads it the same.
            out.append(
                contentsOf: "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"Xcode\" xmlns=\"\(GPXNamespace.gpx11)\">\n".utf8)
        }
        open = true
    }

    public mutating func end(into out: inout [UInt8]) {
        if inTrack { closeTrack(&out) }
        out.append(contentsOf: "</gpx>\n".utf8)
        open = false
    }

    public mutating func write(_ fix: Fix, into out: inout [UInt8]) {
        if mode == .xcode {
            point("wpt", fix, indent: "    ", into: &out)
            return
        }
        if !inTrack || fix.trace != trace || (fix.seg ?? .max) < (seg ?? .min) || (seg == nil) != (fix.seg == nil) {
            // The same trace again, in a track of its own because its seg went back: marked, so
            // that gpx2fix keeps one trace for both and does not take them for two recordings.
            let continued = wroteTrack && fix.trace == trace
            if inTrack { closeTrack(&out) }
            out.append(contentsOf: "  <trk>\n".utf8)
            if let t = fix.trace {
                out.append(contentsOf: "    <name>".utf8)
                XMLText.escape(t, into: &out, attribute: false)
                out.append(contentsOf: "</name>\n".utf8)
            }
            let exactTrace = fix.trace.map(XMLText.hasEdgeSpace) ?? false
            if fix.seg == nil || exactTrace || continued {
                out.append(contentsOf: "    <extensions>".utf8)
                if fix.seg == nil { out.append(contentsOf: "<fixkit:unsegmented/>".utf8) }
                if continued { out.append(contentsOf: "<fixkit:continued/>".utf8) }
                if exactTrace, let t = fix.trace {
                    out.append(contentsOf: "<fixkit:trace>".utf8)
                    XMLText.escape(t, into: &out, attribute: false)
                    out.append(contentsOf: "</fixkit:trace>".utf8)
                }
                out.append(contentsOf: "</extensions>\n".utf8)
            }
            inTrack = true
            wroteTrack = true
            trace = fix.trace
            // Empty segments before the first one keep the numbering.
            for _ in 0..<(fix.seg ?? 0) { out.append(contentsOf: "    <trkseg></trkseg>\n".utf8) }
            out.append(contentsOf: "    <trkseg>\n".utf8)
            seg = fix.seg
        } else if let s = fix.seg, let current = seg, s != current {
            out.append(contentsOf: "    </trkseg>\n".utf8)
            for _ in (current + 1)..<s { out.append(contentsOf: "    <trkseg></trkseg>\n".utf8) }
            out.append(contentsOf: "    <trkseg>\n".utf8)
            seg = s
        }
        point("trkpt", fix, indent: "      ", into: &out)
    }

    /// Closes the track being written, if any: the end of one trace's part of a file.
    public mutating func finishTrack(into out: inout [UInt8]) {
        if inTrack { closeTrack(&out) }
    }

    private mutating func closeTrack(_ out: inout [UInt8]) {
        out.append(contentsOf: "    </trkseg>\n  </trk>\n".utf8)
        inTrack = false
    }

    /// One point, children in the schema's order: ele, time, name, sat, hdop, vdop, pdop,
    /// extensions.
    private func point(_ tag: StaticString, _ fix: Fix, indent: StaticString, into out: inout [UInt8]) {
        func raw(_ s: StaticString) {
            // SAFETY: a StaticString's bytes are in the binary, valid for the whole run,
            // `utf8CodeUnitCount` of them.
            out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }
        func element(_ name: StaticString, _ value: Double?) {
            guard let value else { return }
            raw("<")
            raw(name)
            raw(">")
            DecimalNumber.write(value, into: &out)
            raw("</")
            raw(name)
            raw(">")
        }
        raw(indent)
        raw("<")
        raw(tag)
        raw(" lat=\"")
        DecimalNumber.write(fix.lat, into: &out)
        raw("\" lon=\"")
        // GPX's longitude excludes 180: write the same meridian as -180, and keep the fix's own
        // value in our extension so gpx2fix gives back 180.
        let antimeridian = fix.lon == 180
        DecimalNumber.write(antimeridian ? -180 : fix.lon, into: &out)
        raw("\">")
        if mode == .xcode {
            if let t = fix.time {
                raw("<time>")
                t.write(into: &out)
                raw("</time>")
            }
            raw("</")
            raw(tag)
            raw(">\n")
            return
        }
        element("ele", fix.alt)
        if let t = fix.time {
            raw("<time>")
            t.write(into: &out)
            raw("</time>")
        }
        if let name = fix.name {
            raw("<name>")
            XMLText.escape(name, into: &out, attribute: false)
            raw("</name>")
        }
        if let sat = fix.sat {
            raw("<sat>")
            writeInteger(sat, into: &out)
            raw("</sat>")
        }
        element("hdop", fix.hdop)
        element("vdop", fix.vdop)
        element("pdop", fix.pdop)
        let hasGarmin = fix.speed != nil || fix.course != nil
        let exactName = fix.name.map(XMLText.hasEdgeSpace) ?? false
        let hasOwn = fix.hacc != nil || fix.vacc != nil || fix.cacc != nil || !fix.extra.isEmpty || antimeridian || exactName
        if hasGarmin || hasOwn {
            raw("<extensions>")
            if hasGarmin {
                raw("<gpxtpx:TrackPointExtension>")
                element("gpxtpx:speed", fix.speed)
                element("gpxtpx:course", fix.course)
                raw("</gpxtpx:TrackPointExtension>")
            }
            if antimeridian { raw("<fixkit:lon>180</fixkit:lon>") }
            if exactName, let name = fix.name {
                raw("<fixkit:name>")
                XMLText.escape(name, into: &out, attribute: false)
                raw("</fixkit:name>")
            }
            element("fixkit:hacc", fix.hacc)
            element("fixkit:vacc", fix.vacc)
            element("fixkit:cacc", fix.cacc)
            if !fix.extra.isEmpty {
                raw("<fixkit:json>{")
                XMLText.escape(String(decoding: fix.extra, as: UTF8.self), into: &out, attribute: false)
                raw("}</fixkit:json>")
            }
            raw("</extensions>")
        }
        raw("</")
        raw(tag)
        raw(">\n")
    }
}

/// XML 1.0 text and attribute escaping.
enum XMLText {
    /// Whether gpx2fix would trim something from this name (or it is empty): then fix2gpx also
    /// writes it exactly in its extension.
    static func hasEdgeSpace(_ s: String) -> Bool {
        guard let first = s.utf8.first, let last = s.utf8.last else { return true }
        return isXMLSpace(first) || isXMLSpace(last)
    }

    /// Escapes `&`, `<`, `>` (and `"` in attributes). Characters XML 1.0 cannot carry at all
    /// (C0 controls other than tab, newline and carriage return) become U+FFFD; carriage
    /// returns are written as `&#13;` so that a reader's line-end normalisation keeps them.
    static func escape(_ s: String, into out: inout [UInt8], attribute: Bool) {
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\"") where attribute: out.append(contentsOf: "&quot;".utf8)
            case 0x0D: out.append(contentsOf: "&#13;".utf8)
            case 0x09 where attribute: out.append(contentsOf: "&#9;".utf8)
            case 0x0A where attribute: out.append(contentsOf: "&#10;".utf8)
            case 0x09, 0x0A: out.append(c)
            case 0..<0x20: out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            default: out.append(c)
            }
        }
    }
}
