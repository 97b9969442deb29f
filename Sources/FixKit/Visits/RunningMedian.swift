/// The weighted median of a growing set of values, kept up to date as each value arrives, so
/// that a stay's centre costs O(log n) a fix instead of a selection over the whole stay each
/// time it is recomputed.
///
/// The median is the smallest value at which the cumulative weight, in increasing order of the
/// values, reaches half the total (`WeightedMedian`'s definition). Weights are held as whole
/// units of 2⁻⁴⁰ (`quantize`), so every sum is exact and a tie (the cumulative weight exactly
/// half the total, as when n equal weights meet at n/2) always gives the smaller middle value,
/// whatever the order the values came in. Summed as doubles, a tie would go either way on the
/// rounding of the sums.
///
/// Two heaps hold the values: `lower` the smallest ones (its top is the largest of them, the
/// median) and `upper` the rest, with every value of `lower` at most every value of `upper`.
/// An insertion only pushes, on the side of `lower`'s top the value falls; before a median is
/// read the top of `lower` is moved up, or the top of `upper` down, until `lower` holds at
/// least half the weight and would hold less than half without its top. A stay's centre is
/// asked once every sixteenth of its growth, so most values never cross: rebalancing after
/// every insertion moved one value in two across and back, and those pops were the largest
/// part of visits' time. The median depends on the values and weights alone, not on when the
/// heaps were balanced.
struct RunningMedian {
    /// Keys are the values negated (exactly), so that its smallest key is the largest value.
    private var lower = BinaryHeap<WeightedKey>()
    private var upper = BinaryHeap<WeightedKey>()
    private var lowerWeight: UInt64 = 0
    private(set) var total: UInt64 = 0
    /// Items taken off a heap while a median with an extra value is looked for, put back after.
    private var taken: [WeightedKey] = []

    var isEmpty: Bool { total == 0 }

    /// A weight in whole units of 2⁻⁴⁰, at least one unit and at most 2⁴⁰ (a weight of 1), so
    /// that 2⁴ million values never overflow twice their total. visits' weights are at most
    /// 60 s / (30 m)², 0.067; the smallest, 0.5 s over a hacc of a hundred kilometres, is 55 units.
    static func quantize(_ weight: Double) -> UInt64 {
        let units = (weight * 0x1p40).rounded()
        guard units >= 1 else { return 1 }  // NaN included
        return units >= 0x1p40 ? 1 << 40 : UInt64(units)
    }

    mutating func insert(_ value: Double, weight: UInt64) {
        total += weight
        if let top = lower.top, value > -top.key {
            upper.push(WeightedKey(key: value, weight: weight))
        } else {
            lower.push(WeightedKey(key: -value, weight: weight))
            lowerWeight += weight
        }
    }

    /// Moves tops across until the top of `lower` is the median (see the type's comment).
    private mutating func balance() {
        while let top = lower.top, 2 * (lowerWeight - top.weight) >= total {
            lower.pop()
            lowerWeight -= top.weight
            upper.push(WeightedKey(key: -top.key, weight: top.weight))
        }
        while 2 * lowerWeight < total, let top = upper.top {
            upper.pop()
            lowerWeight += top.weight
            lower.push(WeightedKey(key: -top.key, weight: top.weight))
        }
    }

    /// The median of the values inserted so far. Nil when there are none. Mutating only in
    /// that the heaps are balanced.
    var median: Double? {
        mutating get {
            balance()
            return lower.top.map { -$0.key }
        }
    }

    /// The median of the values inserted so far and one more, `value` with `weight`, which is
    /// not kept (the last fix of a stay, whose weight waits for its successor). The answer is
    /// the median or a value near it: the walk from the median takes off the heaps only the
    /// values between the two, and puts them back.
    mutating func median(with value: Double, weight: UInt64) -> Double {
        balance()
        guard let top = lower.top else { return value }
        let m = -top.key
        let target = total + weight  // compared with twice a cumulative weight
        // The usual case, decided without touching the heaps: the median holds.
        if value <= m, lower.topIsUnique {
            // Without the median's own weight (and the extra value's, if equal), the lower part and
            // the extra value fall short of half: the median stays.
            let rest = lowerWeight - top.weight + (value == m ? 0 : weight)
            if 2 * rest < target { return m }
        } else if value > m, upper.top.map({ $0.key != m }) ?? true {
            if 2 * lowerWeight >= target { return m }
        }
        taken.removeAll(keepingCapacity: true)
        var answer = m
        if value <= m {
            // The extra value lies in the lower part: the median can only go down. `remaining` is
            // the weight of the lower part and the extra value at or below the answer's value.
            var remaining = lowerWeight + weight
            var extraPending = true
            while true {
                while let t = lower.top, -t.key == answer {
                    lower.pop()
                    taken.append(t)
                    remaining -= t.weight
                }
                if extraPending, value == answer {
                    remaining -= weight
                    extraPending = false
                }
                // The largest value below `answer` and the weight at or below it.
                var next = lower.top.map { -$0.key }
                if extraPending, next.map({ value > $0 }) ?? true { next = value }
                guard let n = next, 2 * remaining >= target else { break }
                answer = n
            }
            for t in taken { lower.push(t) }
        } else {
            // Above the median: the median can only go up. `below` is the weight at or below the
            // answer's value, the values of `upper` equal to it included.
            var below = lowerWeight
            while let t = upper.top, t.key == answer {
                upper.pop()
                taken.append(t)
                below += t.weight
            }
            var extraPending = true
            while 2 * below < target {
                var next = upper.top?.key
                if extraPending, next.map({ value < $0 }) ?? true { next = value }
                guard let n = next else { break }  // not reached: all the weight is at least the target
                answer = n
                while let t = upper.top, t.key == n {
                    upper.pop()
                    taken.append(t)
                    below += t.weight
                }
                if extraPending, value == n {
                    below += weight
                    extraPending = false
                }
            }
            for t in taken { upper.push(t) }
        }
        return answer
    }
}

extension RunningMedian {
    /// The values held (for `StaySummary.parkableBytes`).
    var count: Int { lower.count + upper.count }

    /// Moves the heaps' items into `out` (`StaySpool`), leaving the median empty but for its
    /// sums; `unpark` puts them back exactly as they were.
    mutating func park(into out: inout ParkedBytes) {
        out.put(lower.items)
        out.put(upper.items)
        lower.items = []
        upper.items = []
        taken = []  // scratch, empty between calls: only its capacity goes
    }

    mutating func unpark(from parked: inout ParkedBytes) throws {
        lower.items = try parked.take(WeightedKey.self)
        upper.items = try parked.take(WeightedKey.self)
    }
}

/// A value (a key of `RunningMedian`'s heaps) with its weight, smallest key first.
struct WeightedKey: HeapOrdered {
    var key: Double
    var weight: UInt64

    @inline(__always)
    static func before(_ a: WeightedKey, _ b: WeightedKey) -> Bool { a.key < b.key }
}
