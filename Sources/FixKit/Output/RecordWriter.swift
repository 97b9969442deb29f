/// One kind of output document: the seam every tool's output goes through.
///
/// A writer turns records into bytes and owns its document's framing: `open` writes what
/// comes before the first record (an XML header, a GeoJSON collection's `[`), `write` one
/// record, `close` what ends the document (and whatever the writer still holds). NDJSON
/// writers have no framing and keep the default, empty `open` and `close`.
///
/// Writers append to a byte array and never write to a file themselves: a tool runs a writer
/// on an `OutputSink` through `OutputSink.document(_:_:)`, which opens the document, hands a
/// `RecordOutput` to the tool for its records, and closes the document however the run ends
/// (a `--strict` stop, an error, an empty input); or through `OutputSink.open(_:)` and a
/// `defer { document.close() }`, which is the same. The same writer can also write into
/// memory that is written later (fix2gpx's per-trace spool).
///
/// A new output format is one file with a type conforming to this protocol; the tool that
/// writes it calls `output.document(TheWriter(...)) { doc in ... try doc.write(record) }`.
///
/// Tools call writers through generics (`RecordOutput<Writer>`), never as existentials, so
/// that each writer is specialised and inlined on the hot paths (gpx2fix, fixfilter,
/// fencerule): the seam costs nothing per record.
public protocol RecordWriter {
    associatedtype Record
    /// Writes what opens the document; nothing by default.
    mutating func open(into out: inout [UInt8])
    /// Writes one record.
    mutating func write(_ record: Record, into out: inout [UInt8])
    /// Writes what closes what `open` opened, and anything the writer holds; nothing by default.
    mutating func close(into out: inout [UInt8])
}

extension RecordWriter {
    @inline(__always)
    public mutating func open(into out: inout [UInt8]) {}
    @inline(__always)
    public mutating func close(into out: inout [UInt8]) {}
}

/// A document being written to an `OutputSink` by its writer: what a tool holds while it
/// writes. Records go into the sink's buffer, which is written when it is large enough and
/// whenever the input side is about to wait (see `OutputSink`).
public struct RecordOutput<Writer: RecordWriter> {
    let sink: OutputSink
    /// The writer, for what it counted (fixfilter's stripped courses) or holds.
    public private(set) var writer: Writer
    private var state = State.new

    private enum State { case new, open, closed }

    fileprivate init(_ writer: Writer, to sink: OutputSink) {
        self.writer = writer
        self.sink = sink
    }

    /// Writes the document's opening, once.
    fileprivate mutating func open() {
        guard state == .new else { return }
        state = .open
        writer.open(into: &sink.buffer)
    }

    /// Writes one record.
    @inline(__always)
    public mutating func write(_ record: Writer.Record) throws(OutputError) {
        writer.write(record, into: &sink.buffer)
        try sink.didAppend()
    }

    /// Writes bytes this document's writer (or one continuing its document) made earlier,
    /// into memory: a spooled trace, a trace's closing tags.
    public mutating func write(made bytes: some Sequence<UInt8>) throws(OutputError) {
        try sink.write(bytes)
    }

    /// Writes what trace `k` of `spool` holds, bytes made by writers of this document.
    mutating func write(spooled k: Int, from spool: inout TraceSpool) throws {
        try spool.drain(k, to: sink)
    }

    /// Closes the document now, when more is written after it (notes follow it on standard
    /// error, say); `OutputSink.document` closes it otherwise. Closing twice writes nothing.
    public mutating func close() {
        guard state == .open else { return }
        state = .closed
        writer.close(into: &sink.buffer)
    }

    /// Lets the writer do what only it knows (end a trace's track, say) into the document.
    public mutating func withWriter(_ body: (inout Writer, inout [UInt8]) -> Void) throws(OutputError) {
        body(&writer, &sink.buffer)
        try sink.didAppend()
    }
}

extension OutputSink {
    /// Opens a document with `writer` and returns it, for a tool whose records are written
    /// from several places: the caller closes it with `defer { document.close() }`, so that it
    /// is closed however the run ends. `document(_:_:)` does both.
    public func open<Writer: RecordWriter>(_ writer: Writer) -> RecordOutput<Writer> {
        var document = RecordOutput(writer, to: self)
        document.open()
        return document
    }

    /// Writes one document with `writer`: opens it, lets `body` write its records, and closes
    /// it however `body` ends, returning or throwing (`--strict`, a failed read, a closed
    /// pipe), so that what was written is always a whole document. The closing is buffered:
    /// the tool's end (`ToolMain`) writes it, as it writes whatever was written before an
    /// error.
    public func document<Writer: RecordWriter, Result>(
        _ writer: Writer, _ body: (inout RecordOutput<Writer>) throws -> Result
    ) throws -> Result {
        var document = open(writer)
        defer { document.close() }
        return try body(&document)
    }
}
