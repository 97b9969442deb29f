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
    private var head: ReplayBuffer
    /// The first bytes of the head, kept for messages after it has been read.
    let headPrefix: [UInt8]

    public init(input: InputReader, head: [UInt8], firstLine: Int = 1, firstOffset: Int = 0) {
        self.input = input
        self.head = ReplayBuffer(head)
        self.headPrefix = Array(head.prefix(64))
        self.firstLine = firstLine
        self.firstOffset = firstOffset
    }

    /// Reads up to `capacity` bytes into `p`; 0 at the end of the input. Never more than
    /// `capacity`, and may return fewer than are available (as `read(2)` does).
    // SAFETY: `p` is the caller's buffer with room for `capacity` bytes, for this call only.
    public func read(into p: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        if !head.isEmpty { return head.take(into: p, capacity: capacity) }
        return try input.read(into: p, capacity: capacity)
    }

    /// Reads into `buffer` from its start; returns the number of bytes read, 0 at the end.
    public func read(into buffer: inout [UInt8]) throws -> Int {
        try buffer.withUnsafeMutableBytes { raw in
            // SAFETY: the pointer is valid inside this closure, which `read` does not outlive. An
            // empty buffer has no base address and room for nothing: 0 bytes read.
            guard let base = raw.baseAddress else { return 0 }
            return try read(into: base, capacity: raw.count)
        }
    }
}

extension InputSource {
    /// The start of the input's first line, escaped, for a message saying what came.
    var shownHead: String {
        "\"" + escapedForMessage(headPrefix.prefix(while: { $0 != 0x0A && $0 != 0x0D }).prefix(40)) + "\""
    }
}
