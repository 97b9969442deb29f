#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the FIT decoder hands on: the data messages gpx2fix reads (record and event), each
/// with its plan, and the start of each chained file.
protocol FITMessageHandler {
    /// A data message whose `plan.isRead`; `p` points at its first field, `time` is its FIT
    /// timestamp (seconds since 1989-12-31T00:00:00Z) from field 253 or a compressed header,
    /// `offset` the byte of its record header in the input.
    // SAFETY: `p` points at the message's `plan.size` bytes in the decoder's buffer, valid only
    // during this call (the next read may move them); copy what is kept.
    mutating func message(_ plan: FITPlan, _ p: UnsafePointer<UInt8>, time: UInt32?, offset: Int) throws
    /// A FIT file begins (0 for the first of the input, then one more for each chained one).
    mutating func beginFile(_ index: Int)
}

/// Reads the framing of FIT input as a stream, in constant memory: headers, definition and
/// data messages, compressed timestamps, chained files and CRCs (FIT protocol, "Record
/// Header"):
///
///     0 1 D 0 LLLL            a definition message for local type LLLL (D: developer fields)
///     0 0 0 0 LLLL            a data message of local type LLLL
///     1 LL TTTTT              a data message of local type LL (0-3) at a compressed time:
///                             the last timestamp's low 5 bits replaced by TTTTT, plus 32
///                             seconds when TTTTT is below them (the offset rolled over)
///
/// A message is read only once all of it is in the buffer, whose capacity holds the largest
/// message FIT can define (255 fields of 255 bytes, as many developer fields), so memory is
/// the same whatever the input. Problems are reported as `byte N: ...`, N counted from the
/// input's first byte (after decompression for gzip input).
struct FITDecoder {
    /// 1 + 255 x 255 + 255 x 255 bytes is the largest data message; a definition is smaller.
    static let capacity = 1 << 18

    private let buffer: FITBuffer
    private let source: InputSource
    /// Valid bytes are buffer[pos..<end]; `base` is the input offset of buffer[0].
    private var pos = 0
    private var end = 0
    private var base: Int
    private var eof = false

    /// The CRC of the current file so far, over buffer bytes before `crcFrom` already added.
    private var crc = FITCRC()
    private var crcFrom = 0
    private var crcActive = false

    private var plans = [FITPlan?](repeating: nil, count: 16)
    /// The last timestamp seen in the current file, for compressed timestamps.
    private var lastTime: UInt32?

    /// Problems found that must wait until everything readable has been written (CRCs).
    private(set) var deferred: [String] = []
    /// Definitions whose misfit fields gpx2fix does not read: counted, said in one note.
    private(set) var harmlessMisfits: [String] = []
    private(set) var harmlessMisfitCount = 0
    /// Chained FIT files read.
    private(set) var files = 0

    init(source: InputSource) {
        self.source = source
        buffer = FITBuffer(capacity: Self.capacity)
        base = source.firstOffset
    }

    /// The input offset of the next byte.
    private var offset: Int { base + pos }

    /// Makes `n` bytes available at `pos`; false if the input ends first.
    @inline(__always)
    private mutating func ensure(_ n: Int) throws -> Bool {
        if end - pos >= n { return true }
        return try refill(n)
    }

    private mutating func refill(_ n: Int) throws -> Bool {
        let p = buffer.pointer
        if pos > 0 {
            if crcActive {
                crc.update(p + crcFrom, count: pos - crcFrom)
                crcFrom = 0
            }
            // SAFETY: both ranges are inside the buffer (0 <= pos <= end <= capacity); memmove
            // allows them to overlap.
            memmove(p, p + pos, end - pos)
            end -= pos
            base += pos
            pos = 0
        }
        while end < n && !eof {
            let got = try source.read(into: p + end, capacity: Self.capacity - end)
            if got == 0 { eof = true } else { end += got }
        }
        return end >= n
    }

    /// Bytes left in the input from `pos` (reads to the end: only for a message at the end).
    private mutating func remaining() throws -> Int {
        _ = try ensure(Self.capacity)
        return end - pos
    }

    /// Reads the whole input, handing its messages to `handler` and its problems to `sink`.
    mutating func run<H: FITMessageHandler>(_ handler: inout H, sink: FixSink) throws {
        while try ensure(1) {
            let start = offset
            guard try ensure(12), FITHeader.isHeader(buffer.pointer + pos) else {
                let left = try remaining()
                // SAFETY: `min(left, 12)` bytes from `pos` are held (`left` is what remains), read
                // for the message only.
                let head = escapedForMessage(UnsafeBufferPointer(start: buffer.pointer + pos, count: min(left, 12)))
                if files == 0 {
                    try sink.problem(
                        line: nil,
                        "byte \(start): not a FIT file: it starts with \"\(head)\", expected a 12- or 14-byte header with \".FIT\" at bytes 8-11"
                    )
                } else {
                    try sink.problem(
                        line: nil,
                        "byte \(start): \(left) byte\(left == 1 ? "" : "s") after the end of the FIT data (the header's data size and the CRC) are not another FIT file (\"\(head)\"); not read"
                    )
                }
                return
            }
            let headerSize = Int(buffer.pointer[pos])
            guard try ensure(headerSize) else {
                try sink.problem(
                    line: nil,
                    "byte \(offset + (end - pos)): the input ends inside a FIT file header (\(end - pos) of \(headerSize) bytes); the file is truncated"
                )
                return
            }
            let header = FITHeader(buffer.pointer + pos)
            if header.crcIsBad {
                deferred.append(
                    "byte \(start + 12): the header's CRC is \(hex(header.storedCRC ?? 0)) but its bytes give \(hex(header.computedCRC)); the file was read all the same"
                )
            }
            crc = FITCRC()
            crcFrom = pos
            crcActive = true
            pos += headerSize
            plans = [FITPlan?](repeating: nil, count: 16)
            lastTime = nil
            handler.beginFile(files)
            files += 1
            let dataEnd = offset + header.dataSize
            guard try messages(until: dataEnd, &handler, sink: sink) else { return }
            crc.update(buffer.pointer + crcFrom, count: pos - crcFrom)
            crcActive = false
            guard try ensure(2) else {
                let have = end - pos
                try sink.problem(
                    line: nil,
                    "byte \(offset + have): the input ends \(have == 0 ? "before" : "inside") the file's 2-byte CRC (the header gives \(header.dataSize) data bytes); the file is truncated"
                )
                return
            }
            let stored = UInt16(buffer.pointer[pos]) | UInt16(buffer.pointer[pos + 1]) << 8
            if stored != crc.value {
                deferred.append(
                    "byte \(offset): the file's CRC is \(hex(stored)) but its \(headerSize + header.dataSize) bytes give \(hex(crc.value)); its fixes were written all the same"
                )
            }
            pos += 2
        }
    }

    /// Reads the messages of one file, up to the input offset `dataEnd`. False when reading
    /// had to stop (reported).
    private mutating func messages<H: FITMessageHandler>(until dataEnd: Int, _ handler: inout H, sink: FixSink) throws
        -> Bool
    {
        while offset < dataEnd {
            guard try ensure(1) else {
                try sink.problem(
                    line: nil,
                    "byte \(offset): the input ends \(dataEnd - offset) bytes before the end of the FIT data that the header gives; the file is truncated"
                )
                return false
            }
            let h = buffer.pointer[pos]
            let at = offset
            if h & 0x40 != 0 && h & 0x80 == 0 {
                guard try definition(h, at: at, dataEnd: dataEnd, sink: sink) else { return false }
                continue
            }
            let compressed = h & 0x80 != 0
            let local = Int(compressed ? (h >> 5) & 3 : h & 0x0F)
            guard let plan = plans[local] else {
                try sink.problem(
                    line: nil,
                    "byte \(at): a data message of local type \(local), which no definition message has defined; the data cannot be framed from here, reading stops"
                )
                return false
            }
            let n = 1 + plan.size
            // A cut input is told first: a message cut short runs past the data end as well.
            guard try ensure(n) else {
                try sink.problem(
                    line: nil,
                    "byte \(offset + (end - pos)): the input ends inside a \(plan.described) of \(n) bytes that starts at byte \(at); the file is truncated"
                )
                return false
            }
            guard at + n <= dataEnd else {
                try sink.problem(
                    line: nil,
                    "byte \(at): a \(plan.described) of \(n) bytes runs past the end of the FIT data at byte \(dataEnd) that the header gives; reading stops"
                )
                return false
            }
            // SAFETY: the record header byte and the message's `plan.size` bytes are in the buffer
            // (`ensure(n)` above), valid until the next `ensure`; the handler uses them during its
            // call.
            let p = UnsafePointer(buffer.pointer + pos + 1)
            var time: UInt32?
            if let t = plan.timestamp.bits(p) {
                time = UInt32(truncatingIfNeeded: t)
                lastTime = time
            } else if compressed, let last = lastTime {
                let offset5 = UInt32(h & 0x1F)
                var t = (last & ~0x1F) | offset5
                if offset5 < last & 0x1F { t &+= 0x20 }
                time = t
                lastTime = t
            }
            if plan.isRead { try handler.message(plan, p, time: time, offset: at) }
            pos += n
        }
        return true
    }

    /// Reads a definition message at `pos` (record header `h`) into `plans`. False when
    /// reading had to stop (reported).
    private mutating func definition(_ h: UInt8, at: Int, dataEnd: Int, sink: FixSink) throws -> Bool {
        let developer = h & 0x20 != 0
        let local = Int(h & 0x0F)
        var need = 6
        if try ensure(need) {
            need += 3 * Int(buffer.pointer[pos + 5]) + (developer ? 1 : 0)
            if try ensure(need), developer {
                need += 3 * Int(buffer.pointer[pos + need - 1])
            }
        }
        guard try ensure(need) else {
            try sink.problem(
                line: nil,
                "byte \(offset + (end - pos)): the input ends inside a definition message (local type \(local)) that starts at byte \(at); the file is truncated"
            )
            return false
        }
        guard at + need <= dataEnd else {
            try sink.problem(
                line: nil,
                "byte \(at): a definition message of \(need) bytes runs past the end of the FIT data at byte \(dataEnd) that the header gives; reading stops"
            )
            return false
        }
        // SAFETY: the definition's `need` bytes are in the buffer (`ensure(need)` above), valid
        // until the next `ensure`.
        let p = UnsafePointer(buffer.pointer + pos + 1)
        guard p[1] <= 1 else {
            try sink.problem(
                line: nil,
                "byte \(at): a definition message with architecture \(p[1]) (expected 0, little-endian, or 1, big-endian): these bytes are not a FIT definition, the data is corrupt from here; reading stops"
            )
            return false
        }
        var misfits: [FITMisfit] = []
        let plan = FITPlan(p, developer: developer, misfits: &misfits)
        if !misfits.isEmpty {
            let read = misfits.filter { plan.readsField($0.field) }
            let what = misfits.map(\.described).joined(separator: ", ")
            if read.isEmpty {
                harmlessMisfitCount += 1
                if harmlessMisfits.count < 3, !harmlessMisfits.contains("\(plan.described) \(what)") {
                    harmlessMisfits.append("\(plan.described) \(what)")
                }
            } else {
                try sink.problem(
                    line: nil,
                    "byte \(at): the definition of local type \(local), \(plan.described), is not trusted where its \(what): left out of its messages"
                )
            }
        }
        plans[local] = plan
        pos += need
        return true
    }
}

/// "0x1A2B".
private func hex(_ v: UInt16) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: 4 - s.count) + s
}

/// The decoder's bytes: one allocation for the whole input.
final class FITBuffer {
    // SAFETY: allocated here for the decoder's capacity and freed in `deinit`: valid as long as the
    // decoder that owns it; `ensure` keeps every access below `end` <= capacity.
    let pointer: UnsafeMutablePointer<UInt8>

    init(capacity: Int) {
        pointer = .allocate(capacity: capacity)
    }

    deinit { pointer.deallocate() }
}
