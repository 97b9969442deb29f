/// A definition message (FIT protocol, "Definition Message"), compiled into the plan that its
/// data messages are read by. After the record header (`0100 LLLL`, or `0110 LLLL` with
/// developer fields; LLLL the local message type 0-15):
///
///     byte 0      reserved
///     byte 1      architecture: 0 little-endian, 1 big-endian (multi-byte values, and byte 2-3)
///     bytes 2-3   global message number (20 record, 21 event, ...)
///     byte 4      number of fields F
///     3 x F       field number, size in bytes, base type
///     [1]         number of developer fields D        } only with the developer flag
///     [3 x D]     field number, size, developer index  }
///
/// A data message of the local type then holds the fields' values in that order, developer
/// fields last (consumed and skipped: gpx2fix reads none). The plan keeps only the offsets of
/// the fields gpx2fix reads, so that a data message costs a few loads.
struct FITPlan {
    /// The data message's size after its record header.
    var size: Int
    var global: UInt16
    var bigEndian: Bool
    /// `timestamp` (field 253), in any message: compressed timestamps count from the last one.
    var timestamp = FITFieldRef.absent
    // record (global 20)
    var positionLat = FITFieldRef.absent
    var positionLong = FITFieldRef.absent
    var altitude = FITFieldRef.absent
    var enhancedAltitude = FITFieldRef.absent
    var speed = FITFieldRef.absent
    var enhancedSpeed = FITFieldRef.absent
    var gpsAccuracy = FITFieldRef.absent
    // event (global 21)
    var event = FITFieldRef.absent
    var eventType = FITFieldRef.absent
    /// Whether gpx2fix reads this message's fields (record and event); others are skipped.
    var isRead: Bool { global == Self.record || global == Self.eventMessage }

    static let record: UInt16 = 20
    static let eventMessage: UInt16 = 21

    /// Compiles the definition at `p` (after its record header), which holds all of it.
    /// `architecture` must be 0 or 1 (the reader checks it first). Fields whose size does not
    /// fit their base type, or whose base type FIT does not define, go to `misfits`: their
    /// bytes are skipped in the data messages, never read as a value.
    // SAFETY: `p` holds the whole definition (the decoder `ensure`d its length from the field
    // count), valid during this call; the compiled plan keeps offsets, not pointers.
    init(_ p: UnsafePointer<UInt8>, developer: Bool, misfits: inout [FITMisfit]) {
        bigEndian = p[1] == 1
        global = bigEndian ? UInt16(p[2]) << 8 | UInt16(p[3]) : UInt16(p[3]) << 8 | UInt16(p[2])
        let count = Int(p[4])
        var offset = 0
        for i in 0..<count {
            let number = p[5 + 3 * i], fieldSize = Int(p[6 + 3 * i]), typeByte = p[7 + 3 * i]
            defer { offset += fieldSize }
            guard let type = FITBaseType(byte: typeByte), fieldSize > 0, fieldSize % type.size == 0 else {
                misfits.append(FITMisfit(field: number, size: fieldSize, typeByte: typeByte))
                continue
            }
            // A string or byte array holds no number gpx2fix reads.
            if type.number == 7 || type.number == 13 { continue }
            let ref = FITFieldRef(offset: offset, type: type, bigEndian: bigEndian)
            if number == 253 { timestamp = ref }
            switch global {
            case Self.record:
                switch number {
                case 0: positionLat = ref
                case 1: positionLong = ref
                case 2: altitude = ref
                case 78: enhancedAltitude = ref
                case 6: speed = ref
                case 73: enhancedSpeed = ref
                case 31: gpsAccuracy = ref
                default: break
                }
            case Self.eventMessage:
                if number == 0 { event = ref } else if number == 1 { eventType = ref }
            default: break
            }
        }
        if developer {
            let base = 5 + 3 * count
            for i in 0..<Int(p[base]) { offset += Int(p[base + 2 + 3 * i]) }
        }
        size = offset
    }

    /// Whether a misfit field is one gpx2fix reads from this message.
    func readsField(_ number: UInt8) -> Bool {
        if number == 253 { return true }
        switch global {
        case Self.record: return [0, 1, 2, 78, 6, 73, 31].contains(number)
        case Self.eventMessage: return number == 0 || number == 1
        default: return false
        }
    }

    /// The message's name in FIT's profile, for messages: "record (global 20)".
    var described: String {
        let name: String? =
            switch global {
            case 0: "file_id"
            case 18: "session"
            case 19: "lap"
            case Self.record: "record"
            case Self.eventMessage: "event"
            case 23: "device_info"
            case 34: "activity"
            case 206: "field_description"
            case 207: "developer_data_id"
            default: nil
            }
        return name.map { "\($0) message (global \(global))" } ?? "message (global \(global))"
    }
}

/// A field definition whose size is not a whole number of values of its base type (COROS
/// writes an event's uint32 `data` as 1 byte), or whose base type FIT does not define.
struct FITMisfit: Equatable {
    var field: UInt8
    var size: Int
    var typeByte: UInt8

    /// "field 3 is 1 byte of uint32 (4 bytes a value)".
    var described: String {
        guard let type = FITBaseType(byte: typeByte) else {
            return "field \(field) has base type 0x\(String(typeByte, radix: 16)), which FIT does not define"
        }
        return "field \(field) is \(size) byte\(size == 1 ? "" : "s") of \(type.name) (\(type.size) bytes a value)"
    }
}
