/// Fixed-size records kept on disk between fixplot's two passes: the first pass reads the input
/// and learns the picture's extent, the second draws. Standard input cannot be read twice, and
/// a million fixes must not be held in memory, so each one is written here as a few numbers
/// (56 bytes) and read back in order.
///
/// The file is a `TemporaryFile` (in `$TMPDIR` or `/tmp`, unlinked at once): nothing is left
/// behind, whatever way the tool ends. Memory: one buffer of `chunk` records.
final class PlotSpool<Record: BitwiseCopyable> {
    private let file: TemporaryFile
    var buffer: [Record] = []
    let chunk = 1 << 14
    private(set) var count = 0

    init() throws(ToolFailure) {
        do throws(SystemError) {
            file = try TemporaryFile(prefix: "fixplot")
        } catch {
            throw ToolFailure("cannot make a temporary file in \(temporaryDirectory()): \(error.reason)")
        }
        buffer.reserveCapacity(chunk)
    }

    @inline(__always)
    func append(_ r: Record) throws(ToolFailure) {
        buffer.append(r)
        count += 1
        if buffer.count == chunk { try writeBuffer() }
    }

    private func writeBuffer() throws(ToolFailure) {
        // SAFETY: the buffer's records as bytes (`Record` is BitwiseCopyable), lent to the
        // write for the call only.
        let failed: SystemError? = buffer.withUnsafeBytes { raw in
            do throws(SystemError) {
                try file.append(raw)
                return nil
            } catch { return error }
        }
        if let failed {
            throw ToolFailure("cannot write the temporary file: \(failed.reason)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with every record, in the order appended. Once only.
    func forEach(_ body: (Record) throws -> Void) throws {
        try writeBuffer()
        let stride = MemoryLayout<Record>.stride
        var left = count
        var offset: Int64 = 0
        while left > 0 {
            let want = min(left, chunk)
            var failure: SystemError?
            // SAFETY: the new array's uninitialised storage of `want` records, as bytes; the
            // read fills at most `want * stride` bytes of it, and `n` counts only whole records
            // read, all of them initialised (`Record` is BitwiseCopyable: any bytes written by
            // `append` are a valid value).
            let storage = [Record](unsafeUninitializedCapacity: want) { buf, n in
                do throws(SystemError) {
                    let got = try file.read(at: offset, into: UnsafeMutableRawBufferPointer(buf))
                    n = got / stride
                } catch {
                    failure = error
                    n = 0
                }
            }
            if let failure {
                throw ToolFailure("cannot read the temporary file back: \(failure.reason)")
            }
            guard storage.count == want else {
                throw ToolFailure("the temporary file was cut short")
            }
            for r in storage { try body(r) }
            offset += Int64(want * stride)
            left -= want
        }
    }
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
