#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A uniform grid over latitude and longitude, so that the fences near a fix are found
/// without looking at the others: the cost per fix depends on how many fences are near, not
/// on how many there are.
///
/// Each fence is entered in every cell its circle's bounding box touches; a query for a point
/// and a margin visits the cells within the margin and reports each fence once. Cells are
/// `cellMeters` high (twice the median radius, between 200 m and 50 km); their width in
/// degrees is the same, so they are narrower in metres away from the equator, which only
/// means more cells per query there. Longitudes wrap at the antimeridian; near the poles a
/// query spans all longitudes.
public final class FenceIndex {
    public let fences: [Fence]
    /// The fences' centres, prepared for distances.
    public let centres: [Geodesy.Point]
    let grid: Grid
    let cellMeters: Double
    /// The occupied cells' keys, ascending, and where each one's fences start in `members`
    /// (`cellStarts` has one more entry, the end): found by binary search, built without hashing
    /// since the radix sort already ordered them.
    private let cellKeys: [Int64]
    private let cellStarts: [Int32]
    private let members: [Int32]
    /// Per-fence stamp of the last query that reported it, to report each fence once. Behind a
    /// pointer, as the query loop's hottest store: a class's stored array would pay a dynamic
    /// exclusivity check on each. Safe: only this class touches it, one query at a time.
    private let stamps: UnsafeMutablePointer<UInt32>
    private var stamp: UInt32 = 0

    deinit { stamps.deallocate() }

    /// At most 2^24 fences: the index packs a fence's number in 24 bits.
    public static let capacity = 1 << 24

    public init(_ fences: [Fence]) {
        precondition(fences.count <= FenceIndex.capacity, "FenceIndex holds at most 2^24 fences")
        self.fences = fences
        centres = fences.map { Geodesy.Point(lat: $0.lat, lon: $0.lon) }
        // The median radius sets the cell size; a sample of a few thousand tells it well enough.
        let step = max(1, fences.count / 4096)
        let radii = stride(from: 0, to: fences.count, by: step).map { fences[$0].radius }.sorted()
        let median = radii.isEmpty ? 100 : radii[radii.count / 2]
        cellMeters = min(50_000, max(200, 2 * median))
        let grid = Grid(cellMeters: cellMeters)
        self.grid = grid
        stamps = .allocate(capacity: max(1, fences.count))
        stamps.initialize(repeating: 0, count: max(1, fences.count))
        // (cell, fence) pairs packed into one integer each, cell in the high bits, so that a
        // plain integer sort groups them: cells need 40 bits even at 200 m, fences 24.
        var pairs: [UInt64] = []
        pairs.reserveCapacity(fences.count * 2)
        for (k, f) in fences.enumerated() {
            let (rows, cols) = grid.span(lat: f.lat, lon: f.lon, margin: f.radius)
            for r in rows {
                for c in cols { pairs.append(UInt64(grid.key(r, c)) << 24 | UInt64(k)) }
            }
        }
        FenceIndex.radixSort(&pairs, fromBit: 24)
        members = pairs.map { Int32(truncatingIfNeeded: $0 & 0xFF_FFFF) }
        // Built in locals and stored once: appending to a class's stored arrays pays a dynamic
        // exclusivity check per element.
        var keys: [Int64] = []
        var starts: [Int32] = []
        for (k, pair) in pairs.enumerated() where k == 0 || pair >> 24 != pairs[k - 1] >> 24 {
            keys.append(Int64(pair >> 24))
            starts.append(Int32(k))
        }
        starts.append(Int32(pairs.count))
        cellKeys = keys
        cellStarts = starts
    }

    /// Least-significant-digit radix sort on the bits from `fromBit` up, a byte a pass: stable,
    /// so pairs keep their fence order within a cell. A million pairs sort in a few passes over
    /// memory, where a comparison sort pays a closure call per comparison.
    static func radixSort(_ a: inout [UInt64], fromBit: Int) {
        guard a.count > 1 else { return }
        let top = 64 - (a.max()!).leadingZeroBitCount
        var scratch = [UInt64](repeating: 0, count: a.count)
        var counts = [Int](repeating: 0, count: 257)
        var shift = UInt64(fromBit)
        while shift < top {
            a.withUnsafeMutableBufferPointer { src in
                scratch.withUnsafeMutableBufferPointer { dst in
                    counts.withUnsafeMutableBufferPointer { c in
                        for k in 0..<257 { c[k] = 0 }
                        for v in src { c[Int((v >> shift) & 0xFF) + 1] += 1 }
                        for k in 1...256 { c[k] += c[k - 1] }
                        for v in src {
                            let b = Int((v >> shift) & 0xFF)
                            dst[c[b]] = v
                            c[b] += 1
                        }
                    }
                }
            }
            swap(&a, &scratch)
            shift += 8
        }
    }

    /// The position of `key` in `cellKeys`, if the cell holds fences.
    @inline(__always)
    private func findCell(_ key: Int64) -> Int? {
        var lo = 0
        var hi = cellKeys.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if cellKeys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo < cellKeys.count && cellKeys[lo] == key ? lo : nil
    }

    /// Calls `body` once with the index of every fence whose circle comes within `margin`
    /// metres of the point (and perhaps a few farther ones; callers measure).
    public func forEachCandidate(lat: Double, lon: Double, margin: Double, _ body: (Int) throws -> Void) rethrows {
        guard !fences.isEmpty else { return }
        stamp &+= 1
        if stamp == 0 {
            stamps.update(repeating: 0, count: max(1, fences.count))
            stamp = 1
        }
        let (rows, cols) = grid.span(lat: lat, lon: lon, margin: max(0, margin))
        let colCount = min(Int64(cols.count), grid.columns)
        for r in rows {
            var c = cols.lowerBound
            for _ in 0..<colCount {
                if let cell = findCell(grid.key(r, c)) {
                    let current = stamp
                    for m in cellStarts[cell]..<cellStarts[cell + 1] {
                        let k = Int(members[Int(m)])
                        if stamps[k] != current {
                            stamps[k] = current
                            try body(k)
                        }
                    }
                }
                c += 1
            }
        }
    }

    /// The `count` fences with the nearest edges (distance to the centre minus the radius, so
    /// negative inside), nearest first, with their edge distances.
    public func nearestEdges(lat: Double, lon: Double, count: Int) -> [(index: Int, edge: Double)] {
        guard count > 0, !fences.isEmpty else { return [] }
        if count >= fences.count {
            return fences.indices.map { ($0, edgeDistance($0, lat, lon)) }.sorted { $0.1 < $1.1 }
        }
        var margin = cellMeters
        while true {
            var found: [(index: Int, edge: Double)] = []
            forEachCandidate(lat: lat, lon: lon, margin: margin) { k in
                found.append((k, edgeDistance(k, lat, lon)))
            }
            found.sort { $0.edge < $1.edge }
            // Every fence whose edge is within `margin` is among the candidates.
            if found.count >= count, found[count - 1].edge <= margin { return Array(found.prefix(count)) }
            if margin > 2.1e7 { return Array(found.prefix(count)) }  // the whole Earth
            margin *= 2
        }
    }

    @inline(__always)
    public func edgeDistance(_ k: Int, _ lat: Double, _ lon: Double) -> Double {
        Geodesy.distance(centres[k], Geodesy.Point(lat: lat, lon: lon)) - fences[k].radius
    }
}

/// Cells of `cellDegrees` in latitude and longitude, numbered row by row.
struct Grid {
    let cellDegrees: Double
    let columns: Int64
    static let metresPerDegree = 111_320.0

    init(cellMeters: Double) {
        cellDegrees = cellMeters / Grid.metresPerDegree
        columns = Int64((360 / cellDegrees).rounded(.up))
    }

    func row(_ lat: Double) -> Int64 { Int64(((lat + 90) / cellDegrees).rounded(.down)) }
    func column(_ lon: Double) -> Int64 { Int64(((lon + 180) / cellDegrees).rounded(.down)) }
    func key(_ r: Int64, _ c: Int64) -> Int64 {
        let wrapped = ((c % columns) + columns) % columns
        return r * columns + wrapped
    }

    /// The rows and columns of the cells within `margin` metres of a point.
    func span(lat: Double, lon: Double, margin: Double) -> (ClosedRange<Int64>, ClosedRange<Int64>) {
        // A degree of latitude is at least 110,574 m (at the equator): err on the wide side.
        let dLat = margin / 110_500
        let lo = row(max(-90, lat - dLat))
        let hi = row(min(90, lat + dLat))
        let coslat = cos(min(89.999, abs(lat) + dLat) * .pi / 180)
        let dLon = margin / (Grid.metresPerDegree * max(coslat, 1e-9))
        if dLon >= 180 || lat + dLat >= 89.999 || lat - dLat <= -89.999 {
            return (lo...hi, 0...(columns - 1))
        }
        return (lo...hi, column(lon - dLon)...column(lon + dLon))
    }

}
