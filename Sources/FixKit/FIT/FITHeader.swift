/// A FIT file header (FIT protocol, "File Header"), 12 or 14 bytes, little-endian:
///
///     byte 0      header size: 12, or 14 with a header CRC
///     byte 1      protocol version
///     bytes 2-3   profile version
///     bytes 4-7   data size: the bytes of records between the header and the file's CRC
///     bytes 8-11  ".FIT"
///     bytes 12-13 CRC of bytes 0-11 (14-byte headers only; 0 means not computed)
///
/// The file's 2-byte CRC follows the data. Several files may follow one another in one input
/// (chained FIT files, as Garmin watches write for multisport activities).
struct FITHeader: Equatable {
    var size: Int
    var protocolVersion: UInt8
    var profileVersion: UInt16
    var dataSize: Int
    /// The CRC stored in a 14-byte header (nil for 12 bytes).
    var storedCRC: UInt16?
    /// The CRC of bytes 0-11.
    var computedCRC: UInt16

    /// Whether the header's CRC is present, not 0, and wrong.
    var crcIsBad: Bool {
        guard let storedCRC, storedCRC != 0 else { return false }
        return storedCRC != computedCRC
    }

    /// Whether `p` (at least 12 bytes) starts a FIT header: size 12 or 14, then ".FIT" at 8.
    // SAFETY: `p` points at 12 bytes held by the decoder (`ensure(12)`), valid for the call.
    static func isHeader(_ p: UnsafePointer<UInt8>) -> Bool {
        (p[0] == 12 || p[0] == 14) && p[8] == UInt8(ascii: ".") && p[9] == UInt8(ascii: "F")
            && p[10] == UInt8(ascii: "I") && p[11] == UInt8(ascii: "T")
    }

    /// Reads the header at `p`, which holds `p[0]` bytes (12 or 14; `isHeader` said yes).
    // SAFETY: `p` holds `p[0]` bytes (12 or 14; `isHeader` said so and the decoder `ensure`d them),
    // valid for the call.
    init(_ p: UnsafePointer<UInt8>) {
        size = Int(p[0])
        protocolVersion = p[1]
        profileVersion = UInt16(p[2]) | UInt16(p[3]) << 8
        dataSize = Int(UInt32(p[4]) | UInt32(p[5]) << 8 | UInt32(p[6]) << 16 | UInt32(p[7]) << 24)
        storedCRC = size >= 14 ? UInt16(p[12]) | UInt16(p[13]) << 8 : nil
        // SAFETY: the first 12 bytes, held (see above).
        computedCRC = FITCRC.of(UnsafeBufferPointer(start: p, count: 12))
    }
}
