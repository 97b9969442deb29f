/// Writes fixes as NDJSON lines in SPEC's field order: `time, lat, lon, alt, hacc, vacc,
/// speed, course, cacc`, then `hdop, vdop, pdop, sat, name, trace, seg`, then the members the
/// fix kept verbatim, in their input order. Numbers are the shortest text that reads back as
/// the same double (`DecimalNumber`).
public enum FixEncoder {
    // Member prefixes as byte arrays: appending an array is one copy, where appending a
    // StaticString's bytes goes through the generic sequence path.
    static let timeKey = Array(#"{"time":""#.utf8)
    static let latKey = Array(#""lat":"#.utf8)
    static let keys: [FixField: [UInt8]] = Dictionary(
        uniqueKeysWithValues: FixField.allCases.map { ($0, Array(",\"\($0.rawValue)\":".utf8)) })
    static let lonKey = keys[.lon]!, altKey = keys[.alt]!, haccKey = keys[.hacc]!, vaccKey = keys[.vacc]!
    static let speedKey = keys[.speed]!, courseKey = keys[.course]!, caccKey = keys[.cacc]!
    static let hdopKey = keys[.hdop]!, vdopKey = keys[.vdop]!, pdopKey = keys[.pdop]!, satKey = keys[.sat]!
    static let nameKey = keys[.name]!, traceKey = keys[.trace]!, segKey = keys[.seg]!

    public static func encode(_ fix: Fix, into out: inout [UInt8]) {
        // lat is always there, so every member after it starts with a comma.
        if let t = fix.time {
            out.append(contentsOf: timeKey)
            t.write(into: &out)
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ","))
        } else {
            out.append(UInt8(ascii: "{"))
        }
        out.append(contentsOf: latKey)
        DecimalNumber.write(fix.lat, into: &out)
        out.append(contentsOf: lonKey)
        DecimalNumber.write(fix.lon, into: &out)
        @inline(__always) func number(_ key: [UInt8], _ v: Double?) {
            guard let v else { return }
            out.append(contentsOf: key)
            DecimalNumber.write(v, into: &out)
        }
        number(altKey, fix.alt)
        number(haccKey, fix.hacc)
        number(vaccKey, fix.vacc)
        number(speedKey, fix.speed)
        number(courseKey, fix.course)
        number(caccKey, fix.cacc)
        number(hdopKey, fix.hdop)
        number(vdopKey, fix.vdop)
        number(pdopKey, fix.pdop)
        if let v = fix.sat {
            out.append(contentsOf: satKey)
            writeInteger(v, into: &out)
        }
        if let v = fix.name {
            out.append(contentsOf: nameKey)
            writeString(v, into: &out)
        }
        if let v = fix.trace {
            out.append(contentsOf: traceKey)
            writeString(v, into: &out)
        }
        if let v = fix.seg {
            out.append(contentsOf: segKey)
            writeInteger(v, into: &out)
        }
        if !fix.extra.isEmpty {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: fix.extra)
        }
        out.append(UInt8(ascii: "}"))
        out.append(UInt8(ascii: "\n"))
    }

    public static func line(_ fix: Fix) -> String {
        var out: [UInt8] = []
        encode(fix, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// Appends a decimal integer.
@inline(__always)
public func writeInteger(_ v: Int, into out: inout [UInt8]) {
    if v < 0 { out.append(UInt8(ascii: "-")) }
    var m = v.magnitude
    if m < 10 {
        out.append(UInt8(48 + m))
        return
    }
    var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
    withUnsafeMutableBytes(of: &tmp) { raw in
        var n = 0
        while m > 0 {
            raw[n] = UInt8(48 + m % 10)
            m /= 10
            n += 1
        }
        while n > 0 {
            n -= 1
            out.append(raw[n])
        }
    }
}

/// Appends a JSON string: `"` and `\` escaped, control characters as `\n`, `\t` or `\u00XX`,
/// everything else as its UTF-8 bytes.
public func writeString(_ s: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    var s = s
    s.withUTF8 { bytes in
        var runStart = 0
        for (i, c) in bytes.enumerated() where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            runStart = i + 1
            out.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(c)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]])
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }
    out.append(UInt8(ascii: "\""))
}
