#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fixed-size records kept on disk between fixplot's two passes: the first pass reads the input
/// and learns the picture's extent, the second draws. Standard input cannot be read twice, and
/// a million fixes must not be held in memory, so each one is written here as a few numbers
/// (56 bytes) and read back in order.
///
/// The file is made in `$TMPDIR` (or `/tmp`) and unlinked at once: nothing is left behind,
/// whatever way the tool ends. Memory: one buffer of `chunk` records.
final class PlotSpool<Record: BitwiseCopyable> {
    let fd: Int32
    var buffer: [Record] = []
    let chunk = 1 << 14
    private(set) var count = 0

    init() throws(ToolFailure) {
        let dir = ProcessInfo_tmpdir()
        var template = Array((dir + "/fixplot-XXXXXX").utf8CString)
        let d = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard d >= 0 else {
            throw ToolFailure("cannot make a temporary file in \(dir): \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        fd = d
        buffer.reserveCapacity(chunk)
    }

    deinit { close(fd) }

    @inline(__always)
    func append(_ r: Record) throws(ToolFailure) {
        buffer.append(r)
        count += 1
        if buffer.count == chunk { try writeBuffer() }
    }

    private func writeBuffer() throws(ToolFailure) {
        let failed: Int32? = buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
        if let failed {
            throw ToolFailure("cannot write the temporary file: \(String(cString: strerror(failed)))")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with every record, in the order appended. Once only.
    func forEach(_ body: (Record) throws -> Void) throws {
        try writeBuffer()
        guard lseek(fd, 0, SEEK_SET) == 0 else {
            throw ToolFailure("cannot read the temporary file back: \(String(cString: strerror(errno)))")
        }
        var storage = [Record](unsafeUninitializedCapacity: chunk) { _, n in n = 0 }
        var left = count
        while left > 0 {
            let want = min(left, chunk)
            storage = [Record](unsafeUninitializedCapacity: want) { buf, n in
                let bytes = UnsafeMutableRawBufferPointer(buf)
                var got = 0
                while got < want * MemoryLayout<Record>.stride {
                    let r = read(fd, bytes.baseAddress! + got, want * MemoryLayout<Record>.stride - got)
                    if r < 0, errno == EINTR { continue }
                    if r <= 0 { break }
                    got += r
                }
                n = got / MemoryLayout<Record>.stride
            }
            guard storage.count == want else {
                throw ToolFailure("the temporary file was cut short")
            }
            for r in storage { try body(r) }
            left -= want
        }
    }
}

/// `$TMPDIR`, or `/tmp`.
func ProcessInfo_tmpdir() -> String {
    if let p = getenv("TMPDIR"), p.pointee != 0 {
        var s = String(cString: p)
        while s.count > 1, s.hasSuffix("/") { s.removeLast() }
        return s
    }
    return "/tmp"
}

/// A fix or a rejected fix, as the map's second pass needs it.
struct SpooledFix: BitwiseCopyable {
    var lat: Double
    var lon: Double
    /// Seconds since 1970, NaN without a time.
    var time: Double
    /// Metres; NaN when absent.
    var hacc: Double
    var speed: Double
    /// Index into the tool's traces (0: fixes without a trace).
    var trace: Int32
    var seg: Int32
    /// -1 for a fix; a reject's reason index otherwise.
    var reason: Int32
    var pad: Int32 = 0
}

/// One point of a P(inside) series, or (series < 0) the mark that trace `-series - 1` had a
/// --trace record at `time`, after its samples, so that fences it left out count as P = 0.
struct SpooledSample: BitwiseCopyable {
    var time: Double
    var p: Double
    var series: Int32
    var inside: Int32
}
