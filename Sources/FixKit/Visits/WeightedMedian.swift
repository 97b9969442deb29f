/// Weighted medians: the robust centre of a stay. A fix far off (multipath, an indoor jump)
/// moves a mean by its distance over n; it moves a median not at all once it is outside the
/// middle. The weights are the caller's: visits weights each fix by the time it stands for
/// over its hacc² (`StayDetector`), so a precise fix counts more than a vague one.
enum WeightedMedian {
    /// The weighted median of `values`: the smallest value at which the cumulative weight
    /// reaches half the total. Empty input gives nil.
    /// - Complexity: O(n) expected (a selection, not a sort).
    static func of(_ values: [Double], weights: [Double]) -> Double? {
        quantile(values, weights: weights, 0.5)
    }

    /// The value below which the given share of the weight lies (a weighted quantile): the
    /// smallest value at which the cumulative weight, in increasing order of the values, reaches
    /// `q` times the total; the largest value if rounding keeps it short of that.
    /// - Complexity: O(n) expected. Quickselect with three-way partitions: each round keeps
    ///   the part that holds the answer and adds the weight of what lies below it.
    static func quantile(_ values: [Double], weights: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let target = weights.reduce(0, +) * q
        var items = zip(values, weights).map { Item(value: $0, weight: $1) }
        // SAFETY: `items`' storage, lent to `select` for the closure only; it reorders the items in
        // place.
        return items.withUnsafeMutableBufferPointer { select($0, target: target) }
    }

    struct Item {
        var value: Double
        var weight: Double
    }

    // SAFETY: `a` is the caller's array storage, lent for the call; every index stays in
    // `0..<a.count` (`lo` and `hi` only narrow it).
    private static func select(_ a: UnsafeMutableBufferPointer<Item>, target: Double) -> Double {
        var lo = 0
        var hi = a.count
        var below = 0.0  // the weight of the items known to lie below a[lo..<hi]
        var largest = a[0].value
        for item in a where item.value > largest { largest = item.value }
        while hi - lo > 24 {
            // The median of three as pivot; Dutch-flag partition into < p, == p, > p.
            let x = a[lo].value, y = a[lo + (hi - lo) / 2].value, z = a[hi - 1].value
            let pivot = max(min(x, y), min(max(x, y), z))
            var lt = lo
            var i = lo
            var gt = hi
            var lessWeight = 0.0
            var equalWeight = 0.0
            while i < gt {
                let v = a[i].value
                if v < pivot {
                    lessWeight += a[i].weight
                    a.swapAt(lt, i)
                    lt += 1
                    i += 1
                } else if v > pivot {
                    gt -= 1
                    a.swapAt(i, gt)
                } else {
                    equalWeight += a[i].weight
                    i += 1
                }
            }
            if below + lessWeight >= target {
                hi = lt
            } else if below + lessWeight + equalWeight >= target {
                return pivot
            } else {
                below += lessWeight + equalWeight
                lo = gt
            }
        }
        // A few items left: sort them and walk up.
        // SAFETY: `lo..<hi` lies inside `a` (see above).
        var rest = UnsafeMutableBufferPointer(rebasing: a[lo..<hi])
        rest.sort { $0.value < $1.value }
        var running = below
        for item in rest {
            running += item.weight
            if running >= target { return item.value }
        }
        return largest
    }
}

/// A weighted sample of one coordinate in bins of a fixed width: a bounded summary of a long
/// stay's latitudes or longitudes. Each bin keeps its total weight and the weighted mean of its
/// values, so the bin that holds the weighted median hands back a value inside it: the
/// median read from the bins is within one bin width of the exact one. When there are more than
/// `capacity` bins, neighbouring bins are merged and the width doubles.
struct WeightedBins {
    private(set) var width: Double
    let capacity: Int
    /// By bin number (floor(value / width)), as its bit pattern.
    private var bins = CellTable<Bin>()

    struct Bin {
        var weight = 0.0
        var weightedSum = 0.0
    }

    init(width: Double, capacity: Int) {
        self.width = width
        self.capacity = capacity
    }

    var count: Int { bins.count }

    mutating func add(_ value: Double, weight: Double) {
        let key = UInt64(bitPattern: Int64((value / width).rounded(.down)))
        bins.update(key, default: Bin()) { $0.add(value, weight) }
        if bins.count > capacity { coarsen() }
    }

    private mutating func coarsen() {
        while bins.count > capacity {
            // floor(key / 2), negatives too
            bins = bins.regrouped(by: { UInt64(bitPattern: Int64(bitPattern: $0) >> 1) }, from: Bin()) { $0.merge($1) }
            width *= 2
        }
    }

    /// Each bin as one value (its weighted mean) with its weight.
    func sample() -> (values: [Double], weights: [Double]) {
        var values: [Double] = []
        var weights: [Double] = []
        values.reserveCapacity(bins.count + 1)
        weights.reserveCapacity(bins.count + 1)
        bins.forEach { _, bin in
            guard bin.weight > 0 else { return }
            values.append(bin.weightedSum / bin.weight)
            weights.append(bin.weight)
        }
        return (values, weights)
    }
}

extension WeightedBins.Bin {
    mutating func add(_ value: Double, _ w: Double) {
        weight += w
        weightedSum += w * value
    }

    mutating func merge(_ other: Self) {
        weight += other.weight
        weightedSum += other.weightedSum
    }
}
