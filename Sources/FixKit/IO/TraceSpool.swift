#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes kept per trace until the end of a run, in bounded memory: fix2gpx's way to write
/// one `<trk>` (or one file) per trace when the input interleaves them.
///
/// Up to `memoryLimit` bytes (4 MiB) stay in memory over all traces; past that the biggest
/// holdings are written to one anonymous temporary file as blocks, until half the limit is
/// left, so the file gets large blocks and memory stays bounded whatever the input. What a
/// trace holds comes back in the order it was appended.
/// - Complexity: appending is amortised O(1) per byte; memory is the limit plus an offset
///   and a length per block written.
struct TraceSpool {
    private var memory: [[UInt8]] = []
    private var blocks: [[(offset: Int64, count: Int)]] = []
    private var held = 0
    private var file: UnsafeMutablePointer<FILE>?
    private var fileEnd: Int64 = 0
    let memoryLimit: Int

    init(memoryLimit: Int = 4 << 20) {
        self.memoryLimit = memoryLimit
    }

    /// A new holder; its index names it from now on.
    mutating func add() -> Int {
        memory.append([])
        blocks.append([])
        return memory.count - 1
    }

    /// Appends to what trace `k` holds whatever `body` writes.
    mutating func append(_ k: Int, _ body: (inout [UInt8]) -> Void) throws {
        let before = memory[k].count
        body(&memory[k])
        held += memory[k].count - before
        if held >= memoryLimit { try spill() }
    }

    private mutating func spill() throws {
        if file == nil {
            file = tmpfile()
            guard file != nil else { throw ToolFailure("cannot hold traces in a temporary file: \(String(cString: strerror(errno)))") }
        }
        let order = memory.indices.filter { !memory[$0].isEmpty }.sorted { memory[$0].count > memory[$1].count }
        for k in order where held > memoryLimit / 2 {
            let count = memory[k].count
            guard fseeko(file, 0, SEEK_END) == 0,
                memory[k].withUnsafeBytes({ fwrite($0.baseAddress, 1, count, file) }) == count
            else { throw ToolFailure("cannot hold traces in a temporary file: \(String(cString: strerror(errno)))") }
            blocks[k].append((fileEnd, count))
            fileEnd += Int64(count)
            held -= count
            memory[k].removeAll()
        }
    }

    /// Writes what trace `k` holds to `output`, in order, and lets it go.
    mutating func drain(_ k: Int, to output: OutputSink) throws {
        if let file, !blocks[k].isEmpty {
            fflush(file)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            for block in blocks[k] {
                guard fseeko(file, off_t(block.offset), SEEK_SET) == 0 else { throw ToolFailure("cannot read back the temporary file of traces") }
                var left = block.count
                while left > 0 {
                    let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, min(left, $0.count), file) }
                    guard n > 0 else { throw ToolFailure("cannot read back the temporary file of traces") }
                    try output.write(chunk[..<n])
                    left -= n
                }
            }
            blocks[k] = []
        }
        held -= memory[k].count
        try output.write(memory[k])
        memory[k] = []
    }

    /// Closes (and so deletes) the temporary file.
    mutating func close() {
        if let file { fclose(file) }
        file = nil
    }
}
