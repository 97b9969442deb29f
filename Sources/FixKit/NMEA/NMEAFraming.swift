/// Framing: checksum and fields of one sentence candidate.
enum NMEAFraming {
    enum Outcome {
        case sentence(NMEASentence)
        case badChecksum
        /// Proprietary (`$P...`), AIS (`!`), or too short to be a sentence: skipped quietly.
        case ignored
    }

    /// Frames the sentence that starts at `bytes[0]` (a `$`) and runs to the next `$` or `!`,
    /// the line's end (LF, CR or NUL: `bytes` may be a line without its end, or run on past
    /// it) or the end of `bytes`, in one pass: the checksum (XOR of everything between `$` and
    /// `*`, two hex digits after `*`) and the field commas. Returns where the sentence ended.
    /// Trailing blanks are not part of the last field.
    static func frame(_ bytes: UnsafeBufferPointer<UInt8>, bounds: FieldBounds) -> (Outcome, end: Int) {
        // SAFETY: `bytes` is the caller's, alive for this call; every index below is < n.
        guard let p = bytes.baseAddress else { return (.ignored, 0) }
        let n = bytes.count
        // table[0] is the address field's comma, table[n] the end of field n (numbered from 1,
        // as in the sentence diagrams).
        let table = bounds.storage
        // A local, not read from `bounds` again after each store to `table`.
        let commaPlaces = bounds.commaPlaces
        var fieldCount = -1
        var sum: UInt8 = 0
        var k = 1
        var star = -1
        // Eight bytes at a time up to the first `$`, `!` or `*` or line end: before the star
        // every byte joins the checksum, so whole words are XORed and folded at the end. The
        // commas come from an exact mask; only a word with another byte at or below ',' ($ ! *,
        // line ends and line noise) is looked at byte by byte.
        var words: UInt64 = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let commaBytes: UInt64 = 0x2C2C_2C2C_2C2C_2C2C
        words: while k + 8 <= n {
            let w = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self).littleEndian
            // A byte's high bit is set where it is at most ',' (0x2C): (b & 0x7F) + 0x53 reaches
            // 0x80 exactly when b & 0x7F > 0x2C, never carries into the next byte, and a byte
            // with its own high bit set is above ','.
            let low = ~(((w & ~highs) &+ 0x53 &* ones) | w) & highs
            // Where x = w ^ ',,,,,,,,' has a zero byte: (x & 0x7F) + 0x7F sets a byte's high
            // bit unless its low seven bits are 0, without a carry, and x's own high bit
            // joins, so the high bit is clear exactly where the byte is ','.
            let x = w ^ commaBytes
            var commas = ~(((x & ~highs) &+ ~highs) | x) & highs
            // A line is at most `NMEAReader.maxLine` (1 MiB) long: its places fit 32 bits.
            if low == commas, fieldCount <= FieldBounds.capacity - 10 {
                // Only commas, and room for eight. Their places come from a table, by the
                // word's eight comma bits gathered into one byte (bit 8j + 7 moves to bit
                // 56 + j: one multiplication, whose partial products never meet). Four places
                // are written whether the word has them or not (a place past the last comma is
                // written again later, or never read), so that no branch waits on how many it
                // has; more than four (empty fields) go one at a time.
                let pattern = Int(truncatingIfNeeded: ((commas &>> 7) &* 0x0102_0408_1020_4080) &>> 56)
                let places = commaPlaces[pattern]
                let at = Int32(truncatingIfNeeded: k)
                table[fieldCount &+ 1] = at &+ Int32(truncatingIfNeeded: places & 0xFF)
                table[fieldCount &+ 2] = at &+ Int32(truncatingIfNeeded: places &>> 8 & 0xFF)
                table[fieldCount &+ 3] = at &+ Int32(truncatingIfNeeded: places &>> 16 & 0xFF)
                table[fieldCount &+ 4] = at &+ Int32(truncatingIfNeeded: places &>> 24 & 0xFF)
                let found = Int(truncatingIfNeeded: places &>> 32)
                if found > 4 {
                    var c = commas
                    for _ in 0..<4 { c &= c &- 1 }
                    var j = fieldCount &+ 5
                    while c != 0 {
                        table[j] = Int32(truncatingIfNeeded: k &+ c.trailingZeroBitCount >> 3)
                        c &= c &- 1
                        j &+= 1
                    }
                }
                fieldCount &+= found
                words ^= w
                k += 8
                continue
            }
            var others = low & ~commas
            var stop = -1
            while others != 0 {
                let j = others.trailingZeroBitCount >> 3
                let c = UInt8(truncatingIfNeeded: w >> UInt64(j << 3))
                if c == UInt8(ascii: "$") || c == UInt8(ascii: "!") || c == UInt8(ascii: "*") || c == 0x0A
                    || c == 0x0D || c == 0
                {
                    stop = j
                    break
                }
                others &= others &- 1
            }
            // Only the commas before a stop are this word's.
            if stop >= 0 { commas &= (1 << UInt64(stop << 3)) &- 1 }
            // Near a full table (a word holds at most eight commas) only as many count as it
            // has room for, the rest of the sentence then being its last field: the lowest
            // ones, kept bit by bit.
            let room = FieldBounds.capacity - 2 - fieldCount
            if room < 8 {
                var kept: UInt64 = 0
                for _ in 0..<max(room, 0) {
                    kept |= commas & (0 &- commas)
                    commas &= commas &- 1
                }
                commas = kept
            }
            while commas != 0 {
                fieldCount += 1
                table[fieldCount] = Int32(truncatingIfNeeded: k &+ commas.trailingZeroBitCount >> 3)
                commas &= commas &- 1
            }
            if stop >= 0 {
                // The bytes before it join the checksum; the byte-wise loop goes on from it.
                words ^= w & ((1 << UInt64(stop << 3)) &- 1)
                k += stop
                break words
            }
            words ^= w
            k += 8
        }
        words ^= words >> 32
        words ^= words >> 16
        words ^= words >> 8
        sum = UInt8(truncatingIfNeeded: words)
        @inline(__always) func ends(_ c: UInt8) -> Bool {
            c == UInt8(ascii: "$") || c == UInt8(ascii: "!") || c == 0x0A || c == 0x0D || c == 0
        }
        // The usual end, `*hh` and the line's end, is taken at once: what the loop below would
        // find there (the same end, and the two digits XORed in and out again).
        var given: UInt8?
        if k + 3 <= n, p[k] == UInt8(ascii: "*"), let hex = hexByte(p[k + 1], p[k + 2]), k + 3 == n || ends(p[k + 3]) {
            star = k
            given = hex
            k += 3
        }
        while given == nil, k < n {
            let c = p[k]
            // Every byte that matters ($ ! * , and line noise) is at or below ','; letters and
            // digits only join the checksum.
            if c > UInt8(ascii: ",") {
                sum ^= c
                k += 1
                continue
            }
            if ends(c) { break }
            if star < 0 {
                if c == UInt8(ascii: "*") {
                    star = k
                } else {
                    sum ^= c
                    if c == UInt8(ascii: ","), fieldCount < FieldBounds.capacity - 2 {
                        fieldCount += 1
                        table[fieldCount] = Int32(k)
                    }
                }
            }
            k += 1
        }
        let end = k
        guard end >= 7 else { return (.ignored, end) }
        var last = star >= 0 ? star : end
        if let given {
            guard given == sum else { return (.badChecksum, end) }
        } else if star >= 0 {
            // `*hh`: two hex digits; anything after them (a stray NUL) is ignored. The bytes after
            // the star were XORed in above; take them out again.
            for j in (star + 1)..<end where p[j] > UInt8(ascii: ",") { sum ^= p[j] }
            guard star + 3 <= end, let expected = hexByte(p[star + 1], p[star + 2]), expected == sum else {
                return (.badChecksum, end)
            }
        } else {
            while last > 0, p[last - 1] <= 0x20 { last -= 1 }
        }
        if p[1] == UInt8(ascii: "P") { return (.ignored, end) }
        // Address: two talker letters and three type letters (ignore anything else).
        // Unicore writes high-precision variants as four letters ending in H (GGAH, RMCH).
        guard fieldCount >= 0, table[0] == 6 || (table[0] == 7 && p[6] == UInt8(ascii: "H")),
            Int(table[fieldCount]) < last
        else { return (.ignored, end) }
        fieldCount += 1
        table[fieldCount] = Int32(last)
        let type = UInt32(p[3]) << 16 | UInt32(p[4]) << 8 | UInt32(p[5])
        // SAFETY: the sentence points into `bytes` and `bounds`, which the caller keeps alive
        // and unchanged until it has used the sentence (see `NMEASentence`).
        return (
            .sentence(NMEASentence(base: p, length: end, bounds: UnsafePointer(table), count: fieldCount, type: type)),
            end
        )
    }

    @inline(__always)
    static func hexByte(_ a: UInt8, _ b: UInt8) -> UInt8? {
        @inline(__always) func v(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - 48
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - 55
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - 87
            default: return nil
            }
        }
        guard let x = v(a), let y = v(b) else { return nil }
        return x << 4 | y
    }
}

/// Scratch space for one sentence's field boundaries, allocated once per reader so that no
/// sentence allocates.
final class FieldBounds {
    static let capacity = 128
    // SAFETY: allocated here for `capacity` fields, initialised, and freed in `deinit`: valid as
    // long as the reader that owns this object; `frame` writes at most `capacity` entries.
    let storage: UnsafeMutablePointer<Int32>
    /// For each set of commas in a word (bit j: byte j is one), the byte places of the first
    /// four in the low four bytes and how many there are in the fifth.
    // SAFETY: allocated here for 256 entries, all initialised, and freed in `deinit`; `frame`
    // indexes it by one byte.
    let commaPlaces: UnsafeMutablePointer<UInt64>

    init() {
        storage = .allocate(capacity: FieldBounds.capacity)
        storage.initialize(repeating: 0, count: FieldBounds.capacity)
        commaPlaces = .allocate(capacity: 256)
        for pattern in 0..<256 {
            var places: UInt64 = 0
            var found: UInt64 = 0
            for j in 0..<8 where pattern >> j & 1 == 1 {
                if found < 4 { places |= UInt64(j) << (8 * found) }
                found += 1
            }
            (commaPlaces + pattern).initialize(to: places | found << 32)
        }
    }

    deinit {
        storage.deallocate()
        commaPlaces.deallocate()
    }
}
