/// Fix records, one a line (fix(5)): gpx2fix's and fixsim's output. No framing.
struct FixLines: RecordWriter {
    /// What the last line's date and trace were written as.
    private var memo = FixLineMemo()

    @inline(__always)
    mutating func write(_ fix: Fix, into out: inout [UInt8]) {
        FixEncoder.encode(fix, into: &out, memo: &memo)
    }
}

extension RecordOutput where Writer == FixLines {
    /// Writes one fix, as `write(_:)` does, calling the writer itself: through its protocol
    /// witness, the fix was copied into memory of its own for every line (0.7% of gpx2fix's
    /// instructions on NMEA).
    @inline(__always)
    mutating func write(_ fix: Fix) throws(OutputError) {
        try withWriter { writer, out in writer.write(fix, into: &out) }
    }
}

/// Fix records passed on as they were read, byte for byte, or with one member taken out or
/// added: fixfilter's fixes and rejects, fencerule's `--trace` output. Each is one line.
struct RawLines: RecordWriter {
    enum Record {
        /// The line as it was read.
        case unchanged(UnsafeBufferPointer<UInt8>)
        /// The line without member `name`, which `span` (from `FixDecoder`) locates; the line
        /// as it was when it has no such member. Counted in `removed` when taken out.
        case removing(StaticString, MemberSpan, from: UnsafeBufferPointer<UInt8>)
        /// The line with `member` (`"key":value` bytes) added as its object's last member.
        case appending([UInt8], to: UnsafeBufferPointer<UInt8>)
    }

    /// How many members `.removing` took out.
    private(set) var removed = 0

    @inline(__always)
    mutating func write(_ record: Record, into out: inout [UInt8]) {
        switch record {
        case .unchanged(let line):
            out.append(contentsOf: line)
        case .removing(let name, let span, let line):
            if RawRecord.appendRemoving(span, from: line, into: &out) {
                removed += 1
            } else if let edited = RawRecord.removingMember(name, from: line) {
                removed += 1  // a line with the member twice
                out.append(contentsOf: edited)
            } else {
                out.append(contentsOf: line)
            }
        case .appending(let member, let line):
            RawRecord.appendingMember(member, to: line, into: &out)
        }
        out.append(0x0A)
    }
}

/// Text written as it is: `--format help`, the list of files `fix2gpx --split` wrote.
struct PlainText: RecordWriter {
    mutating func write(_ text: String, into out: inout [UInt8]) {
        out.append(contentsOf: text.utf8)
    }
}
