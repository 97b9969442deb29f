#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a whole-file read failed: the C library's errno.
struct FileReadError: Error {
    var errno: Int32
}

/// The whole contents of a file; `-` is standard input (read, not closed).
func readWholeFile(_ path: String) throws(FileReadError) -> [UInt8] {
    let fd = path == "-" ? 0 : ByteText.withPath(path) { open($0, O_RDONLY | O_CLOEXEC) }
    guard fd >= 0 else { throw FileReadError(errno: errno) }
    defer { if fd != 0 { close(fd) } }
    // Read straight into a buffer of the file's size (a pipe grows it as needed), so a 60 MB
    // fences file is not copied chunk by chunk through doubling reallocations.
    var st = stat()
    var capacity = 1 << 16
    if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG { capacity = max(capacity, Int(st.st_size) + 1) }
    var out = [UInt8](repeating: 0, count: capacity)
    var filled = 0
    while true {
        if filled == out.count { out.append(contentsOf: repeatElement(0, count: out.count)) }
        // SAFETY: the pointer is used only inside the closure, while `out` is not resized; the
        // read stays within its `count` bytes.
        let n = out.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return read(fd, base + filled, buffer.count - filled)
        }
        if n < 0 {
            if errno == EINTR { continue }
            throw FileReadError(errno: errno)
        }
        if n == 0 { break }
        filled += n
    }
    out.removeSubrange(filled...)
    return out
}

/// A regular file mapped into memory, read-only, for a parser that reads it once from end to
/// end; nil where mapping is not possible (not a regular file, empty, or the system refuses),
/// and the caller reads it instead. The file must not shrink while it is mapped: a page past
/// its new end would be a bus error, where a read would see a short file.
struct MappedFile {
    let bytes: UnsafeBufferPointer<UInt8>

    init?(path: String) {
        let fd = ByteText.withPath(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 else { return nil }
        #if os(Linux)
            // Mapped in full at once: one call instead of a fault every few pages.
            let flags = MAP_PRIVATE | MAP_POPULATE
        #else
            let flags = MAP_PRIVATE
        #endif
        let size = Int(st.st_size)
        // MAP_FAILED, (void *)-1, spelt out: Darwin's headers do not give it to Swift.
        guard let base = mmap(nil, size, PROT_READ, flags, fd, 0), base != UnsafeMutableRawPointer(bitPattern: -1)
        else { return nil }
        // The parser reads it once, in order.
        _ = madvise(base, size, MADV_SEQUENTIAL)
        bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size)
    }

    /// Ends the mapping; `bytes` must not be read after.
    func unmap() {
        // SAFETY: the mapping `init` made, of exactly this size, ended once by its owner.
        _ = munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }
}
