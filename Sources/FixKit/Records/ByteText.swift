#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes that need not be UTF-8 (file names, trace names read from a line), held in a `String`
/// without loss.
///
/// Valid UTF-8 is kept as it is. Each byte that is not part of a valid UTF-8 sequence, b in
/// 0x80...0xFF, becomes the private-use character U+10FF00 + b (U+10FF80...U+10FFFF), and
/// `bytes(_:)` turns those characters back into the bytes. So `r\xE9de.gpx` (Latin-1) opens
/// the file of that name, and a trace `caf\xE9` is written back as the same bytes by every
/// JSON writer (fix(5), "Names that are not UTF-8"); two Latin-1 names never merge into one
/// U+FFFD. Bytes that spell one of those 128 characters of plane 16 (private use, and two
/// noncharacters) are taken byte by byte too, so `bytes(decode(b)) == b` for any b; only
/// such a character reaching a writer from elsewhere (XML text) is written as its byte.
public enum ByteText {
    /// The first of the characters that stand for bytes: U+10FF00 + b.
    static let base: UInt32 = 0x10_FF00

    /// The bytes as a `String`, each byte outside valid UTF-8 as U+10FF00 + b.
    // SAFETY: `bytes` is the caller's, read during this call only; the String copies them.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let s = String(validating: bytes, as: UTF8.self), !(bytes.contains(0xF4) && holdsStandIns(bytes)) {
            return s
        }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            let need = sequenceLength(bytes, at: i)
            if need == 0 {
                out.append(Unicode.Scalar(base + UInt32(bytes[i])) ?? "\u{FFFD}")
                i += 1
                continue
            }
            var decoder = UTF8()
            // SAFETY: `i..<i + need` lies inside `bytes` (`sequenceLength` checked each
            // continuation byte against its count).
            var it = UnsafeBufferPointer(rebasing: bytes[i..<i + need]).makeIterator()
            if case .scalarValue(let scalar) = decoder.decode(&it) { out.append(scalar) }
            i += need
        }
        return String(out)
    }

    public static func decode(_ bytes: [UInt8]) -> String {
        // SAFETY: the array's storage, lent for the decode only.
        bytes.withUnsafeBufferPointer { decode($0) }
    }

    /// The length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none
    /// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
    // SAFETY: `b` is the caller's, valid for the call; `i < b.count` (the caller's loop), and each
    // further index is checked against the count in `cont`.
    static func sequenceLength(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let c = b[i]
        if c < 0x80 { return 1 }
        func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
            i + k < b.count && b[i + k] >= lo && b[i + k] <= hi
        }
        switch c {
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return cont(1, 0xA0) && cont(2) ? 3 : 0
        case 0xED: return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0
        case 0xE1...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xF0: return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4:
            // U+10FF80...U+10FFFF itself is taken byte by byte, so that it too comes back.
            if i + 2 < b.count, b[i + 1] == 0x8F, b[i + 2] & 0xFE == 0xBE { return 0 }
            return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }

    /// Whether valid UTF-8 bytes hold one of the characters that stand for bytes.
    // SAFETY: `b` is the caller's, valid for the call; indices are checked against its count.
    static func holdsStandIns(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i + 3 < b.count {
            if b[i] == 0xF4, b[i + 1] == 0x8F, b[i + 2] & 0xFE == 0xBE { return true }
            i += 1
        }
        return false
    }

    /// Whether `s` holds any character that stands for a byte (else its UTF-8 is its bytes).
    public static func holdsBytes(_ s: String) -> Bool {
        s.utf8.contains(0xF4) && s.unicodeScalars.contains { $0.value >= base + 0x80 }
    }

    /// The bytes `s` stands for: its UTF-8, with U+10FF80...U+10FFFF as the bytes 0x80...0xFF.
    public static func bytes(_ s: String) -> [UInt8] {
        guard holdsBytes(s) else { return Array(s.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            if scalar.value >= base + 0x80 {
                out.append(UInt8(scalar.value - base))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// The byte that a UTF-8 sequence `F4 8F B? ??` (U+10FF80...U+10FFFF) at `i` stands for,
    /// or nil when the bytes there are not such a sequence.
    // SAFETY: `b` is the caller's, valid for the call; `i + 3 < b.count` is checked before the
    // bytes after `i` are read.
    @inline(__always)
    static func standIn(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt8? {
        guard b[i] == 0xF4, i + 3 < b.count, b[i + 1] == 0x8F, b[i + 2] & 0xFE == 0xBE else { return nil }
        return 0x80 | ((b[i + 2] & 1) << 6) | (b[i + 3] & 0x3F)
    }

    /// Calls `body` with the bytes of `path` as a NUL-terminated C string, for `open(2)`.
    // SAFETY: `b` is a NUL-terminated array of this function; the pointer is lent to `body` for the
    // call only, which must not keep it.
    public static func withPath<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        var b = bytes(path)
        b.append(0)
        return try b.withUnsafeBufferPointer { p in
            // SAFETY: the pointer is valid during `body` only; b holds at least the NUL, so its
            // buffer has a base address (the empty C string stands in should it not).
            try p.withMemoryRebound(to: CChar.self) { c in
                guard let base = c.baseAddress else { return try body([0]) }
                return try body(base)
            }
        }
    }

    /// The command line as the process got it, each argument's bytes as `decode` keeps them
    /// (Swift's `CommandLine.arguments` turns bytes that are not UTF-8 into U+FFFD).
    public static var arguments: [String] {
        (0..<Int(CommandLine.argc)).map { k in
            // SAFETY: `argv` is the process's, alive for the whole run; each non-nil argument is
            // NUL-terminated, and `strlen` counts the bytes that are copied by `decode`.
            guard let p = CommandLine.unsafeArgv[k] else { return "" }
            let n = strlen(p)
            return p.withMemoryRebound(to: UInt8.self, capacity: n) { decode(UnsafeBufferPointer(start: $0, count: n)) }
        }
    }
}
