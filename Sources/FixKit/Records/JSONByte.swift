/// The bytes of JSON's grammar (RFC 8259), by name.
enum JSONByte {
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }
    static let openBracket: UInt8 = 0x5B  // [
    static let closeBracket: UInt8 = 0x5D  // ]
    static let comma: UInt8 = 0x2C  // ,
    static let colon: UInt8 = 0x3A  // :
    static let quote: UInt8 = 0x22  // "
    static let backslash: UInt8 = 0x5C  // \
    static let minus: UInt8 = 0x2D  // -
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
}

extension JSONByte {
    /// Whether every byte of `text` is ASCII (below 0x80), eight at a time.
    // SAFETY: `text` is the caller's, valid for the call; words are read only where all eight
    // bytes lie inside it.
    @inline(__always)
    static func isASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = text.baseAddress else { return true }
        let n = text.count
        var any: UInt64 = 0
        var i = 0
        while i + 8 <= n {
            any |= UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            i += 8
        }
        while i < n {
            any |= UInt64(p[i])
            i += 1
        }
        return any & 0x8080_8080_8080_8080 == 0
    }

    /// The first place from `i` that holds a quote, a backslash or a control character (below
    /// 0x20), or `end`: where a string's plain bytes stop.
    // SAFETY: `p[i..<end]` is the caller's, valid for the call (see `specialIndex`).
    @inline(__always)
    static func plainRunEnd(_ p: UnsafePointer<UInt8>, from i: Int, end n: Int) -> Int {
        specialIndex(p, from: i, end: n, standIns: false)
    }

    /// Whether `p[0..<n]` can be written inside a JSON string as it is: no quote, backslash,
    /// control byte or 0xF4 (the lead of `ByteText`'s stand-ins for bytes that are not UTF-8).
    // SAFETY: `p[0..<n]` is the caller's, valid for the call (see `specialIndex`).
    @inline(__always)
    static func writesPlain(_ p: UnsafePointer<UInt8>, count n: Int) -> Bool {
        specialIndex(p, from: 0, end: n, standIns: true) == n
    }

    /// The first place from `i` that holds a quote, a backslash, a control character or, with
    /// `standIns`, 0xF4; or `end`. Eight bytes at a time: a high bit in `special` where a byte
    /// is one of those. A borrow can set one only above a byte that is such, so the lowest is
    /// exact, and it is the only one read. Each caller passes a constant `standIns`, which the
    /// inlining folds away.
    // SAFETY: `p[i..<end]` is the caller's, valid for the call; a word is read only where all
    // eight of its bytes are below `end`.
    @inline(__always)
    static func specialIndex(_ p: UnsafePointer<UInt8>, from i: Int, end n: Int, standIns: Bool) -> Int {
        var i = i
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i + 8 <= n {
            let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self).littleEndian
            let q = w ^ (ones &* UInt64(quote))
            let b = w ^ (ones &* UInt64(backslash))
            var special = ((q &- ones) & ~q | (b &- ones) & ~b | (w &- ones &* 0x20) & ~w) & highs
            if standIns {
                let f = w ^ (ones &* 0xF4)
                special |= (f &- ones) & ~f & highs
            }
            if special != 0 { return i + special.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < n {
            let c = p[i]
            if c == quote || c == backslash || c < 0x20 || (standIns && c == 0xF4) { return i }
            i += 1
        }
        return n
    }
}

@inline(__always)
func isHexDigit(_ c: UInt8) -> Bool {
    (c &- 48) < 10 || (c | 0x20) &- 97 < 6
}
