/// Bytes kept per trace until the end of a run, in bounded memory: fix2gpx's way to write
/// one `<trk>` (or one file) per trace when the input interleaves them.
///
/// Up to `memoryLimit` bytes (4 MiB) stay in memory over all traces; past that the biggest
/// holdings are written to one `TemporaryFile` as blocks, until half the limit is
/// left, so the file gets large blocks and memory stays bounded whatever the input. What a
/// trace holds comes back in the order it was appended.
/// - Complexity: appending is amortised O(1) per byte; memory is the limit plus an offset
///   and a length per block written.
struct TraceSpool {
    private var memory: [[UInt8]] = []
    private var blocks: [[(offset: Int64, count: Int)]] = []
    private var held = 0
    /// Released with the spool (or by `close`), on every path.
    private var file: TemporaryFile?
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
        do throws(SystemError) {
            if file == nil { file = try TemporaryFile(prefix: "fix2gpx-traces") }
            guard let spill = file else { return }
            let order = memory.indices.filter { !memory[$0].isEmpty }.sorted { memory[$0].count > memory[$1].count }
            for k in order where held > memoryLimit / 2 {
                let count = memory[k].count
                blocks[k].append((spill.size, count))
                try spill.append(memory[k][...])
                held -= count
                memory[k].removeAll()
            }
        } catch {
            throw ToolFailure("cannot hold traces in a temporary file: \(error.reason)")
        }
    }

    /// Writes what trace `k` holds to `output`, in order, and lets it go.
    mutating func drain(_ k: Int, to output: OutputSink) throws {
        if let file, !blocks[k].isEmpty {
            do {
                for block in blocks[k] {
                    try file.forEachChunk(from: block.offset, count: Int64(block.count)) { chunk in
                        try output.write(chunk)
                    }
                }
            } catch is SystemError {
                throw ToolFailure("cannot read back the temporary file of traces")
            } catch is TemporaryFileCutShort {
                throw ToolFailure("cannot read back the temporary file of traces")
            }
            blocks[k] = []
        }
        held -= memory[k].count
        try output.write(memory[k])
        memory[k] = []
    }

    /// Lets the temporary file go (it closes, and so disappears, when released).
    mutating func close() {
        file = nil
    }
}
