/// The formats gpx2fix reads, in the order it asks them to recognise an input, and the
/// recognition itself.
///
/// Order matters only where two formats could claim the same bytes: formats with a magic
/// number or a root element first, then JSON shapes from the most to the least specific, and
/// NMEA last, which is also the fallback (see `NMEAFormat`).
public enum InputFormats {
    /// Computed, not stored: metatypes are not `Sendable`, and the list is read a few times
    /// per input, never per fix.
    static var all: [any InputFormat.Type] {
        [
            FITFormat.self,
            TCXFormat.self,
            KMLFormat.self,
            GPXFormat.self,
            GPSDFormat.self,
            GeoJSONFormat.self,
            TakeoutFormat.self,
            OwnTracksFormat.self,
            FixRecordFormat.self,
            CSVFormat.self,
            NMEAFormat.self,
        ]
    }

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
    ///
    /// Formats are asked again only when the head has doubled, a line has ended or the input
    /// is complete: their answers are monotone, so this changes no decision, and a feed that
    /// arrives a byte at a time costs linear, not quadratic, time.
    static func open(_ input: InputReader, forced: (any InputFormat.Type)?) throws -> Opened {
        var skipper = LeadingSpace()
        var kept: [UInt8] = []
        // Not zeroed (a one-point file would pay for 64 KiB of zeros at start-up).
        let capacity = 1 << 16
        // SAFETY: allocated here, freed by the `defer` when this function returns; reads write at
        // most `capacity` bytes into it.
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { chunk.deallocate() }
        var askedAt = 0
        while true {
            let n = try input.read(into: chunk, capacity: capacity)
            let eof = n == 0
            // SAFETY: read wrote these n bytes; piece is used only in this pass of the loop.
            let piece = UnsafeRawBufferPointer(start: chunk, count: n)
            if skipper.skipping {
                // The byte order mark needs its three bytes together, however reads split them.
                kept.append(contentsOf: piece)
                if !skipper.checkedBOM {
                    if kept.count < 3 && !eof { continue }
                    skipper.checkBOM(&kept)
                }
                let start = skipper.skip(kept)
                kept = start.map { Array(kept[$0...]) } ?? []
                if skipper.skipping {
                    if eof { return .empty(whiteSpace: skipper.sawAny) }
                    continue
                }
            } else {
                kept.append(contentsOf: piece)
            }
            // Forced: no asking, but enough of a head for `InputSource.shownHead` (its first
            // line, up to 64 bytes) that a message quoting it does not depend on the reads.
            if let forced,
                eof || kept.count >= 64 || kept.prefix(64).contains(where: { $0 == 0x0A || $0 == 0x0D })
            {
                return .format(forced, source(input, kept, skipper))
            }
            if forced != nil { continue }
            let complete = eof || kept.count >= InputHead.limit
            guard complete || kept.count >= 2 * askedAt || piece.contains(0x0A) || piece.contains(0x0D) else {
                continue
            }
            askedAt = kept.count
            let head = InputHead(
                bytes: kept.count > InputHead.limit ? Array(kept[..<InputHead.limit]) : kept, isComplete: complete)
            if let format = decide(head) { return .format(format, source(input, kept, skipper)) }
        }
    }

    /// The first format that says yes when every one before it has said no; nil while one
    /// cannot tell yet. When none says yes: JSON is reported as such (`UnclaimedJSONFormat`),
    /// anything else goes to NMEA, whose reader says so when it finds no sentence.
    static func decide(_ head: InputHead) -> (any InputFormat.Type)? {
        for format in all {
            switch format.recognize(head) {
            case .yes: return format
            case .no: continue
            case .needMore: if !head.isComplete { return nil }
            }
        }
        return UnclaimedJSONFormat.recognize(head) == .yes ? UnclaimedJSONFormat.self : NMEAFormat.self
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
        if bytes.starts(with: utf8ByteOrderMark) {
            bytes.removeFirst(utf8ByteOrderMark.count)
            offset += utf8ByteOrderMark.count
        }
    }

    /// Skips white space; returns the index of the first byte that is not, or nil if all are.
    mutating func skip(_ bytes: [UInt8]) -> Int? {
        if !bytes.isEmpty { sawAny = true }
        // SAFETY: `bytes`' storage, lent for the call; `skipLFs` reads words only where eight
        // bytes remain before `n`, and single bytes below it.
        let first = bytes.withUnsafeBufferPointer { p -> Int? in
            guard let base = p.baseAddress else { return nil }
            let n = p.count
            var i = 0
            while i < n {
                switch base[i] {
                case 0x0A:
                    // A run of line feeds, eight at a time: blank lines by the hundred megabytes
                    // (a logger's padding) took a byte at a time 3.5 times `cat`'s time.
                    pendingCR = false
                    let (end, run) = ByteRuns.skipLFs(base, from: i, to: n)
                    line += run
                    i = end
                    continue
                case 0x0D:
                    pendingCR = true
                case 0x20, 0x09:
                    endCRRun()
                default:
                    endCRRun()
                    return i
                }
                i += 1
            }
            return nil
        }
        if let first {
            skipping = false
            offset += first
        } else {
            offset += bytes.count
        }
        return first
    }

    /// A run of CRs that no LF ends is one line end (CR-only logs), as `NMEAReader` counts.
    private mutating func endCRRun() {
        if pendingCR { line += 1 }
        pendingCR = false
    }

}
