/// The formats gpx2fix reads, in the order it asks them to recognise an input, and the
/// recognition itself.
///
/// Order matters only where two formats could claim the same bytes: formats with a magic
/// number or a root element first, then JSON shapes from the most to the least specific, and
/// NMEA last, which is also the fallback (see `NMEAFormat`).
public enum InputFormats {
    static let all: [any InputFormat.Type] = [
        FITFormat.self,
        TCXFormat.self,
        KMLFormat.self,
        GPXFormat.self,
        GPSDFormat.self,
        NMEAFormat.self,
    ]

    /// The names, for messages: "gpx, gpsd, nmea".
    static var names: String { all.map { $0.name }.joined(separator: ", ") }

    /// The format `--format NAME` names, or nil.
    static func named(_ name: String) -> (any InputFormat.Type)? {
        all.first { $0.name == name.lowercased() }
    }

    /// `--format help`: one line a format.
    static var helpText: String {
        let width = all.map { $0.name.count }.max() ?? 0
        var text =
            "Formats gpx2fix reads (--format NAME forces one; by default each input's is recognised from its content):\n"
        for f in all {
            text += "  " + f.name + String(repeating: " ", count: width - f.name.count + 2) + f.summary + "\n"
        }
        return text
    }

    /// What `recognize` made of an input.
    enum Opened {
        case format(any InputFormat.Type, InputSource)
        /// Nothing but a BOM and white space, or nothing at all.
        case empty(whiteSpace: Bool)
    }

    /// Reads the start of `input` until its format is known: past a UTF-8 byte order mark and
    /// white space (counting lines, in constant memory however much there is), then until a
    /// format says yes, every format before it having said no. `forced` skips the asking.
    static func open(_ input: InputReader, forced: (any InputFormat.Type)?) throws -> Opened {
        var skipper = LeadingSpace()
        var kept: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var eof = false
        // The byte order mark needs its three bytes together, however the reads split them.
        var pending: [UInt8] = []
        while !eof {
            let n = try chunk.withUnsafeMutableBytes { raw in
                // SAFETY: raw is valid inside the closure, which `read` does not outlive.
                try input.read(into: raw.baseAddress!, capacity: raw.count)
            }
            if n == 0 { eof = true }
            if skipper.skipping {
                pending.append(contentsOf: chunk[..<n])
                if !skipper.checkedBOM {
                    if pending.count < 3 && !eof { continue }
                    skipper.checkBOM(&pending)
                }
                if let start = skipper.skip(pending) {
                    kept = Array(pending[start...])
                }
                pending = []
                if skipper.skipping { continue }
            } else {
                kept.append(contentsOf: chunk[..<n])
            }
            if let forced {
                return .format(forced, source(input, kept, skipper))
            }
            let complete = eof || kept.count >= InputHead.limit
            let head = InputHead(bytes: Array(kept.prefix(InputHead.limit)), isComplete: complete)
            if let format = decide(head) {
                return .format(format, source(input, kept, skipper))
            }
        }
        if skipper.skipping { return .empty(whiteSpace: skipper.sawAny) }
        // Unreachable: at the end of the input the head is complete and `decide` answers.
        return .format(NMEAFormat.self, source(input, kept, skipper))
    }

    /// The first format that says yes when every one before it has said no; nil while one
    /// cannot tell yet. NMEA when none says yes.
    static func decide(_ head: InputHead) -> (any InputFormat.Type)? {
        for format in all {
            switch format.recognize(head) {
            case .yes: return format
            case .no: continue
            case .needMore: if !head.isComplete { return nil }
            }
        }
        return NMEAFormat.self
    }

    private static func source(_ input: InputReader, _ kept: [UInt8], _ skipper: LeadingSpace) -> InputSource {
        InputSource(input: input, head: kept, firstLine: skipper.line, firstOffset: skipper.offset)
    }
}

/// Steps over a UTF-8 byte order mark and the white space after it, counting lines as the
/// line readers do (LF, CR LF, CR CR LF and a lone CR each end one line).
struct LeadingSpace {
    private(set) var skipping = true
    private(set) var checkedBOM = false
    /// The line the first meaningful byte stands on.
    private(set) var line = 1
    /// Bytes skipped.
    private(set) var offset = 0
    private(set) var sawAny = false
    private var pendingCR = false

    /// Drops a UTF-8 byte order mark from the start of `bytes`.
    mutating func checkBOM(_ bytes: inout [UInt8]) {
        checkedBOM = true
        if !bytes.isEmpty { sawAny = true }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            bytes.removeFirst(3)
            offset += 3
        }
    }

    /// Skips white space; returns the index of the first byte that is not, or nil if all are.
    mutating func skip(_ bytes: [UInt8]) -> Int? {
        if !bytes.isEmpty { sawAny = true }
        for (i, b) in bytes.enumerated() {
            switch b {
            case 0x0A:
                line += 1
                pendingCR = false
            case 0x0D:
                pendingCR = true
            case 0x20, 0x09:
                endCRRun()
            default:
                endCRRun()
                skipping = false
                offset += i
                return i
            }
        }
        offset += bytes.count
        return nil
    }

    /// A run of CRs that no LF ends is one line end (CR-only logs), as `NMEAReader` counts.
    private mutating func endCRRun() {
        if pendingCR { line += 1 }
        pendingCR = false
    }

}
