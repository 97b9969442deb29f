#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes that were read ahead (to tell gzip, or a format, from the first bytes) and must be
/// handed out again, first, by the next reads.
struct ReplayBuffer {
    private var bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8] = []) { self.bytes = bytes }

    var isEmpty: Bool { offset == bytes.count }

    /// Copies up to `capacity` of the bytes not yet handed out into `p`; 0 once all are.
    // SAFETY: `p` is the caller's buffer with room for `capacity` bytes, for this call only.
    mutating func take(into p: UnsafeMutableRawPointer, capacity: Int) -> Int {
        let n = min(capacity, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { raw in
            // SAFETY: n bytes from offset are within the array (n <= count - offset), and `p`
            // has room for capacity >= n bytes. n > 0, so the array is not empty and has a base
            // address.
            guard let base = raw.baseAddress else { return }
            _ = memcpy(p, base + offset, n)
        }
        offset += n
        if offset == bytes.count {
            bytes = []
            offset = 0
        }
        return n
    }
}
