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

    /// Least-significant-digit radix sort on the bits from `fromBit` up: stable, so pairs keep
    /// their fence order within a cell. A million pairs sort in a few passes over memory, where a
    /// comparison sort pays a closure call per comparison.
    static func radixSort(_ a: inout [UInt64], fromBit: Int) {
        var none: [UInt32] = []
        radixSort(keys: &a, values: &none, fromBit: fromBit)
    }

    /// The same for keys with a value each (`values` empty: keys alone). Only the bits that
    /// differ between keys are sorted on, 11 at a pass, with every pass's counts taken in one
    /// read: the fences of one region share the high bits of their cubes' keys.
    static func radixSort(keys a: inout [UInt64], values v: inout [UInt32], fromBit: Int = 0) {
        guard a.count > 1 else { return }
        let paired = !v.isEmpty
        precondition(!paired || v.count == a.count, "radixSort: as many values as keys")
        var all: UInt64 = ~0
        var any: UInt64 = 0
        for x in a {
            all &= x
            any |= x
        }
        let varying = (all ^ any) & (fromBit >= 64 ? 0 : ~0 << UInt64(fromBit))
        guard varying != 0 else { return }
        let low = varying.trailingZeroBitCount
        let high = 64 - varying.leadingZeroBitCount
        let digit = 11
        let passes = (high - low + digit - 1) / digit
        let buckets = 1 << digit
        var counts = [Int](repeating: 0, count: passes * buckets)
        // SAFETY: `counts`' storage, lent for the closure; each index is `p * buckets` plus a digit
        // below `buckets`, inside its `passes * buckets` entries.
        counts.withUnsafeMutableBufferPointer { c in
            for x in a {
                for p in 0..<passes { c[p * buckets + Int((x >> UInt64(low + p * digit)) & UInt64(buckets - 1))] += 1 }
            }
        }
        var scratch = [UInt64](repeating: 0, count: a.count)
        var scratchValues = [UInt32](repeating: 0, count: paired ? v.count : 0)
        for p in 0..<passes {
            let shift = UInt64(low + p * digit)
            // SAFETY: the four arrays' storage, lent for the nested closures of this pass only; `a`
            // and `scratch` have the same count, as have `v` and `scratchValues` when paired, and
            // every index is below it.
            a.withUnsafeMutableBufferPointer { src in
                // SAFETY: as above.
                scratch.withUnsafeMutableBufferPointer { dst in
                    // SAFETY: as above.
                    v.withUnsafeMutableBufferPointer { srcV in
                        // SAFETY: as above.
                        scratchValues.withUnsafeMutableBufferPointer { dstV in
                            // SAFETY: as above: `counts` holds `passes * buckets` entries, and this
                            // pass's slice is inside them.
                            counts.withUnsafeMutableBufferPointer { all in
                                // SAFETY: as above.
                                let c = UnsafeMutableBufferPointer(rebasing: all[(p * buckets)..<((p + 1) * buckets)])
                                var sum = 0
                                for b in 0..<buckets {
                                    let n = c[b]
                                    c[b] = sum
                                    sum += n
                                }
                                let mask = UInt64(buckets - 1)
                                if paired {
                                    for i in 0..<src.count {
                                        let x = src[i]
                                        let b = Int((x >> shift) & mask)
                                        dst[c[b]] = x
                                        dstV[c[b]] = srcV[i]
                                        c[b] += 1
                                    }
                                } else {
                                    for x in src {
                                        let b = Int((x >> shift) & mask)
                                        dst[c[b]] = x
                                        c[b] += 1
                                    }
                                }
                            }
                        }
                    }
                }
            }
            swap(&a, &scratch)
            if paired { swap(&v, &scratchValues) }
        }
    }
}
