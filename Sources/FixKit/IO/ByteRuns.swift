/// Runs of bytes found a word (eight bytes) at a time, for the readers that step over padding
/// by the hundred megabytes: NUL bytes and blank lines (`NMEAReader`, and `LeadingSpace` before
/// any format is known) and a row too long to keep (`CSVRowReader`).
// SAFETY (every function): `base[i..<n]` is the caller's, valid for the call; words are read
// only where all eight bytes lie below `n`, single bytes below `n`.
enum ByteRuns {
    /// The first byte at or after `i` that is not NUL, or `n`.
    @inline(__always)
    static func skipNULs(_ base: UnsafePointer<UInt8>, from i: Int, to n: Int) -> Int {
        var i = i
        while i + 8 <= n, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) == 0 { i += 8 }
        while i < n, base[i] == 0 { i += 1 }
        return i
    }

    /// Skips LF bytes from `i`: where they end, and how many.
    @inline(__always)
    static func skipLFs(_ base: UnsafePointer<UInt8>, from i: Int, to n: Int) -> (Int, Int) {
        var k = i
        while k + 8 <= n, UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self) == 0x0A0A_0A0A_0A0A_0A0A { k += 8 }
        while k < n, base[k] == 0x0A { k += 1 }
        return (k, k - i)
    }

    /// The first LF or CR at or after `i`, or `n`: each word's bytes equal to either made zero
    /// and found with the exact zero-byte test ((v − 0x01…) & ~v & 0x80… flags a zero byte, and
    /// its lowest flag is the first: a borrow runs only upward from a zero byte).
    static func lineEnd(_ base: UnsafePointer<UInt8>, from i: Int, to n: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = i
        while i + 8 <= n {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self).littleEndian
            let lf = w ^ (ones &* 0x0A)
            let cr = w ^ (ones &* 0x0D)
            let found = ((lf &- ones) & ~lf | (cr &- ones) & ~cr) & highs
            if found != 0 { return i + found.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < n, base[i] != 0x0A, base[i] != 0x0D { i += 1 }
        return i
    }
}
