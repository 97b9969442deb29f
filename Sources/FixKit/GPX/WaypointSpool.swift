#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Holds a file's waypoints until it is known whether the file has track or route points:
/// GPX puts `<wpt>` first, and gpx2fix writes waypoints only when there are none.
///
/// Up to 4 MiB of encoded fixes stay in memory; beyond that they go to an anonymous
/// temporary file, so a file of a million waypoints does not grow memory either.
struct WaypointSpool {
    private var memory: [UInt8] = []
    private var file: UnsafeMutablePointer<FILE>?
    private var discarded = false
    static let memoryLimit = 4 << 20

    mutating func append(_ fix: Fix) throws {
        guard !discarded else { return }
        FixEncoder.encode(fix, into: &memory)
        if memory.count >= WaypointSpool.memoryLimit { try spill() }
    }

    private mutating func spill() throws {
        if file == nil {
            file = tmpfile()
            guard file != nil else { throw SpoolError(errno: errno) }
        }
        let written = memory.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == memory.count else { throw SpoolError(errno: errno) }
        memory.removeAll(keepingCapacity: true)
    }

    mutating func discard() {
        discarded = true
        memory = []
        if let file { fclose(file) }
        file = nil
    }

    /// Writes the spooled waypoints, in order, and empties the spool.
    mutating func drain(to output: OutputSink) throws {
        defer { discard() }
        if let file {
            rewind(file)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
                if n == 0 { break }
                try output.write(chunk[..<n])
            }
        }
        try output.write(memory)
    }
}

struct SpoolError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { "cannot hold waypoints in a temporary file: \(String(cString: strerror(errno)))" }
}
