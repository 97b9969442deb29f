import Testing

@testable import FixKit

/// `FenceTable`, the columns fencerule keeps fences in, and the plain buffers its load uses.
struct FenceTableTests {
    /// A table made from fences gives them back, ids (ASCII, accented, emoji, empty) included,
    /// and its columns hold their coordinates.
    @Test func givesBackTheFencesItWasMadeFrom() {
        var g = FixGenerator(seed: 11)
        let names = ["shop-1", "Café Müller", "🏠 home", "", String(repeating: "x", count: 300), "42"]
        let fences = (0..<1_000).map { k in
            Fence(
                id: "\(names[k % names.count])#\(k)", lat: g.unit() * 180 - 90, lon: g.unit() * 360 - 180,
                radius: g.unit() * 1_000)
        }
        let table = FenceTable(fences)
        #expect(table.count == fences.count)
        #expect(table.fences == fences)
        for k in [0, 1, 4, 999] {
            #expect(table.id(k) == fences[k].id)
            #expect(table.lat[k] == fences[k].lat && table.lon[k] == fences[k].lon)
            #expect(table.radius[k] == fences[k].radius)
            #expect(table.withID(k) { Array($0) } == Array(fences[k].id.utf8))
        }
        #expect(FenceTable([]).isEmpty)
    }

    /// The builder grows past what it reserved without losing a fence or an id's byte.
    @Test func theBuilderGrowsPastItsReserve() {
        let b = FenceTable.Builder(capacity: 1, idBytes: 1)
        let fences = (0..<5_000).map { Fence(id: "fence-\($0)", lat: Double($0) / 100, lon: 1, radius: 5) }
        for f in fences { b.append(f) }
        #expect(b.finish().fences == fences)
    }

    /// Duplicate ids are found from the table's bytes, the first pair by the later fence.
    @Test func findsTheFirstDuplicateID() {
        let ids = ["a", "b", "c", "b", "a", "é", "e\u{301}"]
        let table = FenceTable(ids.map { Fence(id: $0, lat: 0, lon: 0, radius: 1) })
        #expect(FenceFile.firstDuplicate(table).map { [$0.0, $0.1] } == [1, 3])
        #expect(FenceFile.firstDuplicate(FenceTable(Array(table.fences.prefix(3)))) == nil)
    }

    @Test func scratchBufferKeepsWhatItHoldsAsItGrows() {
        let buffer = ScratchBuffer<Int>(capacity: 2)
        for i in 0..<10_000 { buffer.append(i * 3) }
        #expect(buffer.count == 10_000)
        #expect(buffer.elements.elementsEqual((0..<10_000).map { $0 * 3 }))
        buffer.removeAll()
        #expect(buffer.isEmpty)
        buffer.append(7)
        #expect(buffer[0] == 7)
    }

    /// A large block is usable end to end, and on Linux page-aligned and advised out of
    /// transparent huge pages (its mapping's `VmFlags` in /proc/self/smaps say `nh`).
    @Test func largeBlocksAreWholeAndAligned() throws {
        for count in [0, 1, 1_000, 3 << 20] {
            let p = System.allocateLarge(UInt32.self, capacity: count)
            defer { p.deallocate() }
            for i in 0..<count { p[i] = UInt32(truncatingIfNeeded: i) }
            #expect((0..<count).allSatisfy { p[$0] == UInt32(truncatingIfNeeded: $0) })
            #if os(Linux)
                if count * 4 >= System.largeBlock {
                    #expect(Int(bitPattern: p) % System.pageBytes == 0)
                    // The advice exists only where the kernel has transparent huge pages.
                    if System.kind(of: "/sys/kernel/mm/transparent_hugepage") != nil {
                        let flags = try #require(Self.vmFlags(containing: UInt(bitPattern: p)))
                        #expect(flags.contains("nh"), "VmFlags: \(flags)")
                    }
                }
            #endif
        }
    }

    /// Handing back a large block's pages past what is kept: the kept bytes, and the rest of
    /// the page they end in, are untouched; every page after reads as zero.
    @Test func releasedPagesOfALargeBlockReadAsZero() {
        let count = System.largeBlock + 3 * System.pageBytes
        let p = System.allocateLarge(UInt8.self, capacity: count)
        defer { p.deallocate() }
        p.initialize(repeating: 0xA5, count: count)
        let keeping = 5 * System.pageBytes + 17
        System.releaseLarge(UnsafeMutableRawPointer(p), keeping: keeping, of: count)
        let kept = 6 * System.pageBytes
        #expect((0..<kept).allSatisfy { p[$0] == 0xA5 })
        #if os(Linux)
            #expect((kept..<count).allSatisfy { p[$0] == 0 })
        #else
            #expect((kept..<count).allSatisfy { p[$0] == 0xA5 })
        #endif
    }

    #if os(Linux)
        /// The `VmFlags` line of the mapping that holds `address`, from /proc/self/smaps.
        static func vmFlags(containing address: UInt) -> String? {
            // Read to its end: /proc files report a size of 0.
            guard let bytes = try? readWholeFile("/proc/self/smaps") else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            var inside = false
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: " ", maxSplits: 1)
                if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                    let ends = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                    inside = ends.count == 2 && ends[0] <= address && address < ends[1]
                } else if inside, line.hasPrefix("VmFlags:") {
                    return String(line.dropFirst("VmFlags:".count))
                }
            }
            return nil
        }
    #endif
}
