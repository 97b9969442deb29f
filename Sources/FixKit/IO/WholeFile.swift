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
