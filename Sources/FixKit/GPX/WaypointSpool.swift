/// Holds a file's waypoints until it is known whether the file has track or route points:
/// GPX puts `<wpt>` first, and gpx2fix writes waypoints only when there are none.
///
/// Up to 4 MiB of encoded fixes stay in memory; beyond that they go to a `TemporaryFile`, so a
/// file of a million waypoints does not grow memory either. The temporary file is released
/// with the spool, whatever way the spool goes: drained, discarded, replaced by the next
/// input's, or dropped when an error (`--strict`) ends the run.
struct WaypointSpool {
    private var memory: [UInt8] = []
    private var file: TemporaryFile?
    private var discarded = false
    static let memoryLimit = 4 << 20

    mutating func append(_ fix: Fix) throws {
        guard !discarded else { return }
        FixEncoder.encode(fix, into: &memory)
        if memory.count >= WaypointSpool.memoryLimit { try spill() }
    }

    private mutating func spill() throws(SpoolError) {
        do throws(SystemError) {
            if file == nil { file = try TemporaryFile(prefix: "gpx2fix-waypoints") }
            try file?.append(memory[...])
        } catch {
            throw SpoolError(errno: error.errno)
        }
        memory.removeAll(keepingCapacity: true)
    }

    /// Drops what is held, and the temporary file with it.
    mutating func discard() {
        discarded = true
        memory = []
        file = nil
    }

    /// Writes the spooled waypoints, in order, and empties the spool.
    mutating func drain(to output: OutputSink) throws {
        defer { discard() }
        if let file {
            do {
                try file.forEachChunk(from: 0, count: file.size) { chunk in try output.write(chunk) }
            } catch let error as SystemError {
                throw SpoolError(errno: error.errno)
            }
        }
        try output.write(memory)
    }
}

struct SpoolError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { "cannot hold waypoints in a temporary file: \(SystemError.describe(errno))" }
}
