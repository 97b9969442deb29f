/// A forward-only reader of one JSON text held in bytes: the part of a hand-written codec
/// that every record decoder shares. It validates as it goes (RFC 8259 grammar) and never
/// allocates except to unescape a string that has escapes.
///
/// Errors are `JSONSyntaxError` values with a byte offset and words a user can act on.
///
/// Objects and arrays are read by `nextMember` and `nextElement` (or `forEachMember` and
/// `forEachElement`, the same as loops), the one place that knows their grammar; every
/// decoder says only what to do with a member or an element.
struct JSONScanner {
    // SAFETY: the text being read, the caller's: a scanner lives inside the call that lends it (a
    // decode of one line) and is never stored beyond it; every read checks `position` against
    // `bytes.count`.
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int = 0
    /// What the end of `bytes` is called in a message: "the end of the line" for an NDJSON
    /// line, "the end" for a document.
    let endName: StaticString

    // SAFETY: `bytes` must outlive the scanner (see `bytes`).
    init(_ bytes: UnsafeBufferPointer<UInt8>, endName: StaticString = "the end of the line") {
        self.bytes = bytes
        self.endName = endName
    }

    static let maxDepth = 256

    var atEnd: Bool { position >= bytes.count }

    @inline(__always)
    mutating func skipSpace() {
        while position < bytes.count {
            let c = bytes[position]
            guard c == JSONByte.space || c == JSONByte.tab || c == JSONByte.lineFeed || c == JSONByte.carriageReturn
            else { return }
            position += 1
        }
    }

    @inline(__always)
    func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(message: message, offset: position)
    }

    func describeHere() -> String {
        guard let c = peek() else { return "\(endName)" }
        if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + String(c, radix: 16)
    }

    mutating func expect(_ c: UInt8, _ what: String) throws(JSONSyntaxError) {
        skipSpace()
        guard peek() == c else { throw error("expected \(what), found \(describeHere())") }
        position += 1
    }

    /// Reads a string whose opening quote is at `position`. Returns the raw bytes between the
    /// quotes and whether they contain escapes.
    mutating func scanString() throws(JSONSyntaxError) -> (range: Range<Int>, escaped: Bool) {
        guard peek() == JSONByte.quote else { throw error("expected a string, found \(describeHere())") }
        position += 1
        let start = position
        var escaped = false
        // Plain bytes (not a quote, a backslash or a control character) are most of a string:
        // skipped eight at a time.
        // SAFETY: `base` is `bytes`' start, valid while the scanner is, and `bytes.count` its end.
        if let base = bytes.baseAddress { position = JSONByte.plainRunEnd(base, from: position, end: bytes.count) }
        while position < bytes.count {
            let c = bytes[position]
            if c == JSONByte.quote {
                position += 1
                return (start..<(position - 1), escaped)
            }
            if c == JSONByte.backslash {
                escaped = true
                position += 1
                guard position < bytes.count else { break }
                switch bytes[position] {
                case JSONByte.quote, JSONByte.backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    guard position + 4 < bytes.count, (1...4).allSatisfy({ isHexDigit(bytes[position + $0]) }) else {
                        throw error("a \\u escape needs four hex digits")
                    }
                    position += 5
                default:
                    // A byte that is not printable ASCII is named by its value: raw, it would reach
                    // the terminal (fuzz target fixrecords found a NUL).
                    let b = bytes[position]
                    throw error(
                        b > 0x20 && b < 0x7F
                            ? "unknown escape \\\(Character(Unicode.Scalar(b)))"
                            : "unknown escape: byte 0x\(b < 0x10 ? "0" : "")\(String(b, radix: 16)) after a backslash")
                }
                continue
            }
            if c < 0x20 {
                throw error("a control character (0x\(String(c, radix: 16))) inside a string must be escaped")
            }
            position += 1
        }
        throw JSONSyntaxError(message: "a string is not closed before the end of the line", offset: start - 1)
    }

    /// The value of a string scanned by `scanString`, escapes resolved.
    func stringValue(_ range: Range<Int>, escaped: Bool) -> String {
        // SAFETY: `range` came from `scanString` over `bytes`, so it lies inside it; the decoded
        // String is a copy.
        let raw = UnsafeBufferPointer(rebasing: bytes[range])
        if !escaped { return ByteText.decode(raw) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let c = raw[i]
            guard c == JSONByte.backslash else {
                out.append(c)
                i += 1
                continue
            }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar), i + 5 < raw.count, raw[i] == JSONByte.backslash,
                    raw[i + 1] == UInt8(ascii: "u")
                {
                    let low = hex4(raw, i + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                // A lone surrogate cannot be UTF-8: it becomes U+FFFD, as String would make it.
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                if let encoded = UTF8.encode(u) { out.append(contentsOf: encoded) }  // a Scalar always encodes
            default: out.append(e)  // \" \\ \/
            }
        }
        return ByteText.decode(out)
    }

    // SAFETY: `at ..< at + 4` lies inside `raw`: `scanString` accepted every `\u` escape only
    // with four hex digits after it (and the second of a surrogate pair is checked by
    // `i + 5 < raw.count`).
    private func hex4(_ raw: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = raw[at + k]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 87)
            default: d = UInt32(c - 55)
            }
            v = v << 4 | d
        }
        return v
    }

    /// Scans a JSON number at `position` and returns its bytes.
    // SAFETY: the number returned is a part of `bytes`, valid as long as the scanner's text is.
    mutating func scanNumber() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8> {
        let start = position
        if peek() == JSONByte.minus { position += 1 }
        guard let first = peek(), first &- 48 < 10 else { throw error("expected a number, found \(describeHere())") }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            while let c = peek(), c &- 48 < 10 { position += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let c = peek(), c &- 48 < 10 else { throw error("expected a digit after the decimal point") }
            while let c = peek(), c &- 48 < 10 { position += 1 }
        }
        if let c = peek(), c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            position += 1
            if let s = peek(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { position += 1 }
            guard let c = peek(), c &- 48 < 10 else { throw error("expected a digit in the exponent") }
            while let c = peek(), c &- 48 < 10 { position += 1 }
        }
        // SAFETY: `start..<position` is what the scanner just passed, inside `bytes`.
        return UnsafeBufferPointer(rebasing: bytes[start..<position])
    }

    /// A number's value, read as its grammar is checked: `scanNumber` then
    /// `DecimalNumber.parse` on its bytes, in one pass where the number is plain
    /// (`DecimalNumber.plainJSON`, the common case). The same errors as `scanNumber`; nil
    /// where `DecimalNumber.parse` gives nil.
    @inline(__always)
    mutating func scanNumberValue() throws(JSONSyntaxError) -> Double? {
        // SAFETY: `bytes`' storage, read below `bytes.count` only.
        if let p = bytes.baseAddress, let v = DecimalNumber.plainJSON(p, at: &position, end: bytes.count) { return v }
        return DecimalNumber.parse(try scanNumber())
    }

    /// Skips any JSON value, checking its grammar.
    mutating func skipValue(depth: Int = 0) throws(JSONSyntaxError) {
        skipSpace()
        guard let c = peek() else { throw error("expected a value, found the end of the line") }
        switch c {
        case JSONByte.quote:
            _ = try scanString()
        case JSONByte.openBrace:
            guard depth < JSONScanner.maxDepth else { throw error("values nested deeper than \(JSONScanner.maxDepth)") }
            var walk = JSONWalk()
            while try nextMember(&walk) != nil { try skipValue(depth: depth + 1) }
        case JSONByte.openBracket:
            guard depth < JSONScanner.maxDepth else { throw error("values nested deeper than \(JSONScanner.maxDepth)") }
            var walk = JSONWalk()
            while try nextElement(&walk) != nil { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default:
            _ = try scanNumber()
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        guard position + n <= bytes.count else { throw error("expected a value, found \(describeHere())") }
        for k in 0..<n where bytes[position + k] != word.utf8Start[k] {
            throw error("expected a value, found \(describeHere())")
        }
        position += n
    }

    /// Whether the next bytes are the literal `null` (consumed if so).
    mutating func skipNull() -> Bool {
        guard position + 4 <= bytes.count, bytes[position] == UInt8(ascii: "n"),
            bytes[position + 1] == UInt8(ascii: "u"),
            bytes[position + 2] == UInt8(ascii: "l"), bytes[position + 3] == UInt8(ascii: "l")
        else { return false }
        position += 4
        return true
    }
}

// MARK: - Objects and arrays

extension JSONScanner {
    /// The next member of an object: its name, the scanner at its value (white space
    /// skipped), or nil past the object's `}`. The first call, with a new `walk`, reads the
    /// `{` that must be the next byte; the caller reads each value (scans or skips it) before
    /// asking for the next member. This checks everything around the values: the names, `:`,
    /// `,` and `}`. The loop every object reader shares:
    ///
    ///     var walk = JSONWalk()
    ///     while let name = try s.nextMember(&walk) { /* read the value */ }
    ///
    /// `nextMember` and `nextElement` write the same walk out twice (open, empty, separator,
    /// close) on purpose. One primitive taking the member's part as a closure, with these two
    /// and `forEachMember` as calls of it, was tried first (issue 9's point 5): the closure was
    /// not inlined into `FixDecoder`'s loop, and fixfilter ran 3% more instructions under
    /// callgrind, fence loading 7% more (commit f45c099). Written out, each is inlined whole.
    @inline(__always)
    mutating func nextMember(_ walk: inout JSONWalk) throws(JSONSyntaxError) -> JSONMemberName? {
        if walk.count == 0 {
            position += 1  // the '{'
            skipSpace()
            if position < bytes.count, bytes[position] == JSONByte.closeBrace {
                position += 1
                return nil
            }
        } else if try passSeparator(closing: JSONByte.closeBrace) {
            return nil
        }
        walk.count += 1
        skipSpace()
        let start = position
        let (range, escaped) = try scanString()
        skipSpace()
        guard position < bytes.count, bytes[position] == JSONByte.colon else { throw colonError() }
        position += 1
        skipSpace()
        return JSONMemberName(start: start, range: range, escaped: escaped)
    }

    /// The next element of an array: its index, the scanner at it (white space skipped), or
    /// nil past the array's `]`. As `nextMember`: the first call reads the `[`, the caller
    /// reads each element, and this checks the `,` and `]` between them. Written out beside
    /// `nextMember`, not shared with it through a closure: see there why.
    @inline(__always)
    mutating func nextElement(_ walk: inout JSONWalk) throws(JSONSyntaxError) -> Int? {
        if walk.count == 0 {
            position += 1  // the '['
            skipSpace()
            if position < bytes.count, bytes[position] == JSONByte.closeBracket {
                position += 1
                return nil
            }
        } else if try passSeparator(closing: JSONByte.closeBracket) {
            return nil
        }
        walk.count += 1
        skipSpace()
        return walk.count - 1
    }

    /// `nextMember` as a loop: `body` reads each member's value. The scanner ends just past
    /// the `}`.
    @inline(__always)
    mutating func forEachMember(_ body: (inout JSONScanner, JSONMemberName) throws(JSONSyntaxError) -> Void)
        throws(JSONSyntaxError)
    {
        var walk = JSONWalk()
        while let name = try nextMember(&walk) { try body(&self, name) }
    }

    /// `forEachMember` that stops early when `body` returns true, the scanner just past that
    /// member's value. Returns whether it stopped so.
    @inline(__always)
    @discardableResult
    mutating func scanMembers(until body: (inout JSONScanner, JSONMemberName) throws(JSONSyntaxError) -> Bool)
        throws(JSONSyntaxError) -> Bool
    {
        var walk = JSONWalk()
        while let name = try nextMember(&walk) {
            if try body(&self, name) { return true }
        }
        return false
    }

    /// `nextElement` as a loop: `body` reads each element, given its index. The scanner ends
    /// just past the `]`.
    @inline(__always)
    mutating func forEachElement(_ body: (inout JSONScanner, Int) throws(JSONSyntaxError) -> Void)
        throws(JSONSyntaxError)
    {
        var walk = JSONWalk()
        while let k = try nextElement(&walk) { try body(&self, k) }
    }

    /// `forEachElement` that stops early when `body` returns true, the scanner just past that
    /// element. Returns whether it stopped so.
    @inline(__always)
    @discardableResult
    mutating func scanElements(until body: (inout JSONScanner, Int) throws(JSONSyntaxError) -> Bool)
        throws(JSONSyntaxError) -> Bool
    {
        var walk = JSONWalk()
        while let k = try nextElement(&walk) {
            if try body(&self, k) { return true }
        }
        return false
    }

    /// After a member's value or an element: passes a `,` (false) or the closing byte (true).
    @inline(__always)
    private mutating func passSeparator(closing close: UInt8) throws(JSONSyntaxError) -> Bool {
        skipSpace()
        if position < bytes.count {
            let c = bytes[position]
            if c == JSONByte.comma {
                position += 1
                return false
            }
            if c == close {
                position += 1
                return true
            }
        }
        throw separatorError(closing: close)
    }

    @inline(never)
    private func colonError() -> JSONSyntaxError {
        error("expected ':' after a member name, found \(describeHere())")
    }

    @inline(never)
    private func separatorError(closing close: UInt8) -> JSONSyntaxError {
        error("expected ',' or '\(Character(Unicode.Scalar(close)))', found \(describeHere())")
    }
}

/// Where a walk through an object or an array stands, between calls of `nextMember` or
/// `nextElement`: how many members or elements it has handed out.
struct JSONWalk {
    fileprivate(set) var count = 0
}

/// A member's name as `nextMember` found it, in the scanner's bytes.
struct JSONMemberName {
    /// Where the name's opening quote is: where the member starts.
    var start: Int
    /// The name's bytes, between the quotes.
    var range: Range<Int>
    /// Whether they hold escapes (`JSONScanner.stringValue` resolves them).
    var escaped: Bool
}

/// A JSON text that breaks the grammar, at a byte offset within its line.
public struct JSONSyntaxError: Error, Sendable {
    public var message: String
    /// The byte offset within the line; nil when the error is about a whole value or record.
    public var offset: Int?
}
