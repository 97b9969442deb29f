#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One input operand: a file path, or `-` for standard input.
public struct InputName: Sendable, Equatable {
    /// As given on the command line; `-` is standard input.
    public var path: String

    public init(_ path: String) { self.path = path }

    public var isStandardInput: Bool { path == "-" }

    /// The path as a message shows it: printable, bytes that are not UTF-8 and control
    /// characters as `\xNN` escapes.
    public var shown: String { escapedForMessage(ByteText.bytes(path)) }

    /// The last path component, which gpx2fix uses as a trace name; nil for standard input.
    public var fileName: String? {
        guard !isStandardInput else { return nil }
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        return name.isEmpty ? nil : name
    }
}

/// Reads a file descriptor in large chunks. Before every `read` that may wait, it calls
/// `beforeRead` (tools pass the output's flush), so output reaches a pipe as soon as the
/// input that made it has been read, without a write per record in batch runs.
public final class InputReader {
    public let name: InputName
    let fd: Int32
    let ownsDescriptor: Bool
    let beforeRead: () throws -> Void
    static let chunkSize = 1 << 18

    /// Opens `name`; standard input is not closed at the end. With `decompressing`, gzip data
    /// is read decompressed.
    public init(
        name: InputName, decompressing: Bool = false, beforeRead: @escaping () throws -> Void
    ) throws(InputError) {
        self.name = name
        self.decompressing = decompressing
        self.beforeRead = beforeRead
        if name.isStandardInput {
            fd = 0
            ownsDescriptor = false
        } else {
            let d = ByteText.withPath(name.path) { open($0, O_RDONLY | O_CLOEXEC) }
            guard d >= 0 else { throw InputError(name: name, errno: errno) }
            var st = stat()
            if fstat(d, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                close(d)
                throw InputError(name: name, errno: EISDIR)
            }
            fd = d
            ownsDescriptor = true
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Whether gzip data is decompressed (gpx2fix); the NDJSON tools read bytes as they are.
    let decompressing: Bool
    /// Whether the input is gzip data, read decompressed (known after the first `read`).
    public private(set) var isGzip = false
    private var sniffed = false
    /// Bytes read to tell gzip from the rest, handed out first when the input is not gzip.
    private var sniffedBytes = ReplayBuffer()
    private var inflater: GzipInflater?

    /// The file name a reader takes as a trace name: without `.gz` when the data was gzip.
    public var traceFileName: String? {
        guard let n = name.fileName else { return nil }
        if isGzip, n.count > 3, n.hasSuffix(".gz") { return String(n.dropLast(3)) }
        return n
    }

    /// Reads up to `capacity` bytes into `into`; 0 at the end of the input. gzip data is
    /// decompressed, whatever the file is called.
    // SAFETY: `p` is the caller's buffer, with room for `capacity` bytes, lent for this call only;
    // every path below writes at most `capacity` bytes into it and keeps no pointer to it.
    public func read(into p: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        if !sniffed { try sniff() }
        if !sniffedBytes.isEmpty { return sniffedBytes.take(into: p, capacity: capacity) }
        if let inflater {
            do {
                return try inflater.read(into: p, capacity: capacity) { q, n in try rawRead(into: q, capacity: n) }
            } catch {
                if case .read(let e) = error { throw e }
                throw InputError(name: name, errno: 0, detail: error.reason)
            }
        }
        return try rawRead(into: p, capacity: capacity)
    }

    /// Reads the first three bytes, however the reads split them, to tell gzip data.
    private func sniff() throws {
        sniffed = true
        guard decompressing else { return }
        var first = [UInt8](repeating: 0, count: 3)
        var got = 0
        while got < 3 {
            // SAFETY: `first`'s 3 bytes are lent to the read for this closure only.
            let n = try first.withUnsafeMutableBytes { raw in
                // SAFETY: got < 3 leaves 3 - got bytes of room in the 3-byte buffer (never empty,
                // so its base address is there).
                guard let base = raw.baseAddress else { return 0 }
                return try rawRead(into: base + got, capacity: 3 - got)
            }
            if n == 0 { break }
            got += n
        }
        if GzipInflater.isGzip(first[..<got]) {
            isGzip = true
            inflater = GzipInflater(first: Array(first[..<got]))
        } else {
            sniffedBytes = ReplayBuffer(Array(first[..<got]))
        }
    }

    /// For tests: caps each read at the size it returns, given the read's number, so that a
    /// test can deliver a file in pieces of any size, as a pipe or a live feed does.
    var readSizeLimit: ((Int) -> Int)?
    private var reads = 0
    /// Bytes read from the descriptor so far (gzip data as stored), for progress lines.
    public private(set) var bytesRead: Int64 = 0

    /// The one `read(2)` of the descriptor, after `beforeRead`: every read that may wait
    /// (the sniff of a gzip magic split across reads and zlib's refills too) flushes first.
    // SAFETY: `p` has room for `capacity` bytes (the caller's promise); read(2) writes at most that
    // many, and the capped `capacity` is never larger.
    private func rawRead(into p: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        try beforeRead()
        var capacity = capacity
        if let readSizeLimit {
            reads += 1
            capacity = max(1, min(capacity, readSizeLimit(reads)))
        }
        while true {
            let n = Glibc_read(fd, p, capacity)
            if n >= 0 {
                bytesRead += Int64(n)
                return n
            }
            if errno == EINTR { continue }
            throw InputError(name: name, errno: errno)
        }
    }

    /// The longest line `forEachLine` hands over, in bytes, its line end aside (documented in
    /// fix(5)): a fix takes a few hundred bytes, and no record is anywhere near this.
    public static let maxLineLength = 1 << 20

    /// What every reader of fix records says of a line past `maxLineLength` (fix(5)).
    static let tooLongMessage = "longer than \(maxLineLength) bytes (1 MiB): no fix is that long; line skipped"

    /// Calls `body` with each line (without its `\n`, or a `\r\n`'s `\r`, and line 1 without a
    /// UTF-8 byte order mark) and its 1-based number. A last line without `\n` counts. A line longer than `maxLength` bytes is not
    /// kept: `tooLong` gets its number once, its bytes are dropped up to its end, and the lines
    /// after it are read as usual. Memory is one chunk plus `maxLength`, whatever the input;
    /// each byte is scanned once.
    public func forEachLine(
        maxLength: Int = InputReader.maxLineLength, tooLong: (Int) throws -> Void = { _ in },
        // SAFETY: `body`'s line points into `storage`, valid only during that call: the next read
        // moves or reallocates the buffer, so `body` must copy what it keeps.
        _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void
    ) throws {
        // Room for the longest line kept, its CR LF and a chunk read after it; grown as needed.
        let capacity = maxLength + 2 + InputReader.chunkSize
        var storage = [UInt8](repeating: 0, count: min(capacity, InputReader.chunkSize))
        var filled = 0  // bytes in storage
        var lineNumber = 0
        var eof = false
        var skipping = false  // in a line past maxLength: its bytes are dropped up to its end
        while !eof {
            if filled == storage.count {
                storage.append(contentsOf: repeatElement(0, count: min(storage.count, capacity - storage.count)))
            }
            // SAFETY: `storage`'s bytes are lent to the read for this closure only; the read writes
            // at most `raw.count - filled` bytes after the `filled` already there, so it stays
            // inside the buffer. `storage` is never empty (it starts at a chunk, or `capacity` bytes), so
            // it has a base address; without one there would be nothing to read into: the end.
            let n = try storage.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return 0 }
                return try read(into: base + filled, capacity: raw.count - filled)
            }
            if n == 0 { eof = true }
            let newEnd = filled + n
            var consumed = 0
            // SAFETY: `buf` is `storage`, not resized while the closure runs; every index used is
            // below `newEnd` <= `buf.count`, and lines handed to `body` do not outlive the closure.
            try storage.withUnsafeBufferPointer { buf in
                var searchFrom = filled
                while searchFrom < newEnd {
                    guard let nl = findNewline(buf, from: searchFrom, to: newEnd) else { break }
                    lineNumber += 1
                    if skipping {
                        skipping = false
                    } else {
                        var end = nl
                        if end > consumed, buf[end - 1] == 0x0D { end -= 1 }
                        if end - consumed > maxLength {
                            try tooLong(lineNumber)
                        } else {
                            try body(withoutBOM(buf, consumed, end, lineNumber), lineNumber)
                        }
                    }
                    consumed = nl + 1
                    searchFrom = consumed
                }
                if eof, consumed < newEnd, !skipping {
                    lineNumber += 1
                    var end = newEnd
                    if buf[end - 1] == 0x0D { end -= 1 }
                    if end - consumed > maxLength {
                        try tooLong(lineNumber)
                    } else {
                        try body(withoutBOM(buf, consumed, end, lineNumber), lineNumber)
                    }
                }
            }
            if eof { break }
            var rest = newEnd - consumed
            if skipping {
                rest = 0  // nothing of this line is kept
            } else if rest > maxLength + 1 {
                // Longer than any line kept, even with a CR LF to come: refuse it once.
                try tooLong(lineNumber + 1)
                skipping = true
                rest = 0
            }
            // Keep the unfinished line at the start of the buffer.
            if consumed > 0, rest > 0 {
                // SAFETY: `storage` is lent for the closure; `consumed + rest` = `newEnd` <= its
                // count, so both ranges of the move are inside it (memmove allows them to overlap).
                storage.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress else { return }  // not reached: rest > 0
                    _ = memmove(base, base + consumed, rest)
                }
            }
            filled = rest
        }
    }
}

/// The UTF-8 byte order mark that Windows editors put at the start of a file. Every input
/// (NDJSON lines, fences files, the head gpx2fix recognises a format from) skips it there.
let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

/// Line `number`'s bytes, `buf[start..<end]`, without the byte order mark (line 1 only; the
/// line is whole by then, so how the reads split it does not matter).
// SAFETY: the line returned is a part of `buf` and lives exactly as long as `buf`; `start..<end` is
// inside it (the callers' indices are below `newEnd`).
@inline(__always)
func withoutBOM(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ number: Int) -> UnsafeBufferPointer<
    UInt8
> {
    let line = UnsafeBufferPointer(rebasing: buf[start..<end])
    guard number == 1, line.starts(with: utf8ByteOrderMark) else { return line }
    return UnsafeBufferPointer(rebasing: line.dropFirst(utf8ByteOrderMark.count))
}

// SAFETY: `from..<to` lies inside `buf` (callers pass `to` <= `buf.count`); memchr reads only
// there, and the pointer it returns is inside `buf`, so its distance is an index of `buf`. `buf` is
// never empty here (`from < to` is checked by the caller's loop), so it has a base address; an empty
// one would hold no newline.
@inline(__always)
func findNewline(_ buf: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
    guard let base = buf.baseAddress, let p = memchr(base + from, 0x0A, to - from) else { return nil }
    return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
}

// SAFETY: `p` must have room for `n` bytes for the call (callers pass a buffer of their own and its
// free room).
@inline(__always)
func Glibc_read(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int) -> Int {
    read(fd, p, n)
}

/// An input that could not be opened or read.
public struct InputError: Error, Sendable {
    public var name: InputName
    public var errno: Int32
    /// What went wrong when it is not a system error (corrupt gzip data).
    public var detail: String?

    public init(name: InputName, errno: Int32, detail: String? = nil) {
        self.name = name
        self.errno = errno
        self.detail = detail
    }

    /// `cannot read: No such file or directory`, to follow `TOOL: FILE: `.
    public var reason: String { detail ?? "cannot read: \(String(cString: strerror(errno)))" }
}
