/// The index's keys: Morton (Z-order) keys of cubes, interleaving the bits of their three cube
/// numbers so that any aligned block of cubes is one run of keys, and the radix sort that puts
/// a level's keys in order.
extension FenceIndex {
    /// The bits of `v` (18 used) spread to every third bit.
    @inline(__always)
    static func spread(_ v: UInt32) -> UInt64 {
        var x = UInt64(v) & 0x3_FFFF
        x = (x | x << 32) & 0x001F_0000_0000_FFFF
        x = (x | x << 16) & 0x001F_0000_FF00_00FF
        x = (x | x << 8) & 0x100F_00F0_0F00_F00F
        x = (x | x << 4) & 0x10C3_0C30_C30C_30C3
        x = (x | x << 2) & 0x1249_2492_4924_9249
        return x
    }

    @inline(__always)
    static func morton(_ i: UInt32, _ j: UInt32, _ l: UInt32) -> UInt64 {
        spread(i) | spread(j) << 1 | spread(l) << 2
    }

    /// The inverse of `spread`.
    static func compact(_ v: UInt64) -> UInt32 {
        var x = v & 0x1249_2492_4924_9249
        x = (x | x >> 2) & 0x10C3_0C30_C30C_30C3
        x = (x | x >> 4) & 0x100F_00F0_0F00_F00F
        x = (x | x >> 8) & 0x001F_0000_FF00_00FF
        x = (x | x >> 16) & 0x001F_0000_0000_FFFF
        x = (x | x >> 32) & 0x3_FFFF
        return UInt32(x)
    }

    /// Sorts `count` keys with a number each (stable: equal keys keep the numbers' order), as
    /// `radixSort(keys:values:count:)` does, but as one word a key where the bits that vary
    /// among the keys and the numbers' bits fit in 64 together: each key shifted up past the
    /// numbers' width, its number below, sorted from that width up (as the duplicate-id check
    /// sorts its hashes), then split again. A pass then moves 8 bytes a key in one stream,
    /// not 12 in two (the varying bits are some 36 for fences within 100 km); packing and
    /// splitting cost two sequential passes more. The bits above the varying ones, which the
    /// shift drops, are the same in every key, and are put back from any one of them.
    ///
    /// `scratch`, if given, is memory for the sort's other half: at least 12 bytes a key,
    /// 8-byte aligned, bound to nothing the sort reads (the index lends the stretch of its slots
    /// that the sorted level fills next, so that the sort touches no fresh memory of its own).
    /// Without it the sort allocates its own.
    static func radixSort(
        keys a: UnsafeMutablePointer<UInt64>, numbers v: UnsafeMutablePointer<UInt32>, count n: Int,
        scratch: UnsafeMutableRawPointer? = nil
    ) {
        guard n > 1 else { return }
        var all: UInt64 = ~0
        var any: UInt64 = 0
        var largest: UInt32 = 0
        for i in 0..<n {
            all &= a[i]
            any |= a[i]
            largest = max(largest, v[i])
        }
        let high = 64 - (all ^ any).leadingZeroBitCount
        let width = largest.bitWidth - largest.leadingZeroBitCount
        guard high + width <= 64, width > 0 else {
            radixSort(keys: a, values: v, count: n, scratch: scratch)
            return
        }
        let shift = UInt64(width)
        for i in 0..<n { a[i] = a[i] << shift | UInt64(v[i]) }
        radixSort(keys: a, values: nil, count: n, fromBit: width, scratch: scratch)
        // The bits from `high` up, which every key shares (none when high is 64: width is then 0).
        let shared = all & ~((1 << UInt64(high)) &- 1)
        let mask = (UInt64(1) << shift) - 1
        for i in 0..<n {
            let w = a[i]
            v[i] = UInt32(truncatingIfNeeded: w & mask)
            a[i] = w >> shift | shared
        }
    }

    /// Least-significant-digit radix sort on the bits from `fromBit` up: stable, so pairs keep
    /// their fence order within a cell. A million pairs sort in a few passes over memory, where a
    /// comparison sort pays a closure call per comparison.
    static func radixSort(_ a: inout [UInt64], fromBit: Int) {
        let n = a.count
        // SAFETY: `a`'s storage, lent for the closure; the sort touches its `count` entries only.
        a.withUnsafeMutableBufferPointer { keys in
            guard let base = keys.baseAddress else { return }
            radixSort(keys: base, values: nil, count: n, fromBit: fromBit)
        }
    }

    /// The same for keys with a value each (`values` empty: keys alone).
    static func radixSort(keys a: inout [UInt64], values v: inout [UInt32], fromBit: Int = 0) {
        guard a.count > 1 else { return }
        let n = a.count
        precondition(v.isEmpty || v.count == n, "radixSort: as many values as keys")
        let paired = !v.isEmpty
        // SAFETY: both arrays' storage, lent for the closures; `v` has as many entries as `a` when
        // paired, and the sort touches `n` = a.count of each.
        a.withUnsafeMutableBufferPointer { keys in
            v.withUnsafeMutableBufferPointer { values in
                guard let base = keys.baseAddress else { return }
                radixSort(keys: base, values: paired ? values.baseAddress : nil, count: n, fromBit: fromBit)
            }
        }
    }

    /// The sort itself, on `count` keys at `a` and, unless nil, as many values at `v`. Only the
    /// bits that differ between keys are sorted on, in as few passes of at most 12 bits as
    /// they need, with every pass's counts taken in one read (the fences of one region share
    /// the high bits of their cubes' keys), and a pass whose digit is the same in every key is
    /// skipped. `scratch`: as in `radixSort(keys:numbers:count:scratch:)` (8 bytes a key
    /// without values).
    static func radixSort(
        keys a: UnsafeMutablePointer<UInt64>, values v: UnsafeMutablePointer<UInt32>?, count n: Int, fromBit: Int = 0,
        scratch lent: UnsafeMutableRawPointer? = nil
    ) {
        guard n > 1 else { return }
        var all: UInt64 = ~0
        var any: UInt64 = 0
        for i in 0..<n {
            all &= a[i]
            any |= a[i]
        }
        let varying = (all ^ any) & (fromBit >= 64 ? 0 : ~0 << UInt64(fromBit))
        guard varying != 0 else { return }
        let low = varying.trailingZeroBitCount
        let high = 64 - varying.leadingZeroBitCount
        let passes = (high - low + 11) / 12
        let digit = (high - low + passes - 1) / passes
        let buckets = 1 << digit
        let mask = UInt64(buckets - 1)
        // SAFETY: the digit counts of every pass, initialized to 0 here and freed by the `defer`;
        // each index is p * buckets plus a digit masked below `buckets`.
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: passes * buckets)
        counts.initialize(repeating: 0, count: passes * buckets)
        defer { counts.deallocate() }
        let lowShift = UInt64(low)
        let digitShift = UInt64(digit)
        // The key shifted down once; each pass's digit then a shift by `digit` further. Up to
        // four passes (any key's 64 bits at 12 bits or fewer a pass need at most six) written
        // out, so that the loop over passes does not run per key.
        // SAFETY: pass p's counts are counts[p · buckets ..< (p + 1) · buckets]; each case forms
        // the pointers of its own passes only.
        let c0 = counts
        switch passes {
        case 1:
            for i in 0..<n { c0[Int((a[i] >> lowShift) & mask)] += 1 }
        case 2:
            let c1 = counts + buckets
            for i in 0..<n {
                let x = a[i] >> lowShift
                c0[Int(x & mask)] += 1
                c1[Int((x >> digitShift) & mask)] += 1
            }
        case 3:
            let (c1, c2) = (counts + buckets, counts + 2 * buckets)
            for i in 0..<n {
                let x = a[i] >> lowShift
                c0[Int(x & mask)] += 1
                c1[Int((x >> digitShift) & mask)] += 1
                c2[Int((x >> (2 * digitShift)) & mask)] += 1
            }
        case 4:
            let (c1, c2, c3) = (counts + buckets, counts + 2 * buckets, counts + 3 * buckets)
            for i in 0..<n {
                let x = a[i] >> lowShift
                c0[Int(x & mask)] += 1
                c1[Int((x >> digitShift) & mask)] += 1
                c2[Int((x >> (2 * digitShift)) & mask)] += 1
                c3[Int((x >> (3 * digitShift)) & mask)] += 1
            }
        default:
            for i in 0..<n {
                let x = a[i]
                for p in 0..<passes { counts[p * buckets + Int((x >> UInt64(low + p * digit)) & mask)] += 1 }
            }
        }
        // SAFETY: the other half of each pass, n entries (n values too when paired): the caller's
        // (its n keys, then n values, within the 12 bytes a key it lends, bound here to the types
        // the sort writes and nothing read through another type meanwhile), else allocated here
        // and freed by the `defer`; each pass writes all n before the next reads them, at places
        // the prefix sums of `counts` give, which are a permutation of 0..<n. The caller's `a`
        // and `v` hold n entries.
        let scratch: UnsafeMutablePointer<UInt64>
        let scratchValues: UnsafeMutablePointer<UInt32>?
        if let lent {
            scratch = lent.bindMemory(to: UInt64.self, capacity: n)
            scratchValues = v == nil ? nil : (lent + 8 * n).bindMemory(to: UInt32.self, capacity: n)
        } else {
            scratch = System.allocateLarge(UInt64.self, capacity: n)
            scratchValues = v == nil ? nil : System.allocateLarge(UInt32.self, capacity: n)
        }
        defer {
            if lent == nil {
                System.deallocateLarge(scratch, capacity: n)
                if let scratchValues { System.deallocateLarge(scratchValues, capacity: n) }
            }
        }
        var src = a
        var dst = scratch
        var srcV = v
        var dstV = scratchValues
        for p in 0..<passes {
            let c = counts + p * buckets
            let shift = UInt64(low + p * digit)
            var sum = 0
            var skip = false
            for b in 0..<buckets {
                let k = c[b]
                if k == n { skip = true }
                c[b] = sum
                sum += k
            }
            if skip { continue }  // every key has this digit: the order stands
            if let sv = srcV, let dv = dstV {
                for i in 0..<n {
                    let x = src[i]
                    let b = Int((x >> shift) & mask)
                    let at = c[b]
                    dst[at] = x
                    dv[at] = sv[i]
                    c[b] = at + 1
                }
            } else {
                for i in 0..<n {
                    let x = src[i]
                    let b = Int((x >> shift) & mask)
                    dst[c[b]] = x
                    c[b] += 1
                }
            }
            swap(&src, &dst)
            swap(&srcV, &dstV)
        }
        if src != a {
            a.update(from: src, count: n)
            if let sv = srcV, let v { v.update(from: sv, count: n) }
        }
    }
}
