#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An input as a reader sees it: the bytes gpx2fix already read to recognise the format
/// (replayed first), then the rest of the input, decompressed if it was gzip.
///
/// The byte order mark and the white space before the first meaningful byte are not replayed
/// (formats never need them); `firstLine` says on which line of the input the replayed bytes
/// start, so that line numbers in messages stay those of the file.
public final class InputSource {
    public let input: InputReader
    /// The input's name, for messages.
    public var name: InputName { input.name }
    /// The 1-based line of the input on which the first byte `read` returns stands.
    public let firstLine: Int
    /// How many bytes of the input come before the first byte `read` returns.
    public let firstOffset: Int
    private var head: [UInt8]
    private var headOffset = 0
    /// The first bytes of the head, kept for messages after it has been read.
    let headPrefix: [UInt8]

    public init(input: InputReader, head: [UInt8], firstLine: Int = 1, firstOffset: Int = 0) {
        self.input = input
        self.head = head
        self.headPrefix = Array(head.prefix(64))
        self.firstLine = firstLine
        self.firstOffset = firstOffset
    }

    /// Reads up to `capacity` bytes into `p`; 0 at the end of the input. Never more than
    /// `capacity`, and may return fewer than are available (as `read(2)` does).
    public func read(into p: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        if headOffset < head.count {
            let n = min(capacity, head.count - headOffset)
            head.withUnsafeBytes { raw in
                // SAFETY: `raw` is valid for the closure; n bytes from headOffset are in bounds
                // (n <= head.count - headOffset), and `p` has room for `capacity` >= n.
                _ = memcpy(p, raw.baseAddress! + headOffset, n)
            }
            headOffset += n
            if headOffset == head.count { head = [] }
            return n
        }
        return try input.read(into: p, capacity: capacity)
    }

    /// Reads into `buffer` from its start; returns the number of bytes read, 0 at the end.
    public func read(into buffer: inout [UInt8]) throws -> Int {
        try buffer.withUnsafeMutableBytes { raw in
            // SAFETY: the pointer is valid inside this closure, which `read` does not outlive.
            try read(into: raw.baseAddress!, capacity: raw.count)
        }
    }
}

extension InputSource {
    /// The start of the input's first line, escaped, for a message saying what came.
    var shownHead: String {
        "\"" + escapedForMessage(headPrefix.prefix(while: { $0 != 0x0A && $0 != 0x0D }).prefix(40)) + "\""
    }
}

/// Bytes as printable text for a message: valid UTF-8 as it is, control bytes and invalid
/// UTF-8 as `\xNN` escapes, so that a binary file never writes raw bytes to a terminal.
func escapedForMessage(_ bytes: some Collection<UInt8>) -> String {
    var out = ""
    var it = Array(bytes)[...]
    while let b = it.first {
        if b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\\") {
            out.unicodeScalars.append(Unicode.Scalar(b))
            it = it.dropFirst()
            continue
        }
        if b >= 0xC2 && b <= 0xF4 {
            // A whole UTF-8 sequence is shown as the character.
            let need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            if it.count >= need {
                let seq = it.prefix(need)
                var decoder = UTF8()
                var iterator = seq.makeIterator()
                if case .scalarValue(let scalar) = decoder.decode(&iterator),
                    !scalar.properties.generalCategory.isControl
                {
                    out.unicodeScalars.append(scalar)
                    it = it.dropFirst(need)
                    continue
                }
            }
        }
        out += b == UInt8(ascii: "\\") ? "\\\\" : "\\x" + String(b, radix: 16, uppercase: false).leftPadded(2)
        it = it.dropFirst()
    }
    return out
}

extension Unicode.GeneralCategory {
    fileprivate var isControl: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String {
        count >= n ? self : String(repeating: "0", count: n - count) + self
    }
}
