@testable import FixKit

/// Writes FIT files for tests, byte by byte from the FIT protocol (not from the reader's
/// code): headers with or without their CRC, definitions in either byte order, normal and
/// compressed-timestamp data messages, developer fields, and the file CRC; `chained` puts
/// files one after another. Values are given as the raw bits of each field.
struct FITWriter {
    /// A field definition: number, size in bytes, base type byte (0x85 sint32, ...).
    struct Field {
        var number: UInt8
        var size: UInt8
        var type: UInt8
    }

    /// The data records, after the header.
    private(set) var data: [UInt8] = []
    /// The byte order and the fields of each local type, as last defined.
    private var defined: [Int: (bigEndian: Bool, fields: [Field], developer: [UInt8])] = [:]

    /// The CRC of `bytes` by the FIT protocol's nibble table, written out again here.
    static func crc(_ bytes: [UInt8], from start: UInt16 = 0) -> UInt16 {
        let table: [UInt16] = [
            0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
            0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
        ]
        var crc = start
        for b in bytes {
            for nibble in [b & 0xF, b >> 4] {
                let tmp = table[Int(crc & 0xF)]
                crc = (crc >> 4) & 0x0FFF
                crc = crc ^ tmp ^ table[Int(nibble)]
            }
        }
        return crc
    }

    static func bytes(_ value: UInt64, size: Int, bigEndian: Bool) -> [UInt8] {
        let little = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        return bigEndian ? little.reversed() : little
    }

    /// A definition message for `local`, with developer fields (number, size, developer data
    /// index) when `developer` is not empty.
    mutating func define(
        local: Int, global: UInt16, bigEndian: Bool = false, _ fields: [Field], developer: [(UInt8, UInt8, UInt8)] = []
    ) {
        data.append(UInt8(0x40 | (developer.isEmpty ? 0 : 0x20) | local))
        data += [0, bigEndian ? 1 : 0]
        data += Self.bytes(UInt64(global), size: 2, bigEndian: bigEndian)
        data.append(UInt8(fields.count))
        for f in fields { data += [f.number, f.size, f.type] }
        if !developer.isEmpty {
            data.append(UInt8(developer.count))
            for d in developer { data += [d.0, d.1, d.2] }
        }
        defined[local] = (bigEndian, fields, developer.map { $0.1 })
    }

    /// A data message of `local` with one value a field (raw bits, in the definition's byte
    /// order) and `developerBytes` for its developer fields; with `compressedTime`, a
    /// compressed-timestamp header carrying that 5-bit offset (local must be 0-3).
    mutating func message(local: Int, _ values: [UInt64], developerBytes: [UInt8] = [], compressedTime: UInt8? = nil) {
        guard let d = defined[local] else { preconditionFailure("local type \(local) not defined") }
        precondition(values.count == d.fields.count)
        if let t = compressedTime {
            precondition(local < 4 && t < 32)
            data.append(0x80 | UInt8(local) << 5 | t)
        } else {
            data.append(UInt8(local))
        }
        for (f, v) in zip(d.fields, values) {
            data += Self.bytes(v, size: Int(f.size), bigEndian: d.bigEndian)
        }
        precondition(developerBytes.count == d.developer.reduce(0) { $0 + Int($1) })
        data += developerBytes
    }

    /// Raw bytes (a broken record, for tests of bad input).
    mutating func raw(_ bytes: [UInt8]) { data += bytes }

    /// The whole file: a 12- or 14-byte header, the data, and the file CRC; `headerCRC`
    /// overrides the computed one (0 means none), `fileCRC` likewise.
    func file(headerSize: Int = 14, headerCRC: UInt16? = nil, fileCRC: UInt16? = nil, dataSize: Int? = nil) -> [UInt8] {
        var header: [UInt8] = [UInt8(headerSize), 0x20]
        header += Self.bytes(2132, size: 2, bigEndian: false)
        header += Self.bytes(UInt64(dataSize ?? data.count), size: 4, bigEndian: false)
        header += Array(".FIT".utf8)
        if headerSize == 14 { header += Self.bytes(UInt64(headerCRC ?? Self.crc(header)), size: 2, bigEndian: false) }
        let body = header + data
        return body + Self.bytes(UInt64(fileCRC ?? Self.crc(body)), size: 2, bigEndian: false)
    }

    // MARK: the messages an activity has

    static let fileID: [Field] = [Field(number: 0, size: 1, type: 0x00), Field(number: 1, size: 2, type: 0x84)]
    static let event: [Field] = [
        Field(number: 253, size: 4, type: 0x86), Field(number: 0, size: 1, type: 0x00),
        Field(number: 1, size: 1, type: 0x00),
    ]
}
