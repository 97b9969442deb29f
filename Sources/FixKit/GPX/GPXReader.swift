// Not re-exported: clients (and the tests, which import Foundation) must not see libxml2's headers,
// whose copy of ICU's UErrorCode clashes with Foundation's.
internal import CFixXML2

/// Reads GPX with libxml2's SAX2 push parser: the one file that talks to libxml2.
///
/// Never a DOM: bytes are pushed in chunks and each point is handed over at its end tag, so
/// memory is constant whatever the file size. Hostile input is refused, not expanded: no
/// network (`XML_PARSE_NONET`), no DTD loading, and no entity substitution (no
/// `XML_PARSE_NOENT`). Entities declared in a DOCTYPE are never stored (this handler has no
/// `entityDecl`), so a reference to one, a billion-laughs bomb or an external entity aimed at
/// a local file, is a well-formedness error at its line and nothing is expanded or read.
/// Every libxml2 diagnostic becomes a problem with its line and column.
public struct GPXReader {
    public var fileName: String?
    public var uere: Double?

    public init(fileName: String?, uere: Double?) {
        self.fileName = fileName
        self.uere = uere
    }

    public enum PointKind { case track, route, waypoint }

    /// Parses `input`, whose first bytes (already read, to detect the format) are `prefix`.
    /// `onFix` gets each valid point with the number of its `<trk>` or `<rte>` in the file
    /// (from 1; 0 for waypoints); `problem` each problem with its line.
    public func read(
        _ input: InputReader, prefix: [UInt8],
        onFix: (inout Fix, PointKind, Int) throws -> Void,
        problem: (Int, String) throws -> Void
    ) throws {
        try withoutActuallyEscaping(onFix) { onFix in
            try withoutActuallyEscaping(problem) { problem in
                let state = SAXState(
                    document: GPXDocument(fileName: fileName, uere: uere), onFix: onFix, problem: problem)
                try state.run(input, prefix: prefix)
            }
        }
    }
}

/// libxml2's view of one parse. A class, so C callbacks can reach it through `userData`.
private final class SAXState {
    /// The document state lives behind a pointer: every SAX callback mutates it, and a stored
    /// property of a class would pay a dynamic exclusivity check on each access. Safe because
    /// libxml2 calls back on this thread only, one callback at a time, and the pointer is
    /// freed in deinit, after the parse.
    let document: UnsafeMutablePointer<GPXDocument>
    let onFix: (inout Fix, GPXReader.PointKind, Int) throws -> Void
    let problem: (Int, String) throws -> Void
    var parser: xmlParserCtxtPtr?
    /// A Swift error thrown inside a callback; the parse is stopped and it is rethrown.
    var pendingError: Error?
    var sawFatal = false
    /// Set while the end of the input is pushed: a fatal error then means a cut-off file.
    var terminating = false

    init(
        document: GPXDocument, onFix: @escaping (inout Fix, GPXReader.PointKind, Int) throws -> Void,
        problem: @escaping (Int, String) throws -> Void
    ) {
        self.document = .allocate(capacity: 1)
        self.document.initialize(to: document)
        self.onFix = onFix
        self.problem = problem
    }

    deinit {
        document.deinitialize(count: 1)
        document.deallocate()
    }

    var line: Int { parser.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0 }

    func fail(_ error: Error) {
        if pendingError == nil { pendingError = error }
        if let parser { xmlStopParser(parser) }
    }

    func run(_ input: InputReader, prefix: [UInt8]) throws {
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        // The callbacks borrow the state (`_withUnsafeGuaranteedRef`): `run` holds it for the
        // whole parse, so no retain and release is needed per callback.
        handler.startElementNs = { ctx, localname, _, uri, _, _, nbAttributes, _, attributes in
            guard let ctx, let localname else { return }
            Unmanaged<SAXState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { state in
                guard state.pendingError == nil else { return }
                // Each attribute is five pointers: localname, prefix, URI, value, value end.
                let attribute: (String) -> UnsafeBufferPointer<UInt8>? = { wanted in
                    guard let attributes else { return nil }
                    for k in 0..<Int(nbAttributes) {
                        let base = 5 * k
                        // Unqualified attributes only: lat and lon are never prefixed in GPX.
                        guard let name = attributes[base], attributes[base + 2] == nil, cStringEquals(name, wanted),
                            let value = attributes[base + 3], let end = attributes[base + 4]
                        else { continue }
                        return UnsafeBufferPointer(start: value, count: value.distance(to: end))
                    }
                    return nil
                }
                do {
                    try state.document.pointee.start(
                        name: localname, uri: uri, line: state.line, attribute: attribute, problem: state.problem)
                } catch {
                    state.fail(error)
                }
            }
        }
        handler.endElementNs = { ctx, _, _, _ in
            guard let ctx else { return }
            Unmanaged<SAXState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { state in
                guard state.pendingError == nil else { return }
                do {
                    try state.document.pointee.end(line: state.line, problem: state.problem) { fix, kind in
                        let k: GPXReader.PointKind = kind == .trkpt ? .track : kind == .rtept ? .route : .waypoint
                        try state.onFix(&fix, k, k == .waypoint ? 0 : state.document.pointee.recording)
                    }
                } catch {
                    state.fail(error)
                }
            }
        }
        let characters: charactersSAXFunc = { ctx, chars, count in
            guard let ctx, let chars, count > 0 else { return }
            Unmanaged<SAXState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { state in
                if state.document.pointee.capturing {
                    state.document.pointee.characters(UnsafeBufferPointer(start: chars, count: Int(count)))
                }
            }
        }
        handler.characters = characters
        handler.cdataBlock = characters
        handler.serror = { ctx, error in
            guard let ctx, let error else { return }
            let state = Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue()
            state.report(error.pointee)
        }

        let me = Unmanaged.passUnretained(self).toOpaque()
        // Without a file name libxml2 calls the input "(null)" in nothing we show; the name we
        // report comes from Diagnostics.
        let head = min(4, prefix.count)
        parser = prefix.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: head) {
                xmlCreatePushParserCtxt(&handler, me, $0, Int32(head), nil)
            }
        }
        guard let parser else { throw GPXReaderError.parserUnavailable }
        defer {
            xmlFreeParserCtxt(parser)
            self.parser = nil
        }
        let options = Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_NOCDATA.rawValue)
        xmlCtxtUseOptions(parser, options)

        func push(_ bytes: UnsafeRawBufferPointer, terminate: Bool) -> Bool {
            let rc = bytes.withMemoryRebound(to: CChar.self) { p in
                xmlParseChunk(parser, p.baseAddress, Int32(p.count), terminate ? 1 : 0)
            }
            return rc == 0 && !sawFatal && pendingError == nil
        }
        var going =
            prefix.count <= head
            || prefix.withUnsafeBytes { push(UnsafeRawBufferPointer(rebasing: $0[head...]), terminate: false) }
        if going {
            var buffer = [UInt8](repeating: 0, count: 1 << 18)
            while going {
                let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, capacity: $0.count) }
                if n == 0 {
                    terminating = true
                    _ = push(UnsafeRawBufferPointer(start: nil, count: 0), terminate: true)
                    break
                }
                going = buffer.withUnsafeBytes { push(UnsafeRawBufferPointer(rebasing: $0[..<n]), terminate: false) }
            }
        }
        if let pendingError { throw pendingError }
    }

    /// Turns a libxml2 diagnostic into our problem, with its line and column. Warnings (such as
    /// an unknown encoding name libxml2 can still read) are not problems.
    func report(_ e: xmlError) {
        guard pendingError == nil else { return }
        let level = e.level.rawValue
        guard level >= XML_ERR_ERROR.rawValue else { return }
        if level == XML_ERR_FATAL.rawValue {
            guard !sawFatal else { return }
            sawFatal = true
        }
        var message = e.message.map { String(cString: $0) } ?? "XML error \(e.code)"
        while message.last?.isWhitespace == true { message.removeLast() }
        if terminating, document.pointee.depth > 0 {
            // libxml2's words for this ("Extra content at the end of the document", "Premature
            // end of data") do not say what happened.
            message = "the input ends inside an open element, as a truncated file does (libxml2: \(message))"
        }
        let kind = level == XML_ERR_FATAL.rawValue ? "XML is not well formed" : "XML error"
        let column = e.int2 > 0 ? " (column \(e.int2))" : ""
        let stop = level == XML_ERR_FATAL.rawValue ? "; reading stops here" : ""
        do {
            try problem(Int(e.line), "\(kind): \(message)\(column)\(stop)")
        } catch {
            fail(error)
        }
    }
}

enum GPXReaderError: Error, CustomStringConvertible {
    case parserUnavailable
    var description: String { "libxml2 could not create a parser (out of memory?)" }
}
