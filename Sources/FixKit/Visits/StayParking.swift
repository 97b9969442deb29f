/// Where visits keeps the fixes of the stays of traces that have gone quiet, so that memory
/// does not grow with the number of traces (a stream of a new trace a day, each ending inside a
/// stay, kept every day's stay in memory to the end of the run).
///
/// Parking is exact: a parked detector's arrays (the stays' fixes, their weights, the running
/// medians' heaps) are written here as their own bytes and read back as they were, so a trace
/// gives the same visits however often it is parked and woken, whatever the other traces do
/// (SPEC, "Many machines"). What stays in memory is the detector's fixed-size part and, for a
/// stay past `StaySummary.exactLimit` fixes, its bounded summary.
///
/// One `TemporaryFile`, made at the first park: unlinked at once and closed with the spool, so
/// nothing is left behind however the run ends. Each detector reuses its own region of the
/// file when what it parks fits (a region is half as large again as what first filled it), so
/// the file holds about one parked state per trace, not one per park.
final class StaySpool {
    private var file: TemporaryFile?
    /// Where the next new region begins: the end of the last one's capacity.
    private var end: Int64 = 0

    /// Where a parked state is: its bytes are `offset ..< offset + count`, and the region it
    /// may grow into ends at `offset + capacity`.
    struct Region {
        var offset: Int64
        var capacity: Int
        var count: Int
    }

    init() {}

    /// The bytes in the file, for the soak's and the tests' checks.
    var size: Int64 { file?.size ?? 0 }

    /// Writes `bytes` into `region` when they fit, or else into a new region at the end.
    func store(_ bytes: [UInt8], reusing region: Region?) throws -> Region {
        do throws(SystemError) {
            if file == nil { file = try TemporaryFile(prefix: "visits-stays") }
            var r = region ?? Region(offset: end, capacity: 0, count: 0)
            if bytes.count > r.capacity {
                // A new region past every other's capacity, not only past the bytes written.
                r = Region(offset: end, capacity: bytes.count + bytes.count / 2, count: 0)
                end += Int64(r.capacity)
            }
            r.count = bytes.count
            try file?.write(bytes[...], at: r.offset)
            return r
        } catch {
            throw ToolFailure("cannot keep the stays of quiet traces in a temporary file: \(error.reason)")
        }
    }

    /// The bytes `store` wrote into `region`.
    func load(_ region: Region) throws -> [UInt8] {
        let bytes: [UInt8]
        do throws(SystemError) {
            bytes = try file?.read(at: region.offset, count: region.count) ?? []
        } catch {
            throw ToolFailure("cannot read back the stays of quiet traces: \(error.reason)")
        }
        guard bytes.count == region.count else { throw Self.cutShort }
        return bytes
    }

    static var cutShort: ToolFailure {
        ToolFailure("cannot read back the stays of quiet traces: the temporary file was cut short")
    }
}

/// Arrays of plain values as bytes, for `StaySpool`: each array as its count (8 bytes) and then
/// its elements' own bytes, read back in the order written.
struct ParkedBytes {
    private(set) var bytes: [UInt8] = []
    private var at = 0

    init() {}

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { at == bytes.count }

    mutating func put<T: BitwiseCopyable>(_ values: [T]) {
        // SAFETY: a local's bytes and the array's storage, each lent for its call only.
        withUnsafeBytes(of: Int64(values.count).littleEndian) { bytes.append(contentsOf: $0) }
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    mutating func take<T: BitwiseCopyable>(_: T.Type) throws -> [T] {
        guard bytes.count - at >= 8 else { throw StaySpool.cutShort }
        // SAFETY: 8 bytes of `bytes` from `at` (checked above), read as they lie.
        let n = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: Int64.self) }
        at += 8
        let count = Int(Int64(littleEndian: n))
        let size = MemoryLayout<T>.stride
        guard count >= 0, count <= (bytes.count - at) / max(1, size) else { throw StaySpool.cutShort }
        let length = count * size
        let from = at
        // SAFETY: the new array's storage is `count` elements, all written here from `length`
        // bytes of `bytes` (checked above); T is BitwiseCopyable, so its bytes are a value.
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            bytes.withUnsafeBytes { src in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: src[from..<from + length]))
            }
            initialized = count
        }
        at += length
        return values
    }
}

extension Timestamp: BitwiseCopyable {}
