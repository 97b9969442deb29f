#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: the C library's errno, and its text.
struct SystemError: Error {
    var errno: Int32
    /// `strerror(errno)`: "No space left on device".
    var reason: String { SystemError.describe(errno) }

    static func describe(_ errno: Int32) -> String { String(cString: strerror(errno)) }

    /// The errno of the call that just failed.
    static var last: SystemError { SystemError(errno: lastErrno()) }
}

/// The C library's errno (a function, so that `SystemError.errno` does not hide it).
private func lastErrno() -> Int32 { errno }

/// A temporary file that holds bytes a tool cannot keep in memory (gpx2fix's held waypoints,
/// fix2gpx's traces, fixplot's second pass). It is made in `$TMPDIR` (or `/tmp`) and unlinked
/// at once, so nothing is left behind whatever way the tool ends, and the descriptor is closed
/// when the last reference goes away (`deinit`), on every path: an error thrown under
/// `--strict` included. Bytes are appended at the end and read back from any offset.
final class TemporaryFile {
    private let fd: Int32
    /// Bytes written so far: where the next `append` goes.
    private(set) var size: Int64 = 0

    /// Makes the file; `prefix` starts its (at once unlinked) name.
    init(prefix: String) throws(SystemError) {
        var template = Array((temporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        // SAFETY: `template` is a NUL-terminated array of this function, lent to mkstemp and
        // unlink for each call only; mkstemp writes within it (it replaces the six X's).
        let d = template.withUnsafeMutableBufferPointer { t -> Int32 in
            guard let base = t.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard d >= 0 else { throw SystemError.last }
        // SAFETY: as above; unlink only reads the name.
        template.withUnsafeBufferPointer { t in
            if let base = t.baseAddress { _ = unlink(base) }
        }
        fd = d
    }

    deinit { close(fd) }

    /// Appends all of `bytes` at the end of the file.
    // SAFETY: `bytes` is the caller's, readable for this call only; nothing keeps it.
    func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        try write(bytes, at: size)
    }

    /// Writes all of `bytes` at `offset` (at most `size`: over bytes written before, or at the
    /// end), growing the file when they reach past its end.
    // SAFETY: `bytes` is the caller's, readable for this call only; nothing keeps it.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        let done = try TemporaryFile.whole(bytes.count) { done in
            // SAFETY: `base + done ..< base + bytes.count` lies inside the caller's buffer, which
            // lives for this call; pwrite only reads it.
            pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done))
        }
        // pwrite writes something or fails; 0 for a count above 0 would be a device that takes
        // no more bytes.
        guard done == bytes.count else { throw SystemError(errno: EIO) }
        size = max(size, offset + Int64(done))
    }

    func append(_ bytes: ArraySlice<UInt8>) throws(SystemError) {
        try write(bytes, at: size)
    }

    /// `write(_:at:)` for an array's bytes.
    func write(_ bytes: ArraySlice<UInt8>, at offset: Int64) throws(SystemError) {
        // SAFETY: the slice's storage, lent for the call; `write` does not keep it.
        let failure: SystemError? = bytes.withUnsafeBytes { raw in
            do throws(SystemError) {
                try write(raw, at: offset)
                return nil
            } catch { return error }
        }
        if let failure { throw failure }
    }

    /// Reads up to `buffer.count` bytes from `offset` into `buffer`: how many, fewer only at
    /// the end of the file.
    // SAFETY: `buffer` is the caller's, writable for this call only; pread writes only inside it.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return try TemporaryFile.whole(buffer.count) { got in
            // SAFETY: `base + got ..< base + buffer.count` lies inside the caller's buffer, which
            // lives for this call; pread writes only there.
            pread(fd, base + got, buffer.count - got, off_t(offset) + off_t(got))
        }
    }

    /// The `count` bytes from `offset`; fewer only where the file ends first.
    func read(at offset: Int64, count: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        // SAFETY: the array's storage, lent to `read` for the call only, `count` bytes long.
        let got: Result<Int, SystemError> = bytes.withUnsafeMutableBytes { raw in
            do throws(SystemError) {
                return .success(try read(at: offset, into: raw))
            } catch { return .failure(error) }
        }
        bytes.removeLast(count - (try got.get()))
        return bytes
    }

    /// The retry loop of `pread` and `pwrite`: calls `io` with the bytes done so far until
    /// `count` are done, again after EINTR and after a short count; stops early when `io`
    /// returns 0 (the end of the file, for pread). Returns the bytes done; a failure throws its
    /// errno.
    @inline(__always)
    static func whole(_ count: Int, _ io: (_ done: Int) -> Int) throws(SystemError) -> Int {
        var done = 0
        while done < count {
            let n = io(done)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError.last
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Calls `body` with the bytes `offset ..< offset + count`, in order, a chunk of at most
    /// 64 KiB at a time (each chunk valid only during its call). Throws `.cutShort` when the
    /// file ends first.
    func forEachChunk(
        from offset: Int64, count: Int64, _ body: (ArraySlice<UInt8>) throws -> Void
    ) throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var at = offset
        let end = offset + count
        while at < end {
            let want = Int(min(Int64(chunk.count), end - at))
            // SAFETY: the chunk's storage, lent to `read` for the call only; `want` is at most
            // its count.
            let n = try chunk.withUnsafeMutableBytes { raw in
                try read(at: at, into: UnsafeMutableRawBufferPointer(rebasing: raw[..<want]))
            }
            guard n > 0 else { throw TemporaryFileCutShort() }
            try body(chunk[..<n])
            at += Int64(n)
        }
    }
}

/// The temporary file ended before the bytes written to it (someone truncated it).
struct TemporaryFileCutShort: Error {}

/// `$TMPDIR` without trailing slashes, or `/tmp`.
func temporaryDirectory() -> String {
    // SAFETY: getenv's string belongs to the environment, which nothing changes while it is
    // copied here.
    if let p = getenv("TMPDIR"), p.pointee != 0 {
        var s = String(cString: p)
        while s.count > 1, s.hasSuffix("/") { s.removeLast() }
        return s
    }
    return "/tmp"
}
