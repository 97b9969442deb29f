/// Fences as columns: their latitudes, longitudes and radii, and their ids as UTF-8 bytes end
/// to end, what fencerule keeps of a million fences. A `[Fence]` holds each id as a `String`:
/// making a million of them cost more than reading their bytes (111 instructions each), and
/// taking the array apart at the end 26 more; here an id becomes a `String` only when an event
/// or a message names its fence. The columns are plain memory, filled by a `Builder` (an
/// array's append checks its uniqueness and capacity, five columns a fence) and not changed
/// after, so copies of a table share them.
public struct FenceTable: @unchecked Sendable {
    // @unchecked: the storage is never written once `Builder.finish` has handed it over.
    private let storage: Storage
    public let count: Int

    /// The columns' memory, freed with the last table that holds it.
    final class Storage {
        // SAFETY: each pointer is an `allocateLarge` block of `capacity` entries (of ids,
        // `idCapacity` bytes), the first `count` (`idEnds[count - 1]` bytes) initialized by the
        // `Builder` that handed them over; trivial types, freed in `deinit` only.
        let lat: UnsafeMutablePointer<Double>
        let lon: UnsafeMutablePointer<Double>
        let radius: UnsafeMutablePointer<Double>
        let idEnds: UnsafeMutablePointer<Int>
        let idBytes: UnsafeMutablePointer<UInt8>
        let capacity: Int
        let idCapacity: Int

        init(
            lat: UnsafeMutablePointer<Double>, lon: UnsafeMutablePointer<Double>,
            radius: UnsafeMutablePointer<Double>, idEnds: UnsafeMutablePointer<Int>,
            idBytes: UnsafeMutablePointer<UInt8>, capacity: Int, idCapacity: Int
        ) {
            (self.lat, self.lon, self.radius, self.idEnds, self.idBytes) = (lat, lon, radius, idEnds, idBytes)
            (self.capacity, self.idCapacity) = (capacity, idCapacity)
        }

        deinit {
            System.deallocateLarge(lat, capacity: capacity)
            System.deallocateLarge(lon, capacity: capacity)
            System.deallocateLarge(radius, capacity: capacity)
            System.deallocateLarge(idEnds, capacity: capacity)
            System.deallocateLarge(idBytes, capacity: idCapacity)
        }
    }

    /// Fills a table's columns, one fence at a time, in memory of its own until `finish`
    /// hands it to the table.
    final class Builder {
        // Unchecked: only this class's methods touch them, one call at a time; the run-time
        // check on each cost more than a fence's parse.
        // SAFETY: each column holds `capacity` entries (the ids `idCapacity` bytes), allocated in
        // `init` or a growth, the first `count` (`idCount`) initialized; freed by a growth after
        // moving them, and otherwise owned by a `Storage`: the table's that `finish` makes, or
        // in `deinit` one that frees them at once.
        @exclusivity(unchecked) private var lat: UnsafeMutablePointer<Double>
        @exclusivity(unchecked) private var lon: UnsafeMutablePointer<Double>
        @exclusivity(unchecked) private var radius: UnsafeMutablePointer<Double>
        @exclusivity(unchecked) private var idEnds: UnsafeMutablePointer<Int>
        @exclusivity(unchecked) private var idBytes: UnsafeMutablePointer<UInt8>
        @exclusivity(unchecked) private(set) var count = 0
        @exclusivity(unchecked) private var capacity: Int
        @exclusivity(unchecked) private var idCount = 0
        @exclusivity(unchecked) private var idCapacity: Int
        /// How far the columns' pages are faulted in (`reachLimit`): fences, and id bytes.
        @exclusivity(unchecked) private var limit = 0
        @exclusivity(unchecked) private var idLimit = 0
        /// Whether every id so far is greater, byte by byte, than the one before: then no two
        /// are equal, and the duplicate check has nothing to look for.
        @exclusivity(unchecked) private(set) var idsAscending = true

        /// Room for `capacity` fences and `idBytes` bytes of ids before any column grows.
        init(capacity: Int = 16, idBytes: Int = 128) {
            self.capacity = max(1, capacity)
            idCapacity = max(1, idBytes)
            lat = System.allocateLarge(Double.self, capacity: self.capacity)
            lon = System.allocateLarge(Double.self, capacity: self.capacity)
            radius = System.allocateLarge(Double.self, capacity: self.capacity)
            idEnds = System.allocateLarge(Int.self, capacity: self.capacity)
            self.idBytes = System.allocateLarge(UInt8.self, capacity: idCapacity)
        }

        /// Appends a fence whose id is these bytes, valid UTF-8.
        @inline(__always)
        func append(id: UnsafeBufferPointer<UInt8>, lat: Double, lon: Double, radius: Double) {
            if count == limit { reachLimit() }
            if idCount + id.count > idLimit { reachIDLimit(id.count) }
            // SAFETY: count < limit ≤ capacity and idCount + id.count ≤ idLimit ≤ idCapacity after the
            // calls above (which grow the columns when full); the last id is the bytes from the end
            // before it (or 0) to `idCount`.
            if idsAscending, count > 0 {
                let previous = count > 1 ? idEnds[count - 2] : 0
                idsAscending = FenceTable.precedes(
                    UnsafeBufferPointer(start: idBytes + previous, count: idCount - previous), id)
            }
            if let from = id.baseAddress {
                if id.count <= 24 {
                    // A short id a word at a time, then byte by byte: the call to memmove cost
                    // more than the copy.
                    let to = UnsafeMutableRawPointer(idBytes + idCount)
                    var t = 0
                    while t + 8 <= id.count {
                        to.storeBytes(
                            of: UnsafeRawPointer(from + t).loadUnaligned(as: UInt64.self), toByteOffset: t,
                            as: UInt64.self)
                        t += 8
                    }
                    while t < id.count {
                        idBytes[idCount + t] = from[t]
                        t += 1
                    }
                } else {
                    (idBytes + idCount).update(from: from, count: id.count)
                }
            }
            idCount += id.count
            idEnds[count] = idCount
            self.lat[count] = lat
            self.lon[count] = lon
            self.radius[count] = radius
            count += 1
        }

        func append(_ fence: Fence) {
            var id = fence.id
            id.withUTF8 { append(id: $0, lat: fence.lat, lon: fence.lon, radius: fence.radius) }
        }

        /// Whether `finish` has handed the columns to a table (which frees them then).
        @exclusivity(unchecked) private var finished = false

        /// The table of the fences appended; the builder is not to be used after.
        func finish() -> FenceTable {
            precondition(!finished, "FenceTable.Builder.finish called twice")
            finished = true
            return FenceTable(storage: storage(), count: count)
        }

        deinit {
            // A file refused part way never reaches `finish`: its columns go to a storage that no
            // table holds, which frees them as `Storage.deinit` frees every table's.
            guard !finished else { return }
            _ = storage()
        }

        /// A storage that owns the columns from now on.
        private func storage() -> Storage {
            Storage(
                lat: lat, lon: lon, radius: radius, idEnds: idEnds, idBytes: idBytes, capacity: capacity,
                idCapacity: idCapacity)
        }

        /// The fences whose columns' pages `reachLimit` faults in at a time: the columns are
        /// reserved for the fences the file's size allows, more than it holds as a rule, and only
        /// the pages written are faulted in (`System.populate`).
        static let chunk = 65536

        /// The columns are full to `limit`: grown if full to their capacity, and the pages of the
        /// next `chunk` fences faulted in.
        @inline(never)
        private func reachLimit() {
            if count == capacity { growFences() }
            let next = min(capacity, count + Builder.chunk)
            @inline(__always) func populate<T>(_ column: UnsafeMutablePointer<T>) {
                let stride = MemoryLayout<T>.stride
                System.populate(
                    UnsafeMutableRawPointer(column), from: count * stride, to: next * stride, of: capacity * stride)
            }
            populate(lat)
            populate(lon)
            populate(radius)
            populate(idEnds)
            limit = next
        }

        /// The same for the ids' bytes, with room for `more`: eight bytes a fence faulted in.
        @inline(never)
        private func reachIDLimit(_ more: Int) {
            if idCount + more > idCapacity { growIDs(more) }
            let next = min(idCapacity, max(idCount + more, idCount + 8 * Builder.chunk))
            System.populate(UnsafeMutableRawPointer(idBytes), from: idCount, to: next, of: idCapacity)
            idLimit = next
        }

        @inline(never)
        private func growFences() {
            let grown = 2 * capacity
            lat = System.reallocateLarge(lat, used: count, from: capacity, capacity: grown)
            lon = System.reallocateLarge(lon, used: count, from: capacity, capacity: grown)
            radius = System.reallocateLarge(radius, used: count, from: capacity, capacity: grown)
            idEnds = System.reallocateLarge(idEnds, used: count, from: capacity, capacity: grown)
            capacity = grown
        }

        @inline(never)
        private func growIDs(_ more: Int) {
            var grown = idCapacity
            while idCount + more > grown { grown *= 2 }
            idBytes = System.reallocateLarge(idBytes, used: idCount, from: idCapacity, capacity: grown)
            idCapacity = grown
        }
    }

    /// Whether `a` sorts strictly before `b`, byte by byte (a prefix before what extends it).
    /// Eight bytes at a time, as big-endian words, whose order is the bytes' order.
    @inline(__always)
    static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = min(a.count, b.count)
        if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
            var i = 0
            // SAFETY: words are read at i ..< i + 8 ≤ n, inside both.
            while i + 8 <= n {
                let x = UnsafeRawPointer(pa + i).loadUnaligned(as: UInt64.self).bigEndian
                let y = UnsafeRawPointer(pb + i).loadUnaligned(as: UInt64.self).bigEndian
                if x != y { return x < y }
                i += 8
            }
            while i < n {
                if pa[i] != pb[i] { return pa[i] < pb[i] }
                i += 1
            }
        }
        return a.count < b.count
    }

    private init(storage: Storage, count: Int) {
        self.storage = storage
        self.count = count
    }

    public init() { self = Builder().finish() }

    public init(_ fences: [Fence]) {
        let b = Builder(capacity: fences.count, idBytes: fences.count * 8)
        for f in fences { b.append(f) }
        self = b.finish()
    }

    public var isEmpty: Bool { count == 0 }
    public var indices: Range<Int> { 0..<count }

    /// The columns, valid as long as the table (or a copy of it) is.
    var lat: UnsafeBufferPointer<Double> { UnsafeBufferPointer(start: storage.lat, count: count) }
    var lon: UnsafeBufferPointer<Double> { UnsafeBufferPointer(start: storage.lon, count: count) }
    var radius: UnsafeBufferPointer<Double> { UnsafeBufferPointer(start: storage.radius, count: count) }

    /// Calls `body` with the UTF-8 of fence k's id.
    @inline(__always)
    public func withID<R>(_ k: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        precondition(k >= 0 && k < count, "fence number out of range")
        let start = k == 0 ? 0 : storage.idEnds[k - 1]
        // SAFETY: `start..<idEnds[k]` lies within the ids written (the ends only grow); the storage
        // lives as long as `self`, which the call holds.
        return try body(UnsafeBufferPointer(start: storage.idBytes + start, count: storage.idEnds[k] - start))
    }

    /// Fence k's id.
    public func id(_ k: Int) -> String { withID(k) { String(decoding: $0, as: UTF8.self) } }

    /// Whether fences a and b have the same id, byte for byte.
    func sameID(_ a: Int, _ b: Int) -> Bool {
        withID(a) { x in withID(b) { y in x.elementsEqual(y) } }
    }

    public subscript(k: Int) -> Fence {
        precondition(k >= 0 && k < count, "fence number out of range")
        return Fence(id: id(k), lat: lat[k], lon: lon[k], radius: radius[k])
    }

    /// The fences as values, each id a `String`.
    public var fences: [Fence] { indices.map { self[$0] } }
}
