import Testing

@testable import FixKit

#if canImport(Glibc)
    import Glibc
#endif

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
            defer { System.deallocateLarge(p, capacity: count) }
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
        defer { System.deallocateLarge(p, capacity: count) }
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
        /// A large block asked for in full is in memory before anything is written to it (where
        /// the kernel can populate, 5.14 and later), every page, as `mincore` reports; a range of
        /// it is in memory from its page to the end of its last, and the rest of a fresh block is
        /// not.
        @Test(.enabled(if: canPopulate, "MADV_POPULATE_WRITE needs Linux 5.14 or later"))
        func populatedPagesAreInMemoryBeforeTheirFirstWrite() throws {
            let count = System.largeBlock + 5 * System.pageBytes
            let p = System.allocateLarge(UInt8.self, capacity: count, populate: true)
            defer { System.deallocateLarge(p, capacity: count) }
            #expect(Self.resident(UnsafeMutableRawPointer(p), pages: count / System.pageBytes).allSatisfy { $0 })
            // A fresh block, a mapping of its own, never written.
            let big = 64 << 20
            let q = System.allocateLarge(UInt8.self, capacity: big)
            defer { System.deallocateLarge(q, capacity: big) }
            let raw = UnsafeMutableRawPointer(q)
            #expect(!Self.resident(raw, pages: big / System.pageBytes).contains(true), "a fresh block is in memory")
            System.populate(raw, from: 3 * System.pageBytes + 100, to: 7 * System.pageBytes + 1, of: big)
            let resident = Self.resident(raw, pages: 10)
            #expect(resident == [false, false, false, true, true, true, true, true, false, false])
            #expect(q[3 * System.pageBytes] == 0 && q[8 * System.pageBytes - 1] == 0)
        }

        /// A large block is never memory the allocator handed out before, even where glibc keeps
        /// what is freed in the heap (`keepFreedMemory`, as `visits` asks): blocks of 8 MiB are
        /// written and freed, and a large block of the same size, which `malloc` would carve
        /// from them, has none of its pages in memory, and one write faults in one page. (Through
        /// the allocator's aligned allocation, as before, all 2,048 pages of it were in memory:
        /// tried.) Whether the freed range is unmapped is not checked: another suite's mapping
        /// may take its place at once.
        @Test func aLargeBlockIsAMappingOfItsOwn() {
            System.keepFreedMemory()
            let size = 8 << 20
            let pages = size / System.pageBytes
            let used = (0..<4).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: size) }
            for block in used { block.initialize(repeating: 0x5A, count: size) }
            for block in used { block.deallocate() }
            let p = System.allocateLarge(UInt8.self, capacity: size)
            let raw = UnsafeMutableRawPointer(p)
            let inMemory = Self.resident(raw, pages: pages).filter { $0 }.count
            #expect(inMemory == 0, "\(inMemory) of \(pages) pages in memory")
            p[size - 1] = 1
            #expect(Self.resident(raw, pages: pages).filter { $0 }.count == 1)
            System.deallocateLarge(p, capacity: size)
        }

        /// A table's columns are reserved for more fences than it gets, and only the pages of the
        /// fences written (and of the rest of their `Builder.chunk`) are in memory.
        @Test(.enabled(if: canPopulate, "MADV_POPULATE_WRITE needs Linux 5.14 or later"))
        func aTableFaultsInOnlyThePagesItWrites() throws {
            // 64 MiB a column: blocks of their own mappings, never written before.
            let reserved = 8 << 20
            let read = FenceTable.Builder(capacity: reserved, idBytes: 8 * reserved)
            let n = FenceTable.Builder.chunk + 10
            for k in 0..<n { read.append(Fence(id: "f\(k)", lat: 1, lon: 2, radius: 3)) }
            let table = read.finish()
            let lat = try #require(table.lat.baseAddress)
            let pages = reserved * 8 / System.pageBytes
            let resident = Self.resident(UnsafeMutableRawPointer(mutating: lat), pages: pages)
            // Two chunks of 8-byte values, 128 pages each, and none after.
            let populated = 2 * FenceTable.Builder.chunk * 8 / System.pageBytes
            #expect(resident[..<populated].allSatisfy { $0 })
            #expect(!resident[populated...].contains(true))
            #expect(table.count == n && table.id(n - 1) == "f\(n - 1)" && table.lat[n - 1] == 1)
        }

        /// Which of the `pages` pages from `p` (page-aligned) are in memory.
        static func resident(_ p: UnsafeMutableRawPointer, pages: Int) -> [Bool] {
            var vector = [UInt8](repeating: 0, count: pages)
            let status = vector.withUnsafeMutableBufferPointer { mincore(p, pages * System.pageBytes, $0.baseAddress) }
            #expect(status == 0, "mincore: \(errno)")
            return vector.map { $0 & 1 != 0 }
        }

        /// Whether the kernel populates on advice: its release (6.1 for "6.1.0-18-amd64") is 5.14
        /// or later.
        static let canPopulate: Bool = {
            var name = utsname()
            uname(&name)
            let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
            return !numbers.lexicographicallyPrecedes([5, 14])
        }()

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
