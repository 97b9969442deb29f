// Not re-exported: clients (and the tests, which import Foundation) must not see libxml2's headers,
// whose copy of ICU's UErrorCode clashes with Foundation's.
internal import CFixXML2

/// One XML vocabulary (GPX, TCX, KML): what its elements mean. `XMLStreamParser` feeds it start
/// tags, text and end tags, and it hands each point to the sink as soon as it is complete.
protocol XMLVocabulary {
    /// Elements open now; above 0 at the end of the input means the file was cut off.
    var depth: Int { get }
    /// Whether text is wanted now (`characters` is called only then).
    var capturing: Bool { get }
    /// A start tag: local name and namespace URI as NUL-terminated UTF-8 (libxml2 interns
    /// both, so the same pointer comes back for the same name), and an attribute lookup by
    /// unqualified local name. The pointers live until the callback returns.
    mutating func start(
        // SAFETY: `name` and `uri` are libxml2's, NUL-terminated, valid until the callback returns;
        // a vocabulary reads them only up to their NUL and copies what it keeps.
        name: UnsafePointer<UInt8>, uri: UnsafePointer<UInt8>?, line: Int,
        attribute: XMLAttributes, sink: FixSink
    ) throws
    /// Text inside the element being captured; may come in several pieces, split anywhere.
    // SAFETY: `bytes` is libxml2's text, valid until the callback returns; a vocabulary copies what
    // it keeps.
    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>, sink: FixSink) throws
    /// An end tag.
    mutating func end(line: Int, sink: FixSink) throws
}

/// A start tag's attributes as libxml2 gives them, valid until the callback returns: each is
/// five pointers (local name, prefix, URI, value, value end).
struct XMLAttributes {
    // SAFETY: libxml2's attribute array (`count` groups of five pointers), valid during the start-
    // tag callback only; an `XMLAttributes` is handed to that callback and never kept.
    fileprivate let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    fileprivate let count: Int

    /// The value of the unqualified attribute `name` (the vocabularies' coordinates are never
    /// prefixed), or nil.
    // SAFETY: the value returned points into libxml2's attribute array, valid until the callback
    // that was given this lookup returns.
    func callAsFunction(_ name: String) -> UnsafeBufferPointer<UInt8>? {
        guard let base else { return nil }
        for k in 0..<count {
            let i = 5 * k
            // SAFETY: libxml2 gives `count` groups of five pointers, valid during the callback
            // this value is handed to, which does not keep it.
            guard let local = base[i], base[i + 2] == nil, cStringEquals(local, name),
                let value = base[i + 3], let end = base[i + 4]
            else { continue }
            return UnsafeBufferPointer(start: value, count: value.distance(to: end))
        }
        return nil
    }
}

/// The one door to libxml2: its SAX2 parser, driving an `XMLVocabulary`.
///
/// Never a DOM: libxml2 pulls the bytes as it needs them (`xmlParseDocument` on an I/O
/// context, not the push parser, whose look-ahead for each tag cost GPX 8% more
/// instructions) and each point is handed over at its end tag, so memory is constant
/// whatever the file size. Hostile input is refused, not expanded: no
/// network (`XML_PARSE_NONET`), no DTD loading, and no entity substitution (no
/// `XML_PARSE_NOENT`). Entities declared in a DOCTYPE are never stored (this handler has no
/// `entityDecl`), so a reference to one, a billion-laughs bomb or an external entity aimed at
/// a local file, is a well-formedness error at its line and nothing is expanded or read.
/// Every libxml2 diagnostic becomes a problem with its line and column.
enum XMLStreamParser {
    /// Parses all of `source` with `vocabulary`, writing to `sink`.
    static func parse<V: XMLVocabulary>(_ source: InputSource, vocabulary: V, sink: FixSink) throws {
        // SAFETY: allocated and initialised here, deinitialised and freed by the `defer` when
        // `parse` returns; `SAXState` reaches it only from libxml2's callbacks, which all come
        // during `state.run`, inside this function.
        let document = UnsafeMutablePointer<V>.allocate(capacity: 1)
        document.initialize(to: vocabulary)
        defer {
            document.deinitialize(count: 1)
            document.deallocate()
        }
        // Closures formed here capture nothing and are specialised with this function, so the
        // C callbacks reach V's own code through one indirect call. (Dispatch into a generic
        // class or through an existential runs unspecialised, or copies the vocabulary:
        // measured, 27% and 31% more instructions per GPX point.)
        let calls = SAXCalls(
            start: { p, name, uri, line, attribute, sink in
                // SAFETY: `p` is `document`, bound to `V` at its allocation above and alive for the
                // whole parse (see there); one callback at a time, so the access is exclusive.
                try p.assumingMemoryBound(to: V.self).pointee.start(
                    name: name, uri: uri, line: line, attribute: attribute, sink: sink)
            },
            // SAFETY: as above: `p` is the live `document`, bound to `V`.
            end: { p, line, sink in try p.assumingMemoryBound(to: V.self).pointee.end(line: line, sink: sink) },
            characters: { p, bytes, sink in
                // SAFETY: as above: `p` is the live `document`, bound to `V`; `bytes` is libxml2's
                // text for this callback only.
                try p.assumingMemoryBound(to: V.self).pointee.characters(bytes, sink: sink)
            },
            // SAFETY: as above: `p` is the live `document`, bound to `V`.
            capturing: { p in p.assumingMemoryBound(to: V.self).pointee.capturing },
            // SAFETY: as above: `p` is the live `document`, bound to `V`.
            depth: { p in p.assumingMemoryBound(to: V.self).pointee.depth })
        let state = SAXState(
            // SAFETY: the vocabulary's memory, owned by this function and freed only after `run`
            // returns.
            document: UnsafeMutableRawPointer(document), calls: calls, sink: sink, lineBase: source.firstLine - 1)
        try state.run(source)
    }
}

/// A vocabulary's events, for a document behind a raw pointer.
private struct SAXCalls {
    let start:
        // SAFETY: the raw pointer is the document `parse` owns, alive while the calls are made; the
        // other pointers are libxml2's, valid during the callback.
        (UnsafeMutableRawPointer, UnsafePointer<UInt8>, UnsafePointer<UInt8>?, Int, XMLAttributes, FixSink) throws ->
            Void
    // SAFETY: as above: the document `parse` owns, alive while the calls are made.
    let end: (UnsafeMutableRawPointer, Int, FixSink) throws -> Void
    // SAFETY: as above; the text is libxml2's, valid during the callback.
    let characters: (UnsafeMutableRawPointer, UnsafeBufferPointer<UInt8>, FixSink) throws -> Void
    // SAFETY: as above: the document `parse` owns.
    let capturing: (UnsafeMutableRawPointer) -> Bool
    // SAFETY: as above: the document `parse` owns.
    let depth: (UnsafeMutableRawPointer) -> Int
}

/// libxml2's view of one parse, reached from the C callbacks through `userData`.
private final class SAXState {
    /// The vocabulary's state, owned by `XMLStreamParser.parse` for the whole parse.
    /// SAFETY: libxml2 calls back on this thread only, one callback at a time, and only while
    /// `run` runs, inside `parse`, which frees the memory after it.
    let document: UnsafeMutableRawPointer
    let calls: SAXCalls
    let sink: FixSink
    /// Lines before the first byte read (white space gpx2fix skipped to recognise the format).
    let lineBase: Int
    var parser: xmlParserCtxtPtr?
    /// A Swift error thrown inside a callback; the parse is stopped and it is rethrown.
    var pendingError: Error?
    var sawFatal = false
    /// Set once the input has ended: a fatal error with every byte read then means a cut-off
    /// file.
    var terminating = false
    /// The input `fill` reads, during `run`.
    var source: InputSource?
    /// Set by `stop`: the parse is over, whatever libxml2 still does on its way out.
    var stopped = false

    /// What `fill` has read and not yet handed over: `staging[stagedStart..<stagedEnd]`.
    /// SAFETY: allocated by `run` for `stagingSize` bytes and freed when it returns; nil outside.
    var staging: UnsafeMutableRawPointer?
    var stagedStart = 0
    var stagedEnd = 0
    /// The input is read this much at a time: libxml2 asks for about 4,000 bytes a time, and a
    /// read (a system call) for each cost 6% of a GPX file's time.
    static let stagingSize = 1 << 16

    /// libxml2's read: `len` bytes at `buffer`, or fewer only at the end of the input; 0 at its
    /// end, or once the parse is stopped (a read error is kept for `run` to rethrow). Every
    /// request is filled whole, whatever the reads returned, so the same bytes meet the same
    /// boundaries however a pipe cut them (libxml2 words and places some errors, bad UTF-8,
    /// by where its buffer ends: found by the fuzz targets' whole-against-cut check).
    func fill(_ buffer: UnsafeMutableRawPointer, _ len: Int) -> Int32 {
        guard let source, let staging, !stopped else { return 0 }
        var filled = 0
        do {
            while filled < len {
                if stagedStart == stagedEnd {
                    // Once the input has said it ended, it is not asked again (a terminal's
                    // standard input would wait for a second end-of-file).
                    if terminating { break }
                    // SAFETY: `staging` has `stagingSize` bytes (see there).
                    let n = try source.read(into: staging, capacity: SAXState.stagingSize)
                    if n == 0 {
                        terminating = true
                        break
                    }
                    stagedStart = 0
                    stagedEnd = n
                }
                let k = min(len - filled, stagedEnd - stagedStart)
                // SAFETY: filled + k <= len, libxml2's buffer; stagedStart + k <= stagedEnd, the
                // bytes read into `staging`.
                (buffer + filled).copyMemory(from: staging + stagedStart, byteCount: k)
                stagedStart += k
                filled += k
            }
        } catch {
            fail(error)
            return 0
        }
        return Int32(filled)
    }

    // SAFETY: `document` is `parse`'s, alive for as long as this state is used (the state lives
    // inside `parse`).
    init(document: UnsafeMutableRawPointer, calls: SAXCalls, sink: FixSink, lineBase: Int) {
        self.document = document
        self.calls = calls
        self.sink = sink
        self.lineBase = lineBase
    }

    var line: Int { lineBase + (parser.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0) }

    var capturing: Bool { calls.capturing(document) }

    func fail(_ error: Error) {
        if pendingError == nil { pendingError = error }
        stop()
    }

    /// Ends the parse at once: no more callbacks, and `fill` gives no more bytes. Not
    /// `xmlStopParser`, which frees the input buffer that the pull parser, on its way out of
    /// `xmlParseDocument`, still shrinks (a crash in libxml2 2.9.14 when a reader closed the
    /// output pipe).
    func stop() {
        stopped = true
        guard let parser else { return }
        parser.pointee.disableSAX = 1
        parser.pointee.instate = XML_PARSER_EOF
    }

    /// Whether the parser has used every byte it was given: with `terminating`, an error then
    /// is about where the input ends.
    var inputUsedUp: Bool {
        guard let input = parser?.pointee.input else { return true }
        guard let cur = input.pointee.cur, let end = input.pointee.end else { return true }
        return cur >= end
    }

    func start(
        // SAFETY: libxml2's strings and attribute array, valid until this callback returns; handed
        // on, not kept.
        name: UnsafePointer<UInt8>, uri: UnsafePointer<UInt8>?, nbAttributes: Int32,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        guard pendingError == nil else { return }
        let attribute = XMLAttributes(base: attributes, count: Int(nbAttributes))
        do {
            try calls.start(document, name, uri, line, attribute, sink)
        } catch {
            fail(error)
        }
    }

    func end() {
        guard pendingError == nil else { return }
        do {
            try calls.end(document, line, sink)
        } catch {
            fail(error)
        }
    }

    // SAFETY: libxml2's text, valid until this callback returns.
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard pendingError == nil else { return }
        do {
            try calls.characters(document, bytes, sink)
        } catch {
            fail(error)
        }
    }

    func run(_ source: InputSource) throws {
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        // SAFETY (every callback below): `ctx` is `me`, this state passed unretained; `run` holds
        // `self` for the whole parse and libxml2 calls back only inside `xmlParseDocument`, on
        // this thread, one callback at a time, so the object is alive at every call.
        //
        // The callbacks borrow the state with `_withUnsafeGuaranteedRef`, the one underscored
        // standard-library entry point kept: unlike `takeUnretainedValue` it needs no retain
        // and release per callback, and bench/xml-callbacks.sh shows that it pays (callgrind,
        // gpx2fix on 20,000 generated GPX points: 1,142.2 M instructions, against 1,162.5 M,
        // +1.8%, with `takeUnretainedValue`, which `-DFIXKIT_SAX_RETAIN` builds for it).
        #if FIXKIT_SAX_RETAIN
            handler.startElementNs = { ctx, localname, _, uri, _, _, nbAttributes, _, attributes in
                guard let ctx, let localname else { return }
                Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue().start(
                    name: localname, uri: uri, nbAttributes: nbAttributes, attributes: attributes)
            }
            handler.endElementNs = { ctx, _, _, _ in
                guard let ctx else { return }
                Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue().end()
            }
            let characters: charactersSAXFunc = { ctx, chars, count in
                guard let ctx, let chars, count > 0 else { return }
                let state = Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue()
                // SAFETY: libxml2's text is valid for `count` bytes during this callback only;
                // `characters` copies what it keeps.
                if state.capturing { state.characters(UnsafeBufferPointer(start: chars, count: Int(count))) }
            }
            handler.serror = { ctx, error in
                guard let ctx, let error else { return }
                Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue().report(error.pointee)
            }
        #else
            handler.startElementNs = { ctx, localname, _, uri, _, _, nbAttributes, _, attributes in
                guard let ctx, let localname else { return }
                Unmanaged<SAXState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { state in
                    state.start(name: localname, uri: uri, nbAttributes: nbAttributes, attributes: attributes)
                }
            }
            handler.endElementNs = { ctx, _, _, _ in
                guard let ctx else { return }
                Unmanaged<SAXState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { state in state.end() }
            }
            let characters: charactersSAXFunc = { ctx, chars, count in
                guard let ctx, let chars, count > 0 else { return }
                Unmanaged<SAXState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { state in
                    // SAFETY: libxml2's text is valid for `count` bytes during this callback
                    // only; `characters` copies what it keeps.
                    if state.capturing { state.characters(UnsafeBufferPointer(start: chars, count: Int(count))) }
                }
            }
            handler.serror = { ctx, error in
                guard let ctx, let error else { return }
                Unmanaged<SAXState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { state in state.report(error.pointee) }
            }
        #endif
        handler.characters = characters
        handler.cdataBlock = characters

        let me = Unmanaged.passUnretained(self).toOpaque()
        // libxml2 pulls the bytes through `fill`, which answers each request whole (or up to the
        // end), so the same bytes meet the same boundaries however a pipe cut them.
        let read: xmlInputReadCallback = { context, buffer, len in
            guard let context, let buffer, len > 0 else { return 0 }
            return Unmanaged<SAXState>.fromOpaque(context)._withUnsafeGuaranteedRef { state in
                state.fill(UnsafeMutableRawPointer(buffer), Int(len))
            }
        }
        self.source = source
        // SAFETY: freed by the `defer` below (or at once, without a parser); `fill` reads into
        // it and copies out of it only during `xmlParseDocument`, inside this function.
        let staging = UnsafeMutableRawPointer.allocate(byteCount: SAXState.stagingSize, alignment: 16)
        self.staging = staging
        parser = xmlCreateIOParserCtxt(&handler, me, read, nil, me, XML_CHAR_ENCODING_NONE)
        guard let parser else {
            self.staging = nil
            staging.deallocate()
            throw XMLParserUnavailable()
        }
        defer {
            self.staging = nil
            staging.deallocate()
            // A DOCTYPE with an internal subset makes libxml2's SAX2 handler build a document
            // to hold it, which freeing the context does not free (LeakSanitizer, fuzz target gpx).
            if let doc = parser.pointee.myDoc {
                xmlFreeDoc(doc)
                parser.pointee.myDoc = nil
            }
            xmlFreeParserCtxt(parser)
            self.parser = nil
            self.source = nil
        }
        let options = Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_NOCDATA.rawValue)
        xmlCtxtUseOptions(parser, options)
        // Errors libxml2 raises without the parser's context (its encoding conversion) go to
        // the global handler, which by default prints them on standard error, outside our
        // messages: for the parse, they come to `report` too.
        // SAFETY: `ctx` is `me`, as for the callbacks above; the handler is reset before `run`
        // returns, so libxml2 never calls it with this state gone.
        xmlSetStructuredErrorFunc(me) { ctx, error in
            guard let ctx, let error else { return }
            Unmanaged<SAXState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { state in state.report(error.pointee) }
        }
        defer { xmlSetStructuredErrorFunc(nil, nil) }
        _ = xmlParseDocument(parser)
        if let pendingError { throw pendingError }
    }

    /// Turns a libxml2 diagnostic into our problem, with its line and column. Warnings (such as
    /// an unknown encoding name libxml2 can still read) are not problems.
    func report(_ e: xmlError) {
        // After the first fatal error nothing more is said: the parse stops there.
        guard pendingError == nil, !sawFatal else { return }
        let level = e.level.rawValue
        guard level >= XML_ERR_ERROR.rawValue else { return }
        if level == XML_ERR_FATAL.rawValue {
            sawFatal = true
            stop()
        }
        var message = "XML error \(e.code)"
        if let m = e.message {
            var n = 0
            while m[n] != 0 { n += 1 }
            // SAFETY: libxml2's message is a NUL-terminated string of n bytes, valid during this call.
            var bytes = Array(UnsafeRawBufferPointer(start: m, count: n))
            while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 {
                bytes.removeLast()
            }
            // libxml2 quotes input raw (a namespace URI, bytes that are not UTF-8) and puts
            // "Bytes: ..." on a line of its own: escaped, with that line end a space, the message
            // is one printable line (found by fuzz target kml).
            message = escapedForMessage(SAXState.shiftingLines(bytes.map { $0 == 0x0A ? 0x20 : $0 }, by: lineBase))
        }
        // A mismatched end tag at the very end is that, not a cut-off file.
        if terminating, inputUsedUp, calls.depth(document) > 0, e.code != Int32(XML_ERR_TAG_NAME_MISMATCH.rawValue) {
            // libxml2's words for this ("Extra content at the end of the document", "Premature
            // end of data") do not say what happened.
            message = "the input ends inside an open element, as a truncated file does (libxml2: \(message))"
        }
        let kind = level == XML_ERR_FATAL.rawValue ? "XML is not well formed" : "XML error"
        let column = e.int2 > 0 ? " (column \(e.int2))" : ""
        let stop = level == XML_ERR_FATAL.rawValue ? "; reading stops here" : ""
        // An error raised outside the parser's context (libxml2's encoding conversion) has no
        // line of its own: the parser's is where it was.
        let at = e.line > 0 ? lineBase + Int(e.line) : line
        do {
            try sink.problem(line: at, "\(kind): \(message)\(column)\(stop)")
        } catch {
            fail(error)
        }
    }
}

extension SAXState {
    /// libxml2's words with each "line N" in them counted from the input's first line, as the
    /// problem's own line is (`lineBase`: lines gpx2fix skipped before the document).
    static func shiftingLines(_ bytes: [UInt8], by base: Int) -> [UInt8] {
        guard base > 0 else { return bytes }
        let word = Array("line ".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var i = 0
        while i < bytes.count {
            if bytes[i...].starts(with: word), i + word.count < bytes.count, bytes[i + word.count] &- 48 < 10 {
                out += word
                i += word.count
                var n = 0
                while i < bytes.count, bytes[i] &- 48 < 10, n < 1 << 40 {
                    n = n * 10 + Int(bytes[i] &- 48)
                    i += 1
                }
                out += Array(String(n + base).utf8)
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }
}

struct XMLParserUnavailable: Error, CustomStringConvertible {
    var description: String { "libxml2 could not create a parser (out of memory?)" }
}
