/// The FIT CRC-16 (FIT protocol, "CRC"): CRC-16/ARC, the reflected polynomial 0xA001 from 0,
/// over every byte of a file from its header's first byte to the last data byte; the header's
/// own CRC covers its first 12 bytes.
///
/// The protocol gives it nibble by nibble with a 16-entry table (`nibbleTable`, as Garmin's
/// SDKs compute it); `byteTable` is the same function a byte at a time, derived from the
/// nibble steps, and `sliceTables` four bytes at a time, so that the reader spends one load a
/// byte without waiting for the previous byte's step.
struct FITCRC {
    /// Garmin's table: the CRC of each 4-bit value.
    static let nibbleTable: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    /// One byte by the protocol's two nibble steps, low nibble first.
    static func nibbleStep(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        var crc = crc
        var tmp = nibbleTable[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ nibbleTable[Int(byte & 0xF)]
        tmp = nibbleTable[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ nibbleTable[Int((byte >> 4) & 0xF)]
        return crc
    }

    /// `byteTable[i]`: the nibble steps of byte i from a CRC of 0; since the CRC is linear,
    /// crc' = (crc >> 8) ^ byteTable[(crc ^ byte) & 0xFF].
    static let byteTable: [UInt16] = (0..<256).map { nibbleStep(0, UInt8($0)) }

    /// Four tables for four bytes a step ("slicing by 4"): `sliceTables[k * 256 + i]` is the
    /// CRC of byte i followed by k zero bytes, from a CRC of 0. Four bytes b0…b3 then take
    /// crc' = T3[(crc ^ b0) & 0xFF] ^ T2[(crc >> 8) ^ b1] ^ T1[b2] ^ T0[b3], four independent
    /// loads instead of a chain of four dependent steps.
    static let sliceTables: [UInt16] = {
        var t = byteTable
        for k in 1..<4 {
            for i in 0..<256 {
                let previous = t[(k - 1) * 256 + i]
                t.append((previous >> 8) ^ byteTable[Int(previous & 0xFF)])
            }
        }
        return t
    }()

    private(set) var value: UInt16 = 0

    /// Adds `count` bytes from `p`.
    // SAFETY: `p` points at `count` readable bytes (the caller's buffer), valid for the call; reads
    // stay below `count`.
    @inline(__always)
    mutating func update(_ p: UnsafePointer<UInt8>, count: Int) {
        var crc = value
        // SAFETY: the tables' storage, lent for the closure; every index is a byte plus 0, 256, 512
        // or 768, below its 1024 entries.
        Self.sliceTables.withUnsafeBufferPointer { table in
            var i = 0
            while i + 4 <= count {
                let x0 = Int(UInt8(truncatingIfNeeded: crc) ^ p[i])
                let x1 = Int(UInt8(truncatingIfNeeded: crc >> 8) ^ p[i + 1])
                crc = table[768 + x0] ^ table[512 + x1] ^ table[256 + Int(p[i + 2])] ^ table[Int(p[i + 3])]
                i += 4
            }
            while i < count {
                crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ p[i])]
                i += 1
            }
        }
        value = crc
    }

    /// The CRC of `bytes`, by the nibble steps (for headers and tests).
    static func of(_ bytes: some Sequence<UInt8>) -> UInt16 {
        bytes.reduce(0, nibbleStep)
    }
}
