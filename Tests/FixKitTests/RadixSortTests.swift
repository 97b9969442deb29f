import Testing

@testable import FixKit

/// `FenceIndex.radixSort` (the index's Morton keys, the fences file's duplicate-id hashes) sorts
/// only the bits that vary, in one to six passes, with each pass's counts taken in one read.
/// Against the standard library's stable sort on the same keys: every width of varying bits
/// from 1 to 64 at several offsets (so every number of passes, and each written-out case),
/// many equal keys, and sorts from a bit (`fromBit`), which must keep equal high parts in the
/// order given. The index's form, keys with fence numbers packed into one word where they
/// fit, against the same stable sort, on both sides of the 64 bits it packs into, with its
/// scratch allocated and lent (as the index lends it), writing nothing outside what it is lent.
struct RadixSortTests {
    @Test func agreesWithAStableSortAtEveryWidth() {
        var g = FixGenerator(seed: 270_113)
        for width in 1...64 {
            for low in [0, 3, 17] where low + width <= 64 {
                for fromBit in [0, 7, 24] {
                    let n = 1 + Int(g.nextUInt() % 3_000)
                    let base = g.nextUInt()
                    let span = width == 64 ? UInt64.max : (UInt64(1) << UInt64(width)) - 1
                    // A few distinct values now and then, so that equal keys are common.
                    let distinct = g.chance(0.3) ? 1 + g.nextUInt() % 20 : 0
                    let pool = (0..<max(1, distinct)).map { _ in g.nextUInt() & span }
                    var keys = (0..<n).map { _ -> UInt64 in
                        let v = distinct > 0 ? pool[Int(g.nextUInt() % distinct)] : g.nextUInt() & span
                        let field = span << UInt64(low)
                        return (base & ~field) | (v << UInt64(low))
                    }
                    var values = (0..<n).map { UInt32($0) }
                    let shift = UInt64(fromBit)
                    let expected = keys.enumerated().sorted { ($0.element >> shift, $0.offset) < ($1.element >> shift, $1.offset) }
                    FenceIndex.radixSort(keys: &keys, values: &values, fromBit: fromBit)
                    let got = zip(keys, values).map { ($0 >> shift, $1) }
                    let want = expected.map { ($0.element >> shift, UInt32($0.offset)) }
                    guard got.elementsEqual(want, by: { $0 == $1 }) else {
                        Issue.record("width \(width), low \(low), fromBit \(fromBit), n \(n): not sorted and stable")
                        return
                    }
                }
            }
        }
    }

    @Test func keysWithNumbersAgreeWithAStableSortPackedOrNot() {
        var g = FixGenerator(seed: 61_883)
        var packed = 0
        var paired = 0
        for width in [1, 5, 12, 20, 33, 36, 40, 44, 45, 50, 54, 64] {
            for numberLimit in [UInt64(2), 1_000, 1 << 20, 1 << 24] {
                let n = 2 + Int(g.nextUInt() % 4_000)
                let base = g.nextUInt()
                let low = Int(g.nextUInt() % UInt64(65 - width))
                let span = width == 64 ? UInt64.max : (UInt64(1) << UInt64(width)) - 1
                let field = span << UInt64(low)
                let distinct = g.chance(0.3) ? 1 + g.nextUInt() % 20 : 0
                let pool = (0..<max(1, distinct)).map { _ in g.nextUInt() & span }
                var keys = (0..<n).map { _ -> UInt64 in
                    let v = distinct > 0 ? pool[Int(g.nextUInt() % distinct)] : g.nextUInt() & span
                    return (base & ~field) | (v << UInt64(low))
                }
                // Fence numbers as the index has them: ascending, from anywhere below the limit.
                let start = g.nextUInt() % numberLimit
                var numbers = (0..<n).map { UInt32(truncatingIfNeeded: (start + UInt64($0)) % (numberLimit + UInt64(n))) }
                numbers.sort()
                let largest = numbers.last ?? 0
                let varying = keys.reduce(0) { $0 | $1 } ^ keys.reduce(~0) { $0 & $1 }
                if 64 - varying.leadingZeroBitCount + (32 - largest.leadingZeroBitCount) <= 64 {
                    packed += 1
                } else {
                    paired += 1
                }
                let expected = zip(keys, numbers).enumerated().sorted {
                    ($0.element.0, $0.offset) < ($1.element.0, $1.offset)
                }.map { $0.element }
                // Also with the scratch lent, as the index lends the slots it fills next (12
                // bytes a key, the keys' pairs' values after the keys): what is around it,
                // filled with a pattern, must be left alone.
                var lentKeys = keys
                var lentNumbers = numbers
                let pad = 64
                let lent = UnsafeMutableRawPointer.allocate(byteCount: 12 * n + 2 * pad, alignment: 8)
                defer { lent.deallocate() }
                lent.initializeMemory(as: UInt8.self, repeating: 0xA5, count: 12 * n + 2 * pad)
                keys.withUnsafeMutableBufferPointer { k in
                    numbers.withUnsafeMutableBufferPointer { v in
                        FenceIndex.radixSort(keys: k.baseAddress!, numbers: v.baseAddress!, count: n)
                    }
                }
                lentKeys.withUnsafeMutableBufferPointer { k in
                    lentNumbers.withUnsafeMutableBufferPointer { v in
                        FenceIndex.radixSort(
                            keys: k.baseAddress!, numbers: v.baseAddress!, count: n, scratch: lent + pad)
                    }
                }
                guard zip(keys, numbers).elementsEqual(expected, by: { $0 == $1 }),
                    zip(lentKeys, lentNumbers).elementsEqual(expected, by: { $0 == $1 })
                else {
                    Issue.record("width \(width), low \(low), numbers below \(numberLimit), n \(n): not sorted and stable")
                    return
                }
                let bytes = lent.assumingMemoryBound(to: UInt8.self)
                guard (0..<pad).allSatisfy({ bytes[$0] == 0xA5 && bytes[pad + 12 * n + $0] == 0xA5 }) else {
                    Issue.record("n \(n): the sort wrote outside the 12 bytes a key it was lent")
                    return
                }
            }
        }
        // Both ways are taken.
        #expect(packed > 10 && paired > 10, "\(packed) packed, \(paired) as pairs")
    }

    /// `FenceEngine.sortByFence`, which orders a fix's candidates by fence for the merge with
    /// the kept states: an insertion sort up to 32, the standard sort of packed words up to
    /// 4,095, the radix sort beyond (--trace, or a hacc of thousands of km, among a million
    /// fences). Each candidate must come out whole, in fence order, at every size on both
    /// sides of those limits; the fence numbers are distinct and up to 2^24, as the index's.
    @Test func candidatesSortByFenceAtEverySize() {
        var g = FixGenerator(seed: 90_210)
        for n in [0, 1, 2, 31, 32, 33, 100, 4_095, 4_096, 4_097, 50_000] {
            let buffer = ScratchBuffer<FenceEngine.Candidate>()
            var used = Set<Int>()
            while used.count < n { used.insert(Int(g.nextUInt() % UInt64(FenceIndex.capacity))) }
            for k in used {
                buffer.append(
                    FenceEngine.Candidate(k: k, d: Double(k) / 3, radius: Double(k % 977), place: k ^ 0x5A5A))
            }
            FenceEngine.sortByFence(buffer)
            let got = Array(buffer.elements)
            #expect(got.map(\.k) == used.sorted(), "\(n) candidates: not in fence order")
            #expect(
                got.allSatisfy { $0.d == Double($0.k) / 3 && $0.radius == Double($0.k % 977) && $0.place == $0.k ^ 0x5A5A },
                "\(n) candidates: a candidate's fields were separated")
        }
    }
}
