/// The duplicate-id check of the fences file, made once over all fences whichever form the
/// file had.
extension FenceFile {
    /// FNV-1a of an id's UTF-8.
    @inline(__always)
    static func idHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return h
    }

    /// The first pair of fences (by the later one's place) that share an id. Ids are hashed
    /// (FNV-1a) and the hashes radix-sorted with the fence numbers, so a million ids need no
    /// dictionary; equal hashes are confirmed on the ids' bytes.
    static func firstDuplicate(_ table: FenceTable) -> (Int, Int)? {
        let n = table.count
        guard n > 1, n <= FenceIndex.capacity else { return nil }
        // 40 bits of hash, 24 of fence number.
        // SAFETY: n keys, each written below before the sort reads them; freed on return.
        let keys = System.allocateLarge(UInt64.self, capacity: n)
        defer { System.deallocateLarge(keys, capacity: n) }
        for k in 0..<n { keys[k] = (table.withID(k) { idHash($0) } << 24) | UInt64(k) }
        // On the hash bits alone: the sort is stable, so equal hashes stay in fence order.
        FenceIndex.radixSort(keys: keys, values: nil, count: n, fromBit: 24)
        var best: (Int, Int)?
        var i = 0
        while i < n {
            var j = i + 1
            while j < n, keys[j] >> 24 == keys[i] >> 24 { j += 1 }
            if j - i > 1 {
                // Same hash: compare the ids within the group.
                let group = (i..<j).map { Int(keys[$0] & 0xFF_FFFF) }
                for a in 0..<group.count {
                    for b in (a + 1)..<group.count where table.sameID(group[a], group[b]) {
                        let pair = (min(group[a], group[b]), max(group[a], group[b]))
                        if best.map({ pair.1 < $0.1 }) ?? true { best = pair }
                    }
                }
            }
            i = j
        }
        return best
    }
}
