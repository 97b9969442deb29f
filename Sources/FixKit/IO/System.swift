#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system calls the tools make outside reading inputs and writing outputs (terminals,
/// signals, the clock, directories, files opened for writing), so that IO owns every one.
enum System {
    /// Writes all of `bytes` to `fd`, retrying on EINTR; gives up silently when the
    /// descriptor fails (for standard error: there is nowhere left to say so).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        // SAFETY: the array's storage, lent for the closure only; every write reads
        // `base + offset ..< base + raw.count`, inside it.
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Glibc_write(fd, base + offset, raw.count - offset)
                if n <= 0 {
                    if n < 0, errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    /// Whether `fd` is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// A closed pipe must end a tool quietly, not kill it with SIGPIPE: writes then fail
    /// with EPIPE, which `OutputSink` reports as a closed reader.
    static func ignoreBrokenPipe() { signal(SIGPIPE, ignoreSignal) }

    /// A handler that does nothing: SIG_IGN, which Swift cannot import as a constant on every
    /// platform.
    private static let ignoreSignal: @convention(c) (Int32) -> Void = { _ in }

    /// Asks glibc's allocator to keep freed memory for the next allocation instead of giving
    /// it back to the system: no block is mapped on its own below 32 MiB (by default the
    /// threshold rises only as far as the largest block freed), and the heap's top is trimmed
    /// only past 256 MiB free. `visits` frees a stay's arrays and heaps at every stay's end
    /// and grows them again for the next; handed back, every page of them was faulted in and
    /// zeroed again: 27,600 page faults on the bench's month, 7,900 with this (about 5% of its
    /// time where a fault costs 3 µs). The peak is the same, since a freed block is reused,
    /// not added to. Elsewhere (no `mallopt`, as on macOS) it does nothing.
    static func keepFreedMemory() {
        #if canImport(Glibc)
            // `mallopt` is in <malloc.h>, which the Glibc module does not include: looked up
            // by name, and called through its C signature `int mallopt(int, int)`.
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(nil, "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
            let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
            _ = mallopt(trimThreshold, 256 << 20)
            _ = mallopt(mmapThreshold, 32 << 20)
        #endif
    }

    /// Memory for `count` values of `T`, uninitialized, to be freed with
    /// `deallocateLarge(_:capacity:)` and the same count. On Linux a block of 4 MiB or more is a
    /// mapping of its own (`mmap`), a whole number of pages, never memory the allocator had
    /// handed out before: a page of it is in memory only once written or populated, and its
    /// pages go back to the system when it is freed. Through `malloc` such a block could be
    /// carved from the heap's free memory, whose pages earlier blocks had faulted in, as the
    /// allocator keeps them (`keepFreedMemory`), and then what the block's owner faults in could
    /// not be told from what was there. The block is kept out of transparent huge pages
    /// (`MADV_NOHUGEPAGE`, whatever the system's THP setting): its first writes fault in 4 KiB
    /// pages. On a virtual machine whose balloon hands free memory back to the host (free page
    /// reporting, as on the VMs the bench ran on), a huge page is mostly made of memory the
    /// host must back again, 9 ms a page at its first write unless a process had just freed it:
    /// fencerule's million fences took 0.29 s of system time in huge pages and 0.11 s in 4 KiB
    /// pages, run in turn with another command; back to back, huge pages were about 0.05 s
    /// cheaper. The 4 KiB pages' cost does not depend on what ran before (bench/README.md,
    /// "Huge pages against 4 KiB pages"). Elsewhere (macOS) and for smaller blocks, the usual
    /// allocation.
    ///
    /// `populate`: the caller writes the whole block at once, so its pages are faulted in by one
    /// call (`populate(_:from:to:of:)`) rather than one fault at a time.
    ///
    /// A mapping refused (the address space or the system's commit limit exhausted) stops the
    /// program, as Swift's own allocation does when `malloc` fails.
    static func allocateLarge<T>(_: T.Type, capacity count: Int, populate: Bool = false) -> UnsafeMutablePointer<T> {
        #if os(Linux)
            if let rounded = mappedBytes(T.self, count) {
                // SAFETY: a fresh private mapping of `rounded` bytes, page-aligned (so aligned
                // for T, whose alignment is at most a page), owned by the caller until
                // `deallocateLarge` unmaps it; `madvise` only advises (its failure, where THP is
                // not built in, changes nothing), and the block is bound to T once, before any use.
                let mapped = mmap(nil, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                guard let raw = mapped, raw != MAP_FAILED else {
                    preconditionFailure("out of memory: \(rounded) bytes could not be mapped (errno \(errno))")
                }
                _ = madvise(raw, rounded, MADV_NOHUGEPAGE)
                if populate { System.populate(raw, from: 0, to: rounded, of: rounded) }
                return raw.bindMemory(to: T.self, capacity: count)
            }
        #endif
        return UnsafeMutablePointer<T>.allocate(capacity: max(1, count))
    }

    /// Frees a block that `allocateLarge` gave for `count` values of `T`: `count` must be the
    /// one it was asked for, which says how the block was made (a mapping of its own, or the
    /// usual allocation).
    // SAFETY: `p` is an `allocateLarge` block of `count` values of T, owned by the caller and
    // not used after; its elements need no deinitializing (trivial types only).
    static func deallocateLarge<T>(_ p: UnsafeMutablePointer<T>, capacity count: Int) {
        #if os(Linux)
            if let rounded = mappedBytes(T.self, count) {
                _ = munmap(p, rounded)
                return
            }
        #endif
        p.deallocate()
    }

    /// The bytes of the mapping `allocateLarge` makes for `count` values of `T`, nil where it
    /// uses the usual allocation (blocks below `largeBlock`, or aligned beyond a page).
    private static func mappedBytes<T>(_: T.Type, _ count: Int) -> Int? {
        let bytes = max(1, count) * MemoryLayout<T>.stride
        guard bytes >= largeBlock, MemoryLayout<T>.alignment <= pageBytes else { return nil }
        return pageEnd(bytes)
    }

    /// `bytes` rounded up to a whole number of pages.
    private static func pageEnd(_ bytes: Int) -> Int { (bytes + pageBytes - 1) & ~(pageBytes - 1) }

    /// Faults in the pages of bytes `from..<to` of an `allocateLarge` block of `total` bytes, about
    /// to be written, in one call (`MADV_POPULATE_WRITE`): on the VMs the bench ran on, 100 MiB
    /// took a median of 40 to 56 ms against 55 to 72 ms faulted in page by page at their
    /// first writes (`bench/populate.c`), and loading a million fences 0.013 s less (0.234
    /// against 0.247 s of CPU time; bench/README.md, "Pages faulted in at once"). Before Linux
    /// 5.14 the advice is refused and the pages fault in as before; elsewhere (macOS), and for
    /// blocks below `largeBlock` (which may share pages with other blocks), it does nothing. The
    /// range is widened to whole pages of the block.
    // SAFETY: `p` is an `allocateLarge` block of `total` bytes, owned by the caller; populating
    // writes nothing to the pages (they read as before), so pages of it already written keep
    // their bytes.
    static func populate(_ p: UnsafeMutableRawPointer, from: Int, to: Int, of total: Int) {
        #if os(Linux)
            guard total >= largeBlock, to > from else { return }
            let start = from & ~(pageBytes - 1)
            let end = min(pageEnd(to), pageEnd(total))
            // MADV_POPULATE_WRITE (Linux 5.14), spelt out: older C headers do not define it.
            let populateWrite: Int32 = 23
            if end > start { _ = madvise(p + start, end - start, populateWrite) }
        #endif
    }

    /// The size from which `allocateLarge` gives blocks that are mappings of their own.
    static let largeBlock = 4 << 20
    /// The pages `allocateLarge` and `releaseLarge` work in.
    static let pageBytes = 4096

    /// Hands back to the system the pages of an `allocateLarge` block of `total` bytes past its
    /// first `keeping` bytes: whole pages only (a block that large is page-aligned). The block
    /// stays allocated, to be freed by `deallocateLarge`; a later write to the pages handed back
    /// finds them zeroed. Elsewhere (macOS, and blocks below `largeBlock`) it does nothing.
    // SAFETY: `p` is an `allocateLarge` block of at least `total` bytes, owned by the caller, who
    // reads nothing past `keeping` in it after this without writing it first.
    static func releaseLarge(_ p: UnsafeMutableRawPointer, keeping: Int, of total: Int) {
        #if os(Linux)
            guard total >= largeBlock else { return }
            let from = pageEnd(keeping)
            let to = total & ~(pageBytes - 1)
            if to > from { _ = madvise(p + from, to - from, MADV_DONTNEED) }
        #endif
    }

    /// Moves the first `used` elements of `p` (trivial ones), an `allocateLarge` block of
    /// `from` values, into a new one of `capacity`, frees `p`, and returns the new block: a
    /// growable buffer's growth.
    // SAFETY: `p` is an `allocateLarge` block of `from` values whose first `used` are initialized,
    // owned by the caller, who must use only the returned block after (`p` is freed here).
    static func reallocateLarge<T>(
        _ p: UnsafeMutablePointer<T>, used: Int, from: Int, capacity: Int
    ) -> UnsafeMutablePointer<T> {
        let q = allocateLarge(T.self, capacity: capacity)
        q.moveInitialize(from: p, count: used)
        deallocateLarge(p, capacity: from)
        return q
    }

    /// Seconds on the monotonic clock.
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// What is at `path`: nil when nothing is (or it cannot be looked at).
    enum PathKind { case directory, other }

    static func kind(of path: String) -> PathKind? {
        var st = stat()
        guard ByteText.withPath(path, { stat($0, &st) }) == 0 else { return nil }
        return (st.st_mode & S_IFMT) == S_IFDIR ? .directory : .other
    }

    /// Makes the directory `path` (mode 0777 less the umask).
    static func makeDirectory(_ path: String) throws(SystemError) {
        guard ByteText.withPath(path, { mkdir($0, 0o777) }) == 0 else { throw SystemError.last }
    }

    /// Opens `path` for writing, created or emptied, with `mode` (less the umask) when it is
    /// made: a descriptor for an `OutputSink`, to `close` when done.
    static func createForWriting(_ path: String, mode: mode_t) throws(SystemError) -> Int32 {
        let fd = ByteText.withPath(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw SystemError.last }
        return fd
    }

    static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }
}
