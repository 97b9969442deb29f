// Not re-exported: zlib's declarations are ours alone.
internal import CFixZlib

/// Inflates gzip data (RFC 1952) as it is read: the one door to zlib.
///
/// Members are read one after another, as `gzip -d` does (`cat a.gz b.gz` is one stream), and
/// each member's CRC-32 and length are checked by zlib. Compressed bytes come from `fill` in
/// chunks; memory is the two buffers and zlib's 32 KiB window, whatever the size.
final class GzipInflater {
    private var stream = z_stream()
    private var input: [UInt8]
    private var inputCount = 0
    private var inputOffset = 0
    private var ended = false
    private var inMember = false
    /// Compressed bytes consumed, for messages.
    private(set) var compressedOffset = 0
    /// Bytes produced, for messages.
    private(set) var inflatedCount = 0
    private var initialised = false
    /// An error found by the call that also inflated bytes: thrown by the next call.
    private var pendingError: GzipError?

    /// `first` holds compressed bytes already read (the magic number at least).
    init(first: [UInt8]) {
        input = first
        inputCount = first.count
        if input.count < 1 << 16 { input += [UInt8](repeating: 0, count: (1 << 16) - input.count) }
    }

    deinit {
        if initialised { inflateEnd(&stream) }
    }

    /// Inflates into `p`, up to `capacity` bytes; 0 at the end of the data. `fill` reads more
    /// compressed bytes into the buffer it is given and returns how many (0 at the end).
    // SAFETY: `p` is the caller's buffer of `capacity` bytes, valid for this call only: inflate
    // writes at most `capacity` bytes into it. `fill` is handed `input`'s storage for its own call
    // only and must write at most the count it is given.
    func read(
        into p: UnsafeMutableRawPointer, capacity: Int,
        fill: (UnsafeMutableRawPointer, Int) throws -> Int
    ) throws(GzipError) -> Int {
        if let pendingError {
            self.pendingError = nil
            throw pendingError
        }
        guard !ended, capacity > 0 else { return 0 }
        while true {
            if inputOffset == inputCount {
                let n: Int
                do {
                    n = try input.withUnsafeMutableBytes { raw in
                        // SAFETY: raw is valid inside the closure, which `fill` does not outlive.
                        // `input` is never empty (a chunk); with no bytes there is nothing to fill.
                        guard let base = raw.baseAddress else { return 0 }
                        return try fill(base, raw.count)
                    }
                } catch {
                    throw GzipError.read(error)
                }
                inputCount = n
                inputOffset = 0
                if n == 0 {
                    ended = true
                    if inMember { throw GzipError.truncated(compressed: compressedOffset, inflated: inflatedCount) }
                    return 0
                }
            }
            if !inMember {
                // Between members: another member must start with the magic number; anything
                // else (zero padding that tape and SD-card tools leave) ends the data, as
                // `gzip -d` ends it ("trailing garbage ignored").
                if input[inputOffset] != 0x1F {
                    ended = true
                    return 0
                }
                try begin()
            }
            let produced: Int
            let rc: Int32
            do {
                (produced, rc) = input.withUnsafeMutableBufferPointer { buf in
                    // SAFETY: next_in points into `input` and next_out into `p`, both valid for
                    // the counts given and for the duration of this one inflate call. `input`
                    // holds unread bytes here (inputOffset < inputCount), so it has a base
                    // address; without one, a stream error (not reached).
                    guard let base = buf.baseAddress else { return (0, Z_STREAM_ERROR) }
                    stream.next_in = base + inputOffset
                    stream.avail_in = UInt32(inputCount - inputOffset)
                    stream.next_out = p.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = UInt32(min(capacity, Int(UInt32.max)))
                    let rc = inflate(&stream, Z_NO_FLUSH)
                    let used = (inputCount - inputOffset) - Int(stream.avail_in)
                    inputOffset += used
                    compressedOffset += used
                    return (min(capacity, Int(UInt32.max)) - Int(stream.avail_out), rc)
                }
            }
            inflatedCount += produced
            switch rc {
            case Z_STREAM_END:
                inMember = false
                if produced > 0 { return produced }
            case Z_OK, Z_BUF_ERROR:
                if produced > 0 { return produced }
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(rc)"
                ended = true
                let error = GzipError.corrupt(message, compressed: compressedOffset)
                // What this call inflated before the damage is handed out first.
                if produced > 0 {
                    pendingError = error
                    return produced
                }
                throw error
            }
        }
    }

    private func begin() throws(GzipError) {
        if initialised {
            inflateReset(&stream)
        } else {
            // 15 + 16: a 32 KiB window and gzip's header and trailer, not zlib's.
            let rc = inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
            guard rc == Z_OK else { throw GzipError.corrupt("zlib could not start (\(rc))", compressed: 0) }
            initialised = true
        }
        inMember = true
    }

    /// Whether bytes start a gzip member (RFC 1952: ID1 0x1f, ID2 0x8b, CM 8 deflate).
    static func isGzip(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count >= 3 && bytes[bytes.startIndex] == 0x1F && bytes[bytes.startIndex + 1] == 0x8B
            && bytes[bytes.startIndex + 2] == 8
    }
}

enum GzipError: Error {
    case truncated(compressed: Int, inflated: Int)
    case corrupt(String, compressed: Int)
    case read(Error)

    var reason: String {
        switch self {
        case .truncated(let c, let i):
            return
                "the gzip data ends early, as a truncated .gz does (after \(c) compressed bytes, \(i) bytes inflated)"
        case .corrupt(let m, let c):
            return "the gzip data is corrupt near compressed byte \(c) (zlib: \(m))"
        case .read(let e):
            return (e as? InputError)?.reason ?? "\(e)"
        }
    }
}
