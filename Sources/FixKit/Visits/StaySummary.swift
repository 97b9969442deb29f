/// The fixes of a stay in progress, as its centre and its spread need them, in memory that does
/// not grow with the stay's length.
///
/// Up to `exactLimit` fixes (18 hours at 1 Hz) every fix is kept and the centre and the spread
/// are exact: the centre from running medians (`RunningMedian`, exact sums of weights held as
/// whole units), kept as the fixes come, the spread by a selection when the stay ends. Past that the fixes go into bounded summaries, each fix with the weight it has
/// when its successor arrives (`weight`): the latitudes and the longitudes into `WeightedBins`
/// of 1e-7° (1.1 cm; each median is within one bin width of the exact one, and the width
/// doubles only when more than `binCapacity` bins are needed, a stay's fixes spread over
/// 360 m), and the positions into cells of 1e-6° (11 cm) that keep their weighted centroid, from
/// which the spread is measured (each distance within a cell's diagonal of the exact one). The
/// last fix is kept as it is, since its weight waits for the next one. Memory: at most
/// `exactLimit` fixes, or two sets of `binCapacity` bins and `cellCapacity` cells.
struct StaySummary {
    typealias Point = StayDetector.StayPoint

    static let exactLimit = 1 << 16
    static let binCapacity = 1 << 15
    static let cellCapacity = 1 << 16

    /// Every fix while the stay is short; afterwards only the last one.
    private var points: [Point] = []
    /// While the stay is short: each fix's weight (the last one's provisional: no successor
    /// yet), and the running medians of the latitudes and of the longitudes (about the first
    /// fix's) of every fix but the last, with their final weights, so that a centre costs a few
    /// heap steps and no more.
    private var weights: [Double] = []
    private var latMedian = RunningMedian()
    private var lonMedian = RunningMedian()
    private(set) var count = 0
    private(set) var first: Point?
    private var summary: Summary?

    /// The bounded form of a long stay.
    private struct Summary {
        var lats = WeightedBins(width: 1e-7, capacity: StaySummary.binCapacity)
        var lons = WeightedBins(width: 1e-7, capacity: StaySummary.binCapacity)
        var cells = CellGrid(size: 1e-6, capacity: StaySummary.cellCapacity)
        /// The time of the fix before the last one (the last one's weight needs it).
        var beforeLast: Timestamp?
    }

    init() {}

    init(_ points: [Point]) {
        for p in points { append(p) }
    }

    var isEmpty: Bool { count == 0 }
    var last: Point? { points.last }

    /// The stay's first longitude: the others are taken about it, so that a stay on the
    /// antimeridian is not split.
    private func relativeLon(_ lon: Double) -> Double {
        var d = lon - (first?.lon ?? lon)
        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
        return d
    }

    mutating func append(_ p: Point) {
        if first == nil { first = p }
        count += 1
        // Asked first: binding `summary` copies its hundred-odd bytes, even to find it empty.
        guard summary != nil, var s = summary else {
            let previous = points.last
            if let previous {
                // The previous fix's weight is final now that its successor is known.
                let w = Self.weight(
                    previous, before: points.count >= 2 ? points[points.count - 2].time : nil, after: p.time)
                weights[weights.count - 1] = w
                let units = RunningMedian.quantize(w)
                latMedian.insert(previous.lat, weight: units)
                lonMedian.insert(relativeLon(previous.lon), weight: units)
            }
            points.append(p)
            weights.append(Self.weight(p, before: previous?.time, after: nil))
            if points.count > Self.exactLimit { summarize() }
            return
        }
        summary = nil  // no second reference while it changes
        if let last = points.last {
            let w = Self.weight(last, before: s.beforeLast, after: p.time)
            let lon = relativeLon(last.lon)
            s.lats.add(last.lat, weight: w)
            s.lons.add(lon, weight: w)
            s.cells.add(lat: last.lat, lon: lon, weight: w)
            s.beforeLast = last.time
        }
        // Its storage kept: `[p]` allocated an array on every fix of a long stay.
        points.removeAll(keepingCapacity: true)
        points.append(p)
        summary = s
    }

    /// About how many bytes `park` would move out.
    var parkableBytes: Int {
        points.count * MemoryLayout<Point>.stride + weights.count * MemoryLayout<Double>.stride
            + (latMedian.count + lonMedian.count) * MemoryLayout<WeightedKey>.stride
    }

    /// Moves the fixes, their weights and the running medians' heaps into `out`, in memory
    /// nothing but the rest; `unpark` puts them back as they were. A summarized stay (past
    /// `exactLimit`) keeps its bounded summary in memory.
    mutating func park(into out: inout ParkedBytes) {
        out.put(points)
        out.put(weights)
        latMedian.park(into: &out)
        lonMedian.park(into: &out)
        points = []
        weights = []
    }

    mutating func unpark(from parked: inout ParkedBytes) throws {
        points = try parked.take(Point.self)
        weights = try parked.take(Double.self)
        try latMedian.unpark(from: &parked)
        try lonMedian.unpark(from: &parked)
    }

    /// Moves every fix but the last into the summaries.
    private mutating func summarize() {
        var s = Summary()
        for i in 0..<(points.count - 1) {
            let (lat, lon, w) = (points[i].lat, relativeLon(points[i].lon), weights[i])
            s.lats.add(lat, weight: w)
            s.lons.add(lon, weight: w)
            s.cells.add(lat: lat, lon: lon, weight: w)
        }
        s.beforeLast = points.count >= 2 ? points[points.count - 2].time : nil
        points = Array(points.suffix(1))
        weights = []
        latMedian = RunningMedian()
        lonMedian = RunningMedian()
        summary = s
    }

    /// A fix's weight: the time it stands for (half the time to each neighbour, at most a
    /// minute) over its hacc² (hacc at least 30 m). Time, so that a walk in at 1 Hz does not
    /// outweigh an hour indoors at a fix a minute; the hacc floor, so that a few crisp fixes on
    /// the way in do not either.
    static func weight(_ p: Point, before: Timestamp?, after: Timestamp?) -> Double {
        let b = before.map { p.time.seconds - $0.seconds } ?? 0
        let a = after.map { $0.seconds - p.time.seconds } ?? 0
        let share = min(60, max(0, b) / 2 + max(0, a) / 2)
        let h = max(30, p.hacc)
        return max(share, 0.5) / (h * h)
    }

    /// The weighted median of the latitudes and of the longitudes. Mutating only in that the
    /// running medians balance their heaps, and walk them and put back what they took.
    mutating func centre() -> (lat: Double, lon: Double)? {
        guard let first else { return nil }
        var lat: Double?
        var lon: Double?
        if let s = summary, let last = points.last {
            let w = Self.weight(last, before: s.beforeLast, after: nil)
            var (values, weights) = s.lats.sample()
            values.append(last.lat)
            weights.append(w)
            lat = WeightedMedian.of(values, weights: weights)
            (values, weights) = s.lons.sample()
            values.append(relativeLon(last.lon))
            weights.append(w)
            lon = WeightedMedian.of(values, weights: weights)
        } else if let last = points.last, let w = weights.last {
            let units = RunningMedian.quantize(w)
            lat = latMedian.median(with: last.lat, weight: units)
            lon = lonMedian.median(with: relativeLon(last.lon), weight: units)
        }
        guard let lat, let lon else { return nil }
        var l = first.lon + lon
        if l > 180 { l -= 360 } else if l < -180 { l += 360 }
        return (lat, l)
    }

    /// The weighted 68th percentile of the fixes' distances from `c`, metres.
    func spread(around c: (lat: Double, lon: Double)) -> Double {
        guard let first else { return 0 }
        var distances: [Double]
        var weights: [Double]
        let c = Geodesy.Point(lat: c.lat, lon: c.lon)
        if let s = summary, let last = points.last {
            (distances, weights) = s.cells.distances(from: c, lon0: first.lon)
            distances.append(Geodesy.distance(c, lat: last.lat, lon: last.lon))
            weights.append(Self.weight(last, before: s.beforeLast, after: nil))
        } else {
            weights = self.weights
            distances = points.map { Geodesy.distance(c, lat: $0.lat, lon: $0.lon) }
        }
        return WeightedMedian.quantile(distances, weights: weights, 0.68) ?? 0
    }
}

/// Positions in square cells of `size` degrees (latitude, and longitude about the stay's first
/// fix), each with its weight and weighted centroid; four cells are merged into one, and the
/// size doubles, when there are more than `capacity`.
struct CellGrid {
    private(set) var size: Double
    let capacity: Int
    private var cells = CellTable<Cell>()

    /// A cell's row and column, each as 32 bits of one key: |lat| / size and |lon| / size are at
    /// most 1.8e8 (size ≥ 1e-6°, the longitude about the stay's first fix), within an Int32.
    @inline(__always)
    static func key(y: Int, x: Int) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: y)) << 32 | UInt64(UInt32(truncatingIfNeeded: x))
    }

    /// The row and column of a key.
    @inline(__always)
    static func cell(_ key: UInt64) -> (y: Int, x: Int) {
        (Int(Int32(truncatingIfNeeded: key >> 32)), Int(Int32(truncatingIfNeeded: key)))
    }

    struct Cell {
        var weight = 0.0
        var lat = 0.0
        var lon = 0.0
    }

    init(size: Double, capacity: Int) {
        self.size = size
        self.capacity = capacity
    }

    var count: Int { cells.count }

    mutating func add(lat: Double, lon: Double, weight: Double) {
        let key = CellGrid.key(y: Int((lat / size).rounded(.down)), x: Int((lon / size).rounded(.down)))
        cells.update(key, default: Cell()) { $0.add(lat: lat, lon: lon, weight: weight) }
        while cells.count > capacity {
            cells = cells.regrouped(
                by: { k in
                    let (y, x) = CellGrid.cell(k)
                    return CellGrid.key(y: y >> 1, x: x >> 1)
                }, from: Cell()
            ) { $0.merge($1) }
            size *= 2
        }
    }

    /// Each cell's distance from `c` (its centroid's) and weight.
    func distances(from c: Geodesy.Point, lon0: Double) -> ([Double], [Double]) {
        var distances: [Double] = []
        var weights: [Double] = []
        distances.reserveCapacity(cells.count + 1)
        weights.reserveCapacity(cells.count + 1)
        cells.forEach { _, cell in
            guard cell.weight > 0 else { return }
            var lon = lon0 + cell.lon / cell.weight
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            distances.append(Geodesy.distance(c, lat: cell.lat / cell.weight, lon: lon))
            weights.append(cell.weight)
        }
        return (distances, weights)
    }
}

extension CellGrid.Cell {
    mutating func add(lat: Double, lon: Double, weight w: Double) {
        weight += w
        self.lat += w * lat
        self.lon += w * lon
    }

    mutating func merge(_ other: Self) {
        weight += other.weight
        lat += other.lat
        lon += other.lon
    }
}
