/// Weighted medians: the robust centre of a stay. A fix far off (multipath, an indoor jump)
/// moves a mean by its distance over n; it moves a median not at all once it is outside the
/// middle. Fixes are weighted by 1/hacc², so a precise fix counts more than a vague one.
enum WeightedMedian {
    /// The weighted median of `values`: the smallest value at which the cumulative weight
    /// reaches half the total. Empty input gives nil.
    /// - Complexity: O(n log n).
    static func of(_ values: [Double], weights: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let order = values.indices.sorted { values[$0] < values[$1] }
        let total = weights.reduce(0, +)
        var running = 0.0
        for k in order {
            running += weights[k]
            if running >= total / 2 { return values[k] }
        }
        return values[order.last!]
    }

    /// The value below which the given share of the weight lies (a weighted quantile).
    static func quantile(_ values: [Double], weights: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let order = values.indices.sorted { values[$0] < values[$1] }
        let total = weights.reduce(0, +)
        var running = 0.0
        for k in order {
            running += weights[k]
            if running >= total * q { return values[k] }
        }
        return values[order.last!]
    }
}
