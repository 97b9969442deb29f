/// Reads one JSON document of any size (or a sequence of them) in constant memory, handing
/// the parts a format wants to its handler as bytes: each element of the root array, or of
/// an array that is the value of a root member (`locations[*]`, `features[*]`,
/// `timelineObjects[*]`, `semanticSegments[*]`, `rawSignals[*]`), and whole root members or
/// root objects where asked.
///
/// The root's structure is read token by token; an element is found by a quick scan of its
/// brackets and strings and given whole to the handler, whose decoder (on `JSONScanner`)
/// checks its grammar. So a broken element is reported by its decoder and skipped, and the
/// elements after it are still read. An element longer than `elementLimit` is reported and
/// skipped without being held. A break in the root's own structure (a missing `]`, text
/// after the document) is reported and ends the reading of that input.
///
/// Lines are counted by line feeds (CR LF and LF files; a CR alone does not count).
struct JSONStreamReader {
    /// The longest element held in memory: 64 MiB, room for a LineString of half a million
    /// points, pretty-printed. fix2gpx --geojson writes features far smaller than this.
    static let elementLimit = 64 << 20

    enum RootObject {
        /// Read its members and ask the handler what to do with each.
        case members
        /// Give it to the handler whole, as a value (OwnTracks messages).
        case whole
    }

    let window: ByteWindow
    var limit = JSONStreamReader.elementLimit
    var rootObject = RootObject.members
    /// Whether several JSON texts may follow one another (NDJSON, or pretty-printed messages).
    var sequence = false

    init(_ source: InputSource) {
        window = ByteWindow(source)
    }

    /// Ends the reading of an input after a problem in the document's structure.
    private struct Stop: Error {}

    /// Reads the whole input.
    mutating func read<H: JSONStreamHandler>(_ handler: inout H) throws {
        do {
            var first = true
            while let c = try window.skipSpace() {
                if !first && !sequence {
                    try stop(
                        &handler,
                        "expected the end of the document, found \(window.shown()): one JSON document was expected")
                }
                first = false
                switch c {
                case JSONByte.openBracket:
                    try array(key: nil, &handler)
                case JSONByte.openBrace where rootObject == .members:
                    try object(&handler)
                    try handler.endOfRoot()
                case JSONByte.openBrace:
                    try whole(key: nil, &handler)
                default:
                    try stop(&handler, "expected a JSON object or array, found \(window.shown())")
                }
            }
        } catch is Stop {
            return
        }
    }

    private func stop<H: JSONStreamHandler>(_ handler: inout H, _ message: String) throws -> Never {
        try handler.problem(line: window.line, message)
        throw Stop()
    }

    /// The root object, from its `{`.
    private mutating func object<H: JSONStreamHandler>(_ handler: inout H) throws {
        window.consume(1, lines: 0)
        if try window.skipSpace() == JSONByte.closeBrace {
            window.consume(1, lines: 0)
            return
        }
        while true {
            guard try window.skipSpace() == JSONByte.quote else {
                try stop(
                    &handler, "expected a member name (a string) in the document's object, found \(window.shown())")
            }
            let key = try memberName(&handler)
            guard try window.skipSpace() == JSONByte.colon else {
                try stop(&handler, "expected ':' after the member name \"\(key)\", found \(window.shown())")
            }
            window.consume(1, lines: 0)
            guard let c = try window.skipSpace() else {
                try stop(&handler, "the document ends after \"\(key)\": expected its value")
            }
            switch handler.action(forMember: key) {
            case .elements where c == JSONByte.openBracket:
                try array(key: key, &handler)
            case .elements, .value:
                try whole(key: key, &handler)
            case .skip:
                try skip(key: key, &handler)
            }
            switch try window.skipSpace() {
            case JSONByte.comma:
                window.consume(1, lines: 0)
            case JSONByte.closeBrace:
                window.consume(1, lines: 0)
                return
            case nil:
                try stop(&handler, "the document ends inside its object: expected ',' or '}'")
            default:
                try stop(&handler, "expected ',' or '}' after the value of \"\(key)\", found \(window.shown())")
            }
        }
    }

    private mutating func memberName<H: JSONStreamHandler>(_ handler: inout H) throws -> String {
        let line = window.line
        switch try extent() {
        case .complete(let n, let lines):
            var s = JSONScanner(window.bytes(0, n))
            let name: String
            do {
                let (r, escaped) = try s.scanString()
                name = s.stringValue(r, escaped: escaped)
            } catch {
                try handler.problem(line: line, "a member name: \(error.message)")
                throw Stop()
            }
            window.consume(n, lines: lines)
            return name
        case .tooLarge:
            try stop(&handler, "a member name longer than \(limit >> 20) MiB")
        case .truncated:
            try stop(&handler, "the document ends inside a member name")
        }
    }

    /// An array, from its `[`: each element goes to the handler.
    private mutating func array<H: JSONStreamHandler>(key: String?, _ handler: inout H) throws {
        let what = key.map { "\"\($0)\"" } ?? "the document's array"
        window.consume(1, lines: 0)
        if try window.skipSpace() == JSONByte.closeBracket {
            window.consume(1, lines: 0)
            return
        }
        while true {
            guard try window.skipSpace() != nil else {
                try stop(&handler, "the document ends inside \(what): expected an element or ']'")
            }
            let line = window.line
            switch try extent() {
            case .complete(let n, let lines):
                try handler.element(window.bytes(0, n), of: key, line: line)
                window.consume(n, lines: lines)
            case .tooLarge:
                try handler.problem(
                    line: line,
                    "an element of \(what) is longer than \(limit >> 20) MiB, the most gpx2fix holds of one element; element skipped"
                )
            case .truncated:
                try stop(&handler, "the document ends inside an element of \(what) that starts here")
            }
            switch try window.skipSpace() {
            case JSONByte.comma:
                window.consume(1, lines: 0)
            case JSONByte.closeBracket:
                window.consume(1, lines: 0)
                return
            case nil:
                try stop(&handler, "the document ends inside \(what): expected ',' or ']'")
            case JSONByte.openBrace, JSONByte.openBracket, JSONByte.quote:
                // A missing comma between two elements: say so, and read on.
                try handler.problem(line: window.line, "expected ',' between two elements of \(what)")
            default:
                try stop(&handler, "expected ',' or ']' after an element of \(what), found \(window.shown())")
            }
        }
    }

    /// A value given whole to the handler.
    private mutating func whole<H: JSONStreamHandler>(key: String?, _ handler: inout H) throws {
        let line = window.line
        let what = key.map { "the value of \"\($0)\"" } ?? "a JSON text"
        switch try extent() {
        case .complete(let n, let lines):
            try handler.value(window.bytes(0, n), of: key, line: line)
            window.consume(n, lines: lines)
        case .tooLarge:
            try handler.problem(
                line: line, "\(what) is longer than \(limit >> 20) MiB, the most gpx2fix holds of one value; skipped")
        case .truncated:
            try stop(&handler, "the document ends inside \(what) that starts here")
        }
    }

    /// A value the handler does not want: its grammar is still checked when it is short.
    private mutating func skip<H: JSONStreamHandler>(key: String, _ handler: inout H) throws {
        let line = window.line
        switch try extent() {
        case .complete(let n, let lines):
            let bytes = window.bytes(0, n)
            var s = JSONScanner(bytes)
            do {
                try s.skipValue()
            } catch {
                try handler.problem(
                    line: JSONStreamReader.line(of: error.offset, in: bytes, from: line),
                    "the value of \"\(key)\": \(error.message)")
            }
            window.consume(n, lines: lines)
        case .tooLarge:
            return
        case .truncated:
            try stop(&handler, "the document ends inside the value of \"\(key)\" that starts here")
        }
    }

    enum Extent {
        /// The value is the next `length` bytes of the window, holding `lines` line feeds.
        case complete(length: Int, lines: Int)
        /// The value was longer than the limit; it has been consumed.
        case tooLarge
        /// The input ends inside it.
        case truncated
    }

    /// Finds the end of the value that starts at the window's first byte, by its brackets and
    /// strings alone, reading more input as needed. A value longer than `limit` is consumed
    /// as it is scanned and not held.
    mutating func extent() throws -> Extent {
        let first = window[0]
        let scalar = first != JSONByte.openBrace && first != JSONByte.openBracket && first != JSONByte.quote
        var i = 0
        var depth = 0
        var inString = false
        var escaped = false
        var lines = 0
        var discarding = false
        if first == JSONByte.quote {
            inString = true
            i = 1
        }
        while true {
            if i >= window.available {
                if discarding || i > limit {
                    discarding = true
                    window.discardAll(lines: lines)
                    lines = 0
                    i = 0
                }
                if !(try window.fill()) {
                    if scalar && !discarding && i > 0 { return .complete(length: i, lines: lines) }
                    return discarding ? .tooLarge : .truncated
                }
                continue
            }
            let p = window.storage + window.start
            let n = window.available
            var end = -1
            scan: while i < n {
                let c = p[i]
                if inString {
                    // Most bytes of a string are plain: run over them.
                    if escaped {
                        escaped = false
                    } else if c == JSONByte.backslash {
                        escaped = true
                    } else if c == JSONByte.quote {
                        inString = false
                        if depth == 0 {
                            end = i + 1
                            break scan
                        }
                    } else if c == JSONByte.lineFeed {
                        lines += 1
                    }
                } else if scalar {
                    switch c {
                    case JSONByte.comma, JSONByte.closeBracket, JSONByte.closeBrace, JSONByte.colon, JSONByte.space,
                        JSONByte.tab, JSONByte.carriageReturn, JSONByte.lineFeed:
                        end = i
                        break scan
                    default: break
                    }
                } else {
                    switch c {
                    case JSONByte.quote: inString = true
                    case JSONByte.openBrace, JSONByte.openBracket: depth += 1
                    case JSONByte.closeBrace, JSONByte.closeBracket:
                        depth -= 1
                        if depth == 0 {
                            end = i + 1
                            break scan
                        }
                    case JSONByte.lineFeed: lines += 1
                    default: break
                    }
                }
                i += 1
            }
            if end >= 0 {
                if discarding {
                    window.consume(end, lines: lines)
                    return .tooLarge
                }
                if end > limit {
                    window.consume(end, lines: lines)
                    return .tooLarge
                }
                return .complete(length: end, lines: lines)
            }
        }
    }

    /// The line of byte `offset` of `bytes`, which start on line `from`.
    // SAFETY: `bytes` is the caller's, read during this call; indices stay below its count.
    static func line(of offset: Int?, in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        var line = from
        guard let offset else { return line }
        for k in 0..<min(max(offset, 0), bytes.count) where bytes[k] == JSONByte.lineFeed { line += 1 }
        return line
    }
}

/// What `JSONStreamReader` does with a root member's value.
enum JSONMemberAction {
    /// An array whose elements go to `element` one by one (any other value goes to `value`).
    case elements
    /// The whole value goes to `value`.
    case value
    /// Not wanted.
    case skip
}

/// The format's side of `JSONStreamReader`. Bytes handed over are valid during the call only.
protocol JSONStreamHandler {
    mutating func action(forMember key: String) -> JSONMemberAction
    /// An element of the root array (`key` nil) or of the array that is `key`'s value; it
    /// starts on `line`.
    // SAFETY: `bytes` points into the reader's window, valid during this call only (the window
    // moves at the next read); copy what is kept.
    mutating func element(_ bytes: UnsafeBufferPointer<UInt8>, of key: String?, line: Int) throws
    /// A root member's value (`.value`), or a root object given whole (`key` nil).
    // SAFETY: as above: valid during this call only.
    mutating func value(_ bytes: UnsafeBufferPointer<UInt8>, of key: String?, line: Int) throws
    /// The root object has ended (after its members were read).
    mutating func endOfRoot() throws
    mutating func problem(line: Int, _ message: String) throws
}

extension JSONStreamHandler {
    // SAFETY: as above.
    mutating func value(_ bytes: UnsafeBufferPointer<UInt8>, of key: String?, line: Int) throws {}
    mutating func endOfRoot() throws {}
}
