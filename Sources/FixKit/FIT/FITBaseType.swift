/// FIT base types (FIT protocol, "Base Types"): the low 5 bits of a field definition's base
/// type byte. Each has a size in bytes and an invalid value that means "no value".
///
///     #   name     size  invalid                #   name     size  invalid
///     0   enum     1     0xFF                   9   float64  8     all bits set
///     1   sint8    1     0x7F                   10  uint8z   1     0x00
///     2   uint8    1     0xFF                   11  uint16z  2     0x0000
///     3   sint16   2     0x7FFF                 12  uint32z  4     0x00000000
///     4   uint16   2     0xFFFF                 13  byte     1     0xFF (every byte)
///     5   sint32   4     0x7FFFFFFF             14  sint64   8     0x7FFFFFFFFFFFFFFF
///     6   uint32   4     0xFFFFFFFF             15  uint64   8     0xFFFFFFFFFFFFFFFF
///     7   string   1     0x00 (NUL-terminated)  16  uint64z  8     0
///     8   float32  4     all bits set
struct FITBaseType: Equatable {
    /// The number, 0 to 16.
    let number: UInt8

    static let names = [
        "enum", "sint8", "uint8", "sint16", "uint16", "sint32", "uint32", "string", "float32", "float64",
        "uint8z", "uint16z", "uint32z", "byte", "sint64", "uint64", "uint64z",
    ]
    private static let sizes: [UInt8] = [1, 1, 1, 2, 2, 4, 4, 1, 4, 8, 1, 2, 4, 1, 8, 8, 8]

    /// The base type of a definition's base type byte, or nil for a number FIT does not define.
    init?(byte: UInt8) {
        let n = byte & 0x1F
        guard n <= 16 else { return nil }
        number = n
    }

    var size: Int { Int(Self.sizes[Int(number)]) }
    var name: String { Self.names[Int(number)] }
    var isSigned: Bool { number == 1 || number == 3 || number == 5 || number == 14 }
    var isFloat: Bool { number == 8 || number == 9 }

    /// The invalid value, as the unsigned bits of one `size`-byte value.
    var invalid: UInt64 {
        switch number {
        case 1: return 0x7F
        case 3: return 0x7FFF
        case 5: return 0x7FFF_FFFF
        case 14: return 0x7FFF_FFFF_FFFF_FFFF
        case 7, 10, 11, 12, 16: return 0
        default: return size == 8 ? UInt64.max : (1 << UInt64(size * 8)) - 1
        }
    }
}

/// Where one field gpx2fix reads sits in a data message, compiled from its definition: the
/// offset after the record header, the size of one value, how to read it, and its invalid
/// value. An absent field has `offset` -1. Arrays give their first element.
struct FITFieldRef {
    var offset: Int32 = -1
    /// Bytes of one value: 1, 2, 4 or 8.
    var size: UInt8 = 0
    var signed = false
    var float = false
    var bigEndian = false
    var invalid: UInt64 = 0

    static let absent = FITFieldRef()

    init() {}

    init(offset: Int, type: FITBaseType, bigEndian: Bool) {
        self.offset = Int32(offset)
        size = UInt8(type.size)
        signed = type.isSigned
        float = type.isFloat
        self.bigEndian = bigEndian
        invalid = type.invalid
    }

    var isPresent: Bool { offset >= 0 }

    /// The raw unsigned bits of the value in the message at `p`, or nil if absent or invalid.
    // SAFETY: `p` points at a data message's fields in the decoder's buffer, all `plan.size` of
    // them there (`ensure`), valid during the handler's call; the plan placed this field at `offset
    // ..< offset + size` inside the message, so every load below stays inside it.
    @inline(__always)
    func bits(_ p: UnsafePointer<UInt8>) -> UInt64? {
        guard offset >= 0 else { return nil }
        // SAFETY: `offset + size` is within the message (see above).
        let q = UnsafeRawPointer(p + Int(offset))
        // One unaligned load of the base type's size (1, 2, 4 or 8), swapped if big-endian.
        let v: UInt64
        switch size {
        case 1: v = UInt64(q.load(as: UInt8.self))
        case 2:
            let w = UInt16(littleEndian: q.loadUnaligned(as: UInt16.self))
            v = UInt64(bigEndian ? w.byteSwapped : w)
        case 4:
            let w = UInt32(littleEndian: q.loadUnaligned(as: UInt32.self))
            v = UInt64(bigEndian ? w.byteSwapped : w)
        case 8:
            let w = UInt64(littleEndian: q.loadUnaligned(as: UInt64.self))
            v = bigEndian ? w.byteSwapped : w
        default:
            var u: UInt64 = 0
            // SAFETY: the field's `size` bytes, inside the message.
            let b = q.assumingMemoryBound(to: UInt8.self)
            let n = Int(size)
            if bigEndian {
                for i in 0..<n { u = u << 8 | UInt64(b[i]) }
            } else {
                for i in (0..<n).reversed() { u = u << 8 | UInt64(b[i]) }
            }
            v = u
        }
        return v == invalid ? nil : v
    }

    /// The value as a number (signed and float types read as such), or nil.
    // SAFETY: as `bits`: `p` is a whole data message in the decoder's buffer, valid during the
    // call.
    @inline(__always)
    func value(_ p: UnsafePointer<UInt8>) -> Double? {
        guard let v = bits(p) else { return nil }
        if float {
            let d = size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: v))) : Double(bitPattern: v)
            return d.isFinite ? d : nil
        }
        if signed {
            let shift = UInt64(64 - Int(size) * 8)
            return Double(Int64(bitPattern: v << shift) >> Int64(shift))
        }
        return Double(v)
    }
}
