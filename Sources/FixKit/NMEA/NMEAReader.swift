#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads an NMEA 0183 log, or gpsd's JSON (`gpspipe -w`), or a mix (`gpspipe -r` starts with
/// gpsd's JSON greeting): lines that start with `{` are gpsd reports, everything else is
/// searched for sentences.
///
/// Framing is forgiving, as real logs need: lines may end in LF, CR LF, CR alone or CR CR LF;
/// a sentence starts at each `$` (so `$$GPGGA`, garbage before a sentence and two sentences run
/// together on one line all work) and ends at the line's end or the next `$` or `!`. Bytes
/// between sentences (binary u-blox frames, NUL bytes, comments) are skipped. Expected noise is
/// counted, not reported line by line: bad checksums, malformed sentences; proprietary
/// (`$P...`) and AIS (`!`) sentences and types gpx2fix does not use are skipped quietly.
struct NMEAReader {
    var assembler: NMEAAssembler
    var gpsd: GPSDReader
    var counts = Counts()
    /// Field boundaries of the sentence being read.
    private let fieldBounds = FieldBounds()
    /// The line of the last sentence read.
    private var lastSentenceLine = 0

    struct Counts {
        var sentences = 0
        var used = 0
        var badChecksum = 0
        var malformed = 0
        /// GGA of quality 7 (manual input) or 8 (simulator).
        var notMeasured = 0
        var reports = 0
        /// Proprietary, AIS and other sentences skipped.
        var other = 0
    }

    init(fileName: String?, uere: Double?, date: Int64?) {
        assembler = NMEAAssembler(fileName: fileName, uere: uere, date: date)
        gpsd = GPSDReader(fileName: fileName)
    }

    static let rmc = NMEASentence.code("RMC")
    static let gga = NMEASentence.code("GGA")
    static let gns = NMEASentence.code("GNS")
    static let gll = NMEASentence.code("GLL")
    static let vtg = NMEASentence.code("VTG")
    static let gsa = NMEASentence.code("GSA")
    static let gst = NMEASentence.code("GST")
    static let zda = NMEASentence.code("ZDA")

    /// The longest line kept whole, in bytes (documented in gpx2fix(1)). A longer line is
    /// reported once and its bytes are dropped up to its end, so memory stays bounded whatever
    /// the input. Sentences in a long line are not lost: past `flushAt` bytes the line is read
    /// up to its last `$`, which ends every sentence before it.
    static let maxLine = 1 << 20
    static let flushAt = 1 << 16

    /// Reads the whole input, whose first bytes are `head`; the first byte stands on line
    /// `firstLine`. Time is linear in the input's length: each byte is scanned once, and a
    /// line longer than `maxLine` is not kept.
    mutating func read(
        _ input: InputSource, head: [UInt8], firstLine: Int = 1, emit: (inout Fix) throws -> Void,
        problem: (Int, String) throws -> Void
    ) throws {
        // The input is read straight into one buffer, after the unfinished line that is kept
        // (at most `maxLine` bytes and a CR: see the end of the scan), so no byte is copied on
        // its way in. A chunk always fits behind what is kept.
        let chunkSize = 1 << 18
        let capacity = max(head.count, NMEAReader.maxLine + 1) + chunkSize
        // SAFETY: allocated here for `capacity` bytes and freed when the read ends; `base[..<n]`
        // is initialized (the head, then what each read wrote), and nothing past it is read.
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { base.deallocate() }
        head.withUnsafeBufferPointer { h in
            if let h = h.baseAddress { base.initialize(from: h, count: head.count) }
        }
        var n = head.count  // the bytes in the buffer
        var start = 0  // the unfinished line's first byte
        var scan = 0  // the first byte not scanned yet
        var lineNumber = firstLine
        var eof = false
        var skipping = false  // in a line past maxLine: drop its bytes up to its end
        while true {
            // SAFETY: every line and sentence made from `base` is used only inside this
            // block, before the buffer is compacted or read into; nothing made from it is kept
            // (the assembler copies the numbers out of each sentence).
            do {
                let base = UnsafePointer(base)
                var i = scan
                while i < n {
                    // Most lines are one sentence: it is framed from the buffer at once, and its
                    // framing, which stops at the line's end, finds that end too. A line that
                    // holds more (a second `$`, `!`) or is not all in the buffer yet takes the
                    // way below, which frames it again: what the sentence gives is the same.
                    if i == start, !skipping, base[i] == UInt8(ascii: "$") {
                        // SAFETY: `i..<n` is inside the buffer, used during the calls only.
                        let rest = UnsafeBufferPointer(start: base + i, count: n - i)
                        let (outcome, end) = NMEAFraming.frame(rest, bounds: fieldBounds)
                        let stop = i + end
                        if stop < n, base[stop] == 0x0A || base[stop] == 0x0D || base[stop] == 0 {
                            // SAFETY: the line, `i..<stop`, as the way below hands it to `line`.
                            try sentence(
                                outcome, UnsafeBufferPointer(start: base + i, count: end), number: lineNumber,
                                emit: emit, problem: problem)
                            // The usual ends, LF and CR LF, are taken here, as below; the others
                            // (CR alone, CR CR LF, NUL) go on below, which finds no line left
                            // before them.
                            var next = stop
                            if base[stop] == 0x0A {
                                next = stop + 1
                            } else if base[stop] == 0x0D, stop + 1 < n, base[stop + 1] == 0x0A {
                                next = stop + 2
                            }
                            if next > stop {
                                let (after, lines) = ByteRuns.skipLFs(base, from: next, to: n)
                                lineNumber += 1 + lines
                                start = after
                                i = after
                                continue
                            }
                            start = stop
                            i = stop
                        }
                    }
                    i = NMEAReader.nextBreak(base, from: i, to: n)
                    guard i < n else { break }
                    let c = base[i]
                    if c == 0 {
                        // NUL bytes (an SD card's unwritten tail, padding) end a sentence, not a line.
                        if i > start, !skipping {
                            try line(
                                // SAFETY: `start..<i` lies inside the buffer (`start <= i < n`);
                                // the line lives only during the call.
                                UnsafeBufferPointer(start: base + start, count: i - start), number: lineNumber,
                                emit: emit, problem: problem)
                        }
                        i = ByteRuns.skipNULs(base, from: i, to: n)
                        start = i
                        continue
                    }
                    // A CR at the end of what we have may be the first half of CR LF.
                    if c == 0x0D, i + 1 == n, !eof { break }
                    if i > start, !skipping {
                        try line(
                            // SAFETY: as above: `start..<i` is inside the buffer, the line used
                            // during the call only.
                            UnsafeBufferPointer(start: base + start, count: i - start), number: lineNumber, emit: emit,
                            problem: problem)
                    }
                    skipping = false
                    // LF ends a line; so does a CR that no LF or CR follows (CR-only logs), while
                    // CR LF and CR CR LF count once.
                    if c == 0x0A || i + 1 == n || (base[i + 1] != 0x0A && base[i + 1] != 0x0D) {
                        lineNumber += 1
                    }
                    i += 1
                    if c == 0x0A {
                        // Runs of blank lines, a word at a time.
                        let (after, lines) = ByteRuns.skipLFs(base, from: i, to: n)
                        i = after
                        lineNumber += lines
                    }
                    start = i
                }
                scan = i
                if eof {
                    if start < n, !skipping {
                        try line(
                            // SAFETY: `start..<n` is inside the buffer, used during the call only.
                            UnsafeBufferPointer(start: base + start, count: n - start), number: lineNumber, emit: emit,
                            problem: problem)
                    }
                    start = n
                } else if skipping {
                    start = scan  // nothing of this line is kept
                } else if scan - start > NMEAReader.flushAt {
                    // A long line: read its sentences up to the last `$`, unless it is a gpsd report.
                    var k = start
                    while k < scan, base[k] == 0x20 || base[k] == 0x09 { k += 1 }
                    var dollar = scan - 1
                    while dollar > start, base[dollar] != UInt8(ascii: "$") { dollar -= 1 }
                    if k < scan, base[k] != UInt8(ascii: "{"), dollar > start {
                        try line(
                            // SAFETY: `start..<dollar` is inside the buffer (`start < dollar < scan
                            // <= n`), used during the call only.
                            UnsafeBufferPointer(start: base + start, count: dollar - start), number: lineNumber,
                            emit: emit, problem: problem)
                        start = dollar
                    }
                    if scan - start > NMEAReader.maxLine {
                        try problem(
                            lineNumber,
                            "more than \(NMEAReader.maxLine) bytes (1 MiB) without a line end or a sentence start ('$'): skipped up to the end of the line"
                        )
                        skipping = true
                        start = scan
                    }
                }
            }
            if eof { break }
            // Keep the unfinished line (at most maxLine bytes and a CR), read more after it.
            if start > 0 {
                // SAFETY: `start..<n` is inside the buffer's initialized bytes; the ranges may
                // overlap, which memmove allows.
                memmove(base, base + start, n - start)
                n -= start
                scan -= start
                start = 0
            }
            precondition(capacity - n >= chunkSize, "an NMEA line kept past maxLine")
            // SAFETY: `base + n ..< base + capacity` is the buffer's free end, lent to the read.
            let got = try input.read(into: base + n, capacity: chunkSize)
            if got == 0 { eof = true } else { n += got }
        }
        // The epochs still open are closed by the input's end: said at the last sentence's line
        // (what follows it, a line end or NUL padding, starts no line of its own).
        let last = lastSentenceLine
        try assembler.finish { try NMEAReader.emitWritable(&$0, line: last, emit: emit, problem: problem) }
    }

    /// The first LF, CR or NUL at or after `i`, or `n`: eight bytes at a time.
    @inline(__always)
    static func nextBreak(_ base: UnsafePointer<UInt8>, from i: Int, to n: Int) -> Int {
        // SAFETY: `base` is the reader's buffer, valid for the call; words are read only where
        // all eight bytes are below `n`.
        var i = i
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i + 8 <= n {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self).littleEndian
            let lf = w ^ (0x0A * ones)
            let cr = w ^ (0x0D * ones)
            // A byte's high bit is set where it is zero; the lowest such byte is exact.
            let z = ((lf &- ones) & ~lf | (cr &- ones) & ~cr | (w &- ones) & ~w) & highs
            if z != 0 { return i + z.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < n {
            let c = base[i]
            if c == 0x0A || c == 0x0D || c == 0 { return i }
            i += 1
        }
        return n
    }

    private mutating func line(
        // SAFETY: `bytes` is a line of the reader's buffer, valid only during this call (the buffer
        // may move at the next read); nothing made from it is kept.
        _ bytes: UnsafeBufferPointer<UInt8>, number: Int, emit: (inout Fix) throws -> Void,
        problem: (Int, String) throws -> Void
    ) throws {
        var k = 0
        while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x09 { k += 1 }
        if k < bytes.count, bytes[k] == UInt8(ascii: "{") {
            // SAFETY: `bytes[k...]` is a part of the line (k < bytes.count), used during the call
            // only: the report copies what it keeps.
            let outcome = gpsd.report(UnsafeBufferPointer(rebasing: bytes[k...]))
            if case .unclassed = outcome {
                // Not gpsd's: said, and not counted as something recognised, so that a file of
                // other JSON lines is not taken for an empty log.
                try problem(number, "a JSON object without \"class\", not a gpsd report; line skipped")
                return
            }
            counts.reports += 1
            switch outcome {
            case .fix(var fix): try emit(&fix)
            case .skipped, .unclassed: break
            case .invalid(let message): try problem(number, "gpsd JSON report: \(message); line skipped")
            }
            return
        }
        // Sentences: from each `$` to the next `$` or `!` or the end of the line.
        // SAFETY: `bytes` is a line of the reader's buffer, alive for this call; each sentence
        // framed from it is used before the next one is framed (they share `fieldBounds`).
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        while k < n {
            guard let dollar = memchr(base + k, Int32(UInt8(ascii: "$")), n - k) else { return }
            k = base.distance(to: dollar.assumingMemoryBound(to: UInt8.self))
            let rest = UnsafeBufferPointer(start: base + k, count: n - k)
            let (outcome, end) = NMEAFraming.frame(rest, bounds: fieldBounds)
            try sentence(outcome, rest, number: number, emit: emit, problem: problem)
            k += max(end, 1)
        }
    }

    /// Emits an epoch's fix, unless it is dated past the end of 9999 (a log that crosses its
    /// last midnight): a time RFC 3339 cannot write, reported with the line that closed the
    /// epoch, not clamped.
    private static func emitWritable(
        _ fix: inout Fix, line: Int, emit: (inout Fix) throws -> Void, problem: (Int, String) throws -> Void
    ) throws {
        if let t = fix.time, !t.isWritable {
            try problem(
                line,
                "this epoch's time is past 9999-12-31T23:59:59.999Z, the last that RFC 3339 can write; fix skipped")
            return
        }
        try emit(&fix)
    }

    private mutating func sentence(
        // SAFETY: `bytes` runs from the sentence's `$` to the line's end, inside the line, valid
        // during this call only.
        _ outcome: NMEAFraming.Outcome, _ bytes: UnsafeBufferPointer<UInt8>, number: Int,
        emit: (inout Fix) throws -> Void, problem: (Int, String) throws -> Void
    ) throws {
        lastSentenceLine = number
        func checked(_ fix: inout Fix) throws {
            try NMEAReader.emitWritable(&fix, line: number, emit: emit, problem: problem)
        }
        switch outcome {
        case .ignored:
            // Proprietary and odd sentences still show that this is an NMEA log.
            if bytes.count >= 2, bytes[1] &- UInt8(ascii: "A") < 26 { counts.other += 1 }
            return
        case .badChecksum:
            counts.badChecksum += 1
        case .sentence(let s):
            counts.sentences += 1
            let verdict: NMEAVerdict
            switch s.type {
            case NMEAReader.rmc: verdict = try assembler.add(RMC.self, s, emit: checked)
            case NMEAReader.gga: verdict = try assembler.add(GGA.self, s, emit: checked)
            case NMEAReader.gns: verdict = try assembler.add(GNS.self, s, emit: checked)
            case NMEAReader.gll: verdict = try assembler.add(GLL.self, s, emit: checked)
            case NMEAReader.vtg: verdict = try assembler.add(VTG.self, s, emit: checked)
            case NMEAReader.gsa: verdict = try assembler.add(GSA.self, s, emit: checked)
            case NMEAReader.gst: verdict = try assembler.add(GST.self, s, emit: checked)
            case NMEAReader.zda: verdict = try assembler.add(ZDA.self, s, emit: checked)
            default: return
            }
            switch verdict {
            case .used, .void: counts.used += 1
            case .notMeasured: counts.notMeasured += 1
            case .refused: counts.malformed += 1
            }
        }
    }

    /// The one-line summary of expected noise, or nil when there was none.
    var noiseSummary: String? {
        var parts: [String] = []
        if counts.badChecksum > 0 { parts.append("\(counts.badChecksum) with a bad checksum") }
        if counts.malformed > 0 { parts.append("\(counts.malformed) malformed") }
        if counts.notMeasured > 0 { parts.append("\(counts.notMeasured) not measured (GGA quality 7 or 8)") }
        guard let last = parts.popLast() else { return nil }
        let listed = parts.isEmpty ? last : "\(parts.joined(separator: ", ")) and \(last)"
        return "\(listed) of \(counts.sentences + counts.badChecksum) NMEA sentences dropped"
    }

    /// Whether anything in the input looked like NMEA or gpsd JSON.
    var recognizedAnything: Bool {
        counts.sentences > 0 || counts.badChecksum > 0 || counts.reports > 0 || counts.other > 0
    }
}
