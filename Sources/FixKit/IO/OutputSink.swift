#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Buffered output to a file descriptor: records are appended to `buffer`, which is written
/// when it passes 64 KiB and whenever the input side is about to wait for more bytes (see
/// `InputReader`), so a live pipe sees each fix as soon as the input that made it was read,
/// while a batch run makes one write per 64 KiB, not one per line.
///
/// Tools do not append to it themselves: their records go through a `RecordWriter`
/// (`document(_:_:)`, in Output/), which owns each document's framing.
public final class OutputSink {
    public let fd: Int32
    /// Bytes not yet written. `RecordOutput` appends to it, then calls `didAppend()`.
    /// Unchecked: a writer given `&buffer` only appends bytes it makes itself, and nothing
    /// else runs while it does (one thread, no callbacks); the run-time check on this class
    /// property, taken for every record each tool writes, cost 2 calls into the runtime a fix.
    @exclusivity(unchecked) var buffer: [UInt8] = []
    static let threshold = 1 << 16

    public init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(OutputSink.threshold + 4096)
    }

    /// Writes the buffer once it is large enough.
    @inline(__always)
    func didAppend() throws(OutputError) {
        if buffer.count >= OutputSink.threshold { try flush() }
    }

    func write(_ bytes: some Sequence<UInt8>) throws(OutputError) {
        buffer.append(contentsOf: bytes)
        try didAppend()
    }

    func write(_ text: String) throws(OutputError) {
        try write(text.utf8)
    }

    /// Writes everything buffered. A reader that has gone away (EPIPE) is `.closed`, which tools
    /// treat as a quiet end; any other failure is `.failed` and is reported.
    public func flush() throws(OutputError) {
        guard !buffer.isEmpty else { return }
        var failure: OutputError?
        // SAFETY: `buffer`'s storage, lent for the closure only and not resized in it; each write
        // reads `offset ..< raw.count` of it. (`buffer` is never empty here, so `baseAddress` is
        // there; without it there would be nothing to write.)
        buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Glibc_write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    let e = errno
                    if e == EINTR { continue }
                    failure = e == EPIPE ? .closed : .failed(errno: e)
                    return
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
        if let failure { throw failure }
    }
}

// SAFETY: `p` must point at `n` readable bytes for the call.
@inline(__always)
func Glibc_write(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    write(fd, p, n)
}

public enum OutputError: Error, Equatable {
    /// The reader closed the pipe.
    case closed
    case failed(errno: Int32)

    public var message: String {
        switch self {
        case .closed: return "the output pipe was closed"
        case .failed(let e): return "writing output failed: \(String(cString: strerror(e)))"
        }
    }
}
