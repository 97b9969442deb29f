/// Writes fixes as NDJSON lines in SPEC's field order: `time, lat, lon, alt, hacc, vacc,
/// speed, course, cacc`, then `hdop, vdop, pdop, sat, name, trace, seg`, then the members the
/// fix kept verbatim, in their input order. Numbers are the shortest text that reads back as
/// the same double (`DecimalNumber`).
public enum FixEncoder {
    /// Appends one line. The line is built on the stack, through a pointer, and appended
    /// once: an append per member costs more than writing the digits.
    public static func encode(_ fix: Fix, into out: inout [UInt8]) {
        var memo = FixLineMemo(keepsTrace: false)
        encode(fix, into: &out, memo: &memo)
    }

    /// Appends one line, with what it shares with the line before (`memo`, which a writer of
    /// many lines keeps between them) copied rather than worked out again.
    @inline(__always)
    public static func encode(_ fix: Fix, into out: inout [UInt8], memo: inout FixLineMemo) {
        // SAFETY: a stack buffer of `maxWidth(fix)` bytes, alive for the closure only:
        // `encode(_:to:memo:)` writes at most that many (`maxWidth` bounds every member), and the
        // bytes are copied into `out` before it ends.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxWidth(fix)) { b in
            guard let p = b.baseAddress else { return }
            let n = encode(fix, to: p, memo: &memo)
            out.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
        }
    }

    /// The most bytes `encode(_:to:)` writes for `fix`.
    @inline(__always)
    static func maxWidth(_ fix: Fix) -> Int {
        // 128 covers `{"time":"…",`, `,"sat":` and `,"seg":` with 20 digits each, and `}\n`;
        // each other member is its key (at most 10 bytes with the comma) and its value.
        var width = 128 + fix.extra.count
        @inline(__always) func number(_ v: Double?) {
            if let v { width += 10 + DecimalNumber.maxWidth(v) }
        }
        width += 6 + DecimalNumber.maxWidth(fix.lat) + 7 + DecimalNumber.maxWidth(fix.lon)
        number(fix.alt)
        number(fix.hacc)
        number(fix.vacc)
        number(fix.speed)
        number(fix.course)
        number(fix.cacc)
        number(fix.hdop)
        number(fix.vdop)
        number(fix.pdop)
        if let v = fix.name { width += 10 + stringWidth(v) }
        if let v = fix.trace { width += 10 + stringWidth(v) }
        return width
    }

    /// Writes the line for `fix` at `p`, which has room for `maxWidth(fix)` bytes, and returns
    /// its length.
    // SAFETY: `p` has room for `maxWidth(fix)` bytes (the caller's stack buffer), valid for the
    // call; each member writes at most the width `maxWidth` counted for it.
    @inline(__always)
    static func encode(_ fix: Fix, to p: UnsafeMutablePointer<UInt8>, memo: inout FixLineMemo) -> Int {
        var at = p
        @inline(__always) func key(_ k: StaticString) {
            // SAFETY: `k` is a StaticString in the binary (valid for the run), `utf8CodeUnitCount`
            // bytes; `at` has room for them (counted in `maxWidth`).
            UnsafeMutableRawPointer(at).copyMemory(from: k.utf8Start, byteCount: k.utf8CodeUnitCount)
            at += k.utf8CodeUnitCount
        }
        @inline(__always) func number(_ k: StaticString, _ v: Double?) {
            guard let v else { return }
            key(k)
            at += DecimalNumber.write(v, to: at)
        }
        // lat is always there, so every member after it starts with a comma.
        if let t = fix.time {
            key(#"{"time":""#)
            at += memo.write(t, to: at)
            key(#"","lat":"#)
        } else {
            key(#"{"lat":"#)
        }
        at += DecimalNumber.write(fix.lat, to: at)
        key(#","lon":"#)
        at += DecimalNumber.write(fix.lon, to: at)
        number(#","alt":"#, fix.alt)
        number(#","hacc":"#, fix.hacc)
        number(#","vacc":"#, fix.vacc)
        number(#","speed":"#, fix.speed)
        number(#","course":"#, fix.course)
        number(#","cacc":"#, fix.cacc)
        number(#","hdop":"#, fix.hdop)
        number(#","vdop":"#, fix.vdop)
        number(#","pdop":"#, fix.pdop)
        if let v = fix.sat {
            key(#","sat":"#)
            at += writeInteger(v, to: at)
        }
        if let v = fix.name {
            key(#","name":"#)
            at += writeString(v, to: at)
        }
        if let v = fix.trace {
            key(#","trace":"#)
            at += memo.write(trace: v, to: at)
        }
        if let v = fix.seg {
            key(#","seg":"#)
            at += writeInteger(v, to: at)
        }
        if !fix.extra.isEmpty {
            at[0] = UInt8(ascii: ",")
            at += 1
            // SAFETY: `extra`'s storage, lent for the closure; its `count` bytes fit at `at`
            // (counted in `maxWidth`).
            fix.extra.withUnsafeBufferPointer { e in
                guard let base = e.baseAddress else { return }
                at.update(from: base, count: e.count)
                at += e.count
            }
        }
        at[0] = UInt8(ascii: "}")
        at[1] = UInt8(ascii: "\n")
        at += 2
        return at - p
    }

    public static func line(_ fix: Fix) -> String {
        var out: [UInt8] = []
        encode(fix, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// What a fix's line shares with the line before it, kept to be copied rather than worked out
/// again: the date while the fixes stay in one day, and the trace's JSON string while it is the
/// same (a trace's fixes come one after another). A writer of many lines keeps one between
/// them (`FixLines`); the lines are the same bytes without it.
public struct FixLineMemo {
    /// The day of `date`, since 1970-01-01; none before the first time.
    var day: Int64?
    /// `YYYY-MM-DDT` of `day`: its first eight bytes as they lie in memory, and the last three
    /// in the low bytes of the second word.
    var date: (UInt64, UInt64) = (0, 0)
    /// The trace last written, and what `writeString` wrote for it, when kept.
    var trace: String?
    var traceText: [UInt8] = []
    /// Whether the trace is kept: not for one line alone, which would pay for the copy.
    let keepsTrace: Bool

    public init(keepsTrace: Bool = true) { self.keepsTrace = keepsTrace }

    /// Writes `t` as `Timestamp.write(to:)` does (at most `Timestamp.maxWidth` bytes).
    // SAFETY: `p` has room for `Timestamp.maxWidth` (24) bytes (the caller's buffer, for the
    // call): a kept date is written as 16 bytes, the time of day over the last five; only the
    // 11 bytes of a date just written are read back.
    @inline(__always)
    mutating func write(_ t: Timestamp, to p: UnsafeMutablePointer<UInt8>) -> Int {
        let (day, ms) = t.writtenDay
        let raw = UnsafeMutableRawPointer(p)
        if day == self.day {
            raw.storeBytes(of: date.0, as: UInt64.self)
            raw.storeBytes(of: date.1.littleEndian, toByteOffset: 8, as: UInt64.self)
        } else {
            Timestamp.writeDate(day, to: p)
            self.day = day
            date = (raw.loadUnaligned(as: UInt64.self), UInt64(p[8]) | UInt64(p[9]) << 8 | UInt64(p[10]) << 16)
        }
        return 11 + Timestamp.writeTimeOfDay(ms, to: p + 11)
    }

    /// Writes `s` as `writeString(_:to:)` does (at most `stringWidth(s)` bytes), from the
    /// copy kept when it is the trace written last.
    // SAFETY: `p` has room for `stringWidth(s)` bytes (the caller's buffer, for the call);
    // `traceText` is what was written for `s`, no longer.
    @inline(__always)
    mutating func write(trace s: String, to p: UnsafeMutablePointer<UInt8>) -> Int {
        // The same UTF-8 bytes, not only the same text: `==` on strings also matches another
        // spelling of it (canonical equivalence). Only an ASCII trace is kept, and a string
        // equal to an ASCII one is either it, byte for byte, or holds a character that stands
        // for an ASCII one (U+212A KELVIN SIGN for K, U+037E for ';'), two or three bytes for
        // one: it is longer. `==` on the same string is one comparison of its bits; comparing
        // the bytes one by one (`elementsEqual`) cost more than writing them again.
        if let last = trace, s.utf8.count == last.utf8.count, s == last {
            // SAFETY: `traceText`'s storage, lent for the copy only.
            return traceText.withUnsafeBufferPointer { b in
                guard let base = b.baseAddress else { return 0 }
                p.update(from: base, count: b.count)
                return b.count
            }
        }
        let n = writeString(s, to: p)
        if keepsTrace {
            trace = s.utf8.allSatisfy { $0 < 0x80 } ? s : nil
            traceText = Array(UnsafeBufferPointer(start: p, count: n))
        }
        return n
    }
}

/// Writes a decimal integer at `p` (room for 20 bytes) and returns its length.
// SAFETY: `p` has room for 20 bytes, the longest Int (the caller's buffer, for the call).
@inline(__always)
func writeInteger(_ v: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
    var at = p
    if v < 0 {
        at[0] = UInt8(ascii: "-")
        at += 1
    }
    let m = UInt64(v.magnitude)
    let n = m == 0 ? 1 : DecimalNumber.digitCount(m)
    DecimalNumber.writeDigits(m, count: n, endingAt: at + n)
    return at + n - p
}

/// The most bytes `writeString` writes for `s`: every byte as `\u00XX`, and the quotes.
@inline(__always)
func stringWidth(_ s: String) -> Int { 2 + 6 * s.utf8.count }

/// Writes `s` as a JSON string (see `writeString(_:into:)`) at `p`, which has room for
/// `stringWidth(s)` bytes, and returns the length.
// SAFETY: `p` has room for `stringWidth(s)` bytes, valid for the call; `s`'s UTF-8 storage is lent
// by `withUTF8` for the closure only.
func writeString(_ s: String, to p: UnsafeMutablePointer<UInt8>) -> Int {
    var s = s
    return s.withUTF8 { writeString(utf8: $0, to: p) }
}

/// The same from a string's UTF-8 bytes (a fence id as `FenceTable` keeps it), at `p`, which has
/// room for `2 + 6 · bytes.count` bytes.
// SAFETY: `bytes` is the caller's, valid for the call; `p` has room for `2 + 6 · bytes.count`
// bytes: two quotes, and at most six bytes (`\u00XX`) for each byte of `bytes`.
func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, to p: UnsafeMutablePointer<UInt8>) -> Int {
    p[0] = UInt8(ascii: "\"")
    var at = p + 1
    // Most strings need no escape: one check of every byte, a word at a time, then one copy.
    if let base = bytes.baseAddress, JSONByte.writesPlain(base, count: bytes.count) {
        at.update(from: base, count: bytes.count)
        at += bytes.count
    } else {
        let hex: StaticString = "0123456789abcdef"
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if c == 0xF4, let b = ByteText.standIn(bytes, at: i - 1) {
                at[0] = b  // a byte that is not UTF-8, written back as it was read (ByteText)
                at += 1
                i += 3
                continue
            }
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                at[0] = c
                at += 1
                continue
            }
            at[0] = UInt8(ascii: "\\")
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): at[1] = c
            case 0x0A: at[1] = UInt8(ascii: "n")
            case 0x0D: at[1] = UInt8(ascii: "r")
            case 0x09: at[1] = UInt8(ascii: "t")
            default:
                at[1] = UInt8(ascii: "u")
                at[2] = 48
                at[3] = 48
                at[4] = hex.utf8Start[Int(c >> 4)]
                at[5] = hex.utf8Start[Int(c & 15)]
                at += 4
            }
            at += 2
        }
    }
    at[0] = UInt8(ascii: "\"")
    return at + 1 - p
}

/// Appends the JSON string of these UTF-8 bytes, as `writeString(_:into:)` appends a string's.
public func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
    // SAFETY: a temporary buffer of `2 + 6 · bytes.count` bytes, alive for the closure only:
    // `writeString(utf8:to:)` writes at most that many, copied into `out` before it ends.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 + 6 * bytes.count) { b in
        guard let p = b.baseAddress else { return }
        out.append(contentsOf: UnsafeBufferPointer(start: p, count: writeString(utf8: bytes, to: p)))
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
    // SAFETY: the 24 bytes of the local tuple, for the closure only; at most 20 digits are written.
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
/// a byte that is not UTF-8 as it was read (`ByteText`), everything else as its UTF-8 bytes.
/// `writeString(_:to:)` writes it, into a buffer of `stringWidth(s)` bytes (on the stack for
/// a short string), so that the two forms cannot drift apart.
public func writeString(_ s: String, into out: inout [UInt8]) {
    // SAFETY: a temporary buffer of `stringWidth(s)` bytes, alive for the closure only:
    // `writeString(_:to:)` writes at most that many, and they are copied into `out` before it ends.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: stringWidth(s)) { b in
        guard let p = b.baseAddress else { return }
        out.append(contentsOf: UnsafeBufferPointer(start: p, count: writeString(s, to: p)))
    }
}
