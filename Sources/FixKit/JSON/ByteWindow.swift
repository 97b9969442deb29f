#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sliding window onto an input: the bytes read but not yet consumed, and the line the
/// first of them stands on. The JSON readers work inside it, asking for more when a token or
/// an element runs past its end, so what they see never depends on how the input was split
/// into reads.
///
/// Memory is what the window holds: the longest element asked for plus one read.
final class ByteWindow {
    let source: InputSource
    /// Bytes held: `storage[start..<count]` is unconsumed.
    // SAFETY: allocated here for `capacity` bytes and owned by the window (freed in `deinit`, or
    // when replaced by a bigger or smaller one); `storage[0..<count]` is initialised by the reads,
    // and every pointer into it is valid only until the next `fill` or `discardAll`, which may move
    // it.
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private(set) var start = 0
    private(set) var count = 0
    private(set) var eof = false
    /// The 1-based line of `storage[start]`.
    private(set) var line: Int
    static let readSize = 1 << 18

    init(_ source: InputSource) {
        self.source = source
        self.line = source.firstLine
        capacity = ByteWindow.readSize * 2
        // SAFETY: `capacity` bytes, owned by the window until `deinit`.
        storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Bytes available from `start`.
    @inline(__always) var available: Int { count - start }

    /// The byte `offset` bytes after `start` (which must be available).
    @inline(__always) subscript(offset: Int) -> UInt8 { storage[start + offset] }

    /// The unconsumed byte at `offset` from `start`, reading more when needed; nil at the end.
    @inline(__always)
    func peek(_ offset: Int = 0) throws -> UInt8? {
        while offset >= available {
            if !(try fill()) { return nil }
        }
        return storage[start + offset]
    }

    /// Reads more input after what is held, moving the unconsumed bytes to the front first.
    /// Returns false at the end of the input. Offsets from `start` stay valid; pointers do not.
    @discardableResult
    func fill() throws -> Bool {
        if eof { return false }
        if start > 0 {
            let rest = count - start
            if rest > 0 { storage.update(from: storage + start, count: rest) }
            count = rest
            start = 0
        }
        if capacity - count < ByteWindow.readSize {
            // SAFETY: the new storage, twice the size; the `count` bytes held are copied in before
            // the old one is freed, and nothing else points into the old one (pointers handed out
            // are valid only until `fill`).
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            bigger.update(from: storage, count: count)
            storage.deallocate()
            storage = bigger
            capacity *= 2
        }
        let n = try source.read(into: storage + count, capacity: capacity - count)
        if n == 0 {
            eof = true
            return false
        }
        count += n
        return true
    }

    /// Consumes `n` bytes that hold `lines` line feeds.
    @inline(__always)
    func consume(_ n: Int, lines: Int) {
        start += n
        line += lines
    }

    /// Consumes `n` bytes, counting their line feeds.
    func consume(_ n: Int) {
        var lines = 0
        for k in 0..<n where storage[start + k] == JSONByte.lineFeed { lines += 1 }
        consume(n, lines: lines)
    }

    /// Drops everything held (the window is shrunk back if an element had grown it).
    func discardAll(lines: Int) {
        consume(available, lines: lines)
        if capacity > ByteWindow.readSize * 4 {
            storage.deallocate()
            capacity = ByteWindow.readSize * 2
            // SAFETY: a fresh window of `capacity` bytes, the old one freed just before (nothing is
            // held: `start` and `count` are reset).
            storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            start = 0
            count = 0
        }
    }

    /// Skips space, tab, CR and LF; returns the next byte (not consumed), nil at the end.
    func skipSpace() throws -> UInt8? {
        while true {
            while start < count {
                let c = storage[start]
                switch c {
                case JSONByte.lineFeed:
                    line += 1
                    start += 1
                case JSONByte.space, JSONByte.tab, JSONByte.carriageReturn:
                    start += 1
                default:
                    return c
                }
            }
            if !(try fill()) { return nil }
        }
    }

    /// The held bytes `offset..<offset+n` from `start`, valid until the next `fill`.
    // SAFETY: `start + offset + n` must not pass `count` (the callers ask only for bytes
    // available); valid until the next `fill`.
    func bytes(_ offset: Int, _ n: Int) -> UnsafeBufferPointer<UInt8> {
        // SAFETY: as above: inside `storage[start..<count]`.
        UnsafeBufferPointer(start: storage + start + offset, count: n)
    }

    /// Up to 40 bytes from `start` (to the end of their line), escaped for a message: what was
    /// found. It reads ahead to have them, so that the message does not depend on how much the
    /// last read happened to bring (found by fuzz target chunks); a read error here is left to
    /// the next read to report.
    func shown() -> String {
        while available < 40, !eof,
            !(0..<available).contains(where: {
                storage[start + $0] == JSONByte.lineFeed || storage[start + $0] == JSONByte.carriageReturn
            })
        {
            guard (try? fill()) == true else { break }
        }
        let n = min(available, 40)
        var end = 0
        while end < n, storage[start + end] != JSONByte.lineFeed, storage[start + end] != JSONByte.carriageReturn {
            end += 1
        }
        // SAFETY: `start + end <= count` (`end < n <= available`); read during this call only.
        return "\"" + escapedForMessage(UnsafeBufferPointer(start: storage + start, count: end)) + "\""
    }
}

extension ByteWindow {
    /// Calls `body` with each line (without its LF or CR LF) and its number. A line longer
    /// than `limit` is reported through `tooLong` with its number and skipped without being held.
    func forEachLine(
        // SAFETY: the line handed to `body` points into `storage`, valid during that call only (the
        // window moves on `fill`).
        limit: Int, _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void, tooLong: (Int) throws -> Void
    ) throws {
        var searched = 0
        var discarding = false
        while true {
            let p = storage + start
            let n = available
            // SAFETY: `p + searched ..< p + n` lies inside `storage[start..<count]`.
            let k =
                memchr(p + searched, Int32(JSONByte.lineFeed), n - searched).map {
                    p.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                } ?? n
            if k < n {
                let number = line
                if discarding {
                    discarding = false
                } else {
                    var end = k
                    if end > 0, p[end - 1] == JSONByte.carriageReturn { end -= 1 }
                    // SAFETY: `p ..< p + end` lies inside `storage[start..<count]` (`end <= k < n =
                    // available`); `body` reads it during the call.
                    try body(UnsafeBufferPointer(start: p, count: end), number)
                }
                consume(k + 1, lines: 1)
                searched = 0
                continue
            }
            searched = n
            if n > limit {
                if !discarding { try tooLong(line) }
                discarding = true
                discardAll(lines: 0)
                searched = 0
            }
            if !(try fill()) {
                if available > 0 && !discarding {
                    var end = available
                    if storage[start + end - 1] == JSONByte.carriageReturn { end -= 1 }
                    // SAFETY: `start + end <= count`; `body` reads it during the call.
                    try body(UnsafeBufferPointer(start: storage + start, count: end), line)
                }
                consume(available, lines: 0)
                return
            }
        }
    }
}
