import Testing

@testable import FixKit

#if canImport(Glibc)
    import Glibc
#endif

/// `System.keepFreedMemory` (called by `visits`): a block freed and asked for again is taken
/// from what the allocator kept, without a page fault per page, where glibc by default maps
/// such a block on its own, unmaps it when freed, and the next one faults every page in again.
/// The faults are this thread's own (`RUSAGE_THREAD`), so the suites running beside it do not
/// count. Linux only: elsewhere the call does nothing, and there is nothing to measure.
@Suite("System.keepFreedMemory: a freed block comes back without faulting its pages in again")
struct AllocatorPolicyTests {
    /// Minor page faults of the calling thread so far.
    static func threadFaults() -> Int {
        #if canImport(Glibc)
            var usage = rusage()
            let thread: Int32 = 1  // RUSAGE_THREAD, which the Glibc module leaves out (_GNU_SOURCE)
            guard getrusage(__rusage_who_t(thread), &usage) == 0 else { return -1 }
            return Int(usage.ru_minflt)
        #else
            return 0
        #endif
    }

    /// Allocates `bytes`, writes one byte a page, and frees it: the faults it cost this thread.
    static func faultsToTouch(_ bytes: Int) -> Int {
        let before = threadFaults()
        let block = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
        var at = 0
        while at < bytes {
            block[at] = UInt8(truncatingIfNeeded: at >> 12)
            at += 4096
        }
        // Read back, so that the writes are not optimized away.
        var sum = 0
        at = 0
        while at < bytes {
            sum &+= Int(block[at])
            at += 4096
        }
        block.deallocate()
        #expect(sum >= 0)
        return threadFaults() - before
    }

    /// Whether AddressSanitizer's allocator stands in for glibc's (`swift test
    /// --sanitize=address`, as `.ci/run` runs the suite a second time): its `mallopt` does
    /// nothing and a freed block waits in quarantine, so there is no policy to see.
    static let underAddressSanitizer: Bool = {
        #if canImport(Glibc)
            return dlsym(nil, "__asan_init") != nil
        #else
            return false
        #endif
    }()

    #if canImport(Glibc)
        @Test(
            .disabled(
                if: underAddressSanitizer,
                "AddressSanitizer's allocator replaces glibc's: mallopt does nothing, and freed blocks wait in quarantine"
            ))
        func aFreedBlockIsReusedWithoutFaults() {
            System.keepFreedMemory()
            let size = 16 << 20  // 4,096 pages, under the 32 MiB the policy keeps in the heap
            let first = Self.faultsToTouch(size)
            let second = Self.faultsToTouch(size)
            let third = Self.faultsToTouch(size)
            // The first block may be new memory (4,096 faults); the ones after it must reuse it.
            // Handed back to the system, each would fault all 4,096 pages in again.
            #expect(first >= 0)
            #expect(second < 256, "the second 16 MiB block faulted \(second) pages in (first: \(first))")
            #expect(third < 256, "the third 16 MiB block faulted \(third) pages in (first: \(first))")
        }
    #endif
}
