/// One JSON element parsed as a tree of byte ranges: what the JSON formats' decoders walk.
/// Unlike `JSONValue` it keeps where every value stands, so that a member can be passed on
/// verbatim (a fix's unknown members) and a problem reported at its line.
///
/// The bytes it indexes are those a `JSONStreamReader` handed over: valid during that call.
struct JSONNode {
    enum Kind { case object, array, string, number, bool, null }
    var kind: Kind
    /// The value's bytes, from its first to its last.
    var range: Range<Int>
    /// An object's members, in order (a name given twice keeps both; lookups take the first).
    var members: [JSONMember] = []
    var items: [JSONNode] = []
    /// A string with escapes.
    var escaped = false

    subscript(key: String) -> JSONNode? {
        for m in members where m.key == key { return m.value }
        return nil
    }

    /// Parses one JSON text (RFC 8259) that fills `bytes`, but for white space.
    // SAFETY: `bytes` is the caller's, read during this call only; the nodes keep ranges into it,
    // not pointers, and are read together with it.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONNode {
        var s = JSONScanner(bytes, endName: "the end")
        let v = try node(&s, depth: 0)
        s.skipSpace()
        guard s.atEnd else { throw s.error("expected the end of the element, found \(s.describeHere())") }
        return v
    }

    private static func node(_ s: inout JSONScanner, depth: Int) throws(JSONSyntaxError) -> JSONNode {
        s.skipSpace()
        guard let c = s.peek() else { throw s.error("expected a value, found the end") }
        guard depth < JSONScanner.maxDepth else { throw s.error("values nested deeper than \(JSONScanner.maxDepth)") }
        let start = s.position
        switch c {
        case JSONByte.openBrace:
            var n = JSONNode(kind: .object, range: start..<start)
            var walk = JSONWalk()
            while let name = try s.nextMember(&walk) {
                let key = s.stringValue(name.range, escaped: name.escaped)
                n.members.append(JSONMember(key: key, value: try node(&s, depth: depth + 1)))
            }
            n.range = start..<s.position
            return n
        case JSONByte.openBracket:
            var n = JSONNode(kind: .array, range: start..<start)
            var walk = JSONWalk()
            while try s.nextElement(&walk) != nil {
                n.items.append(try node(&s, depth: depth + 1))
            }
            n.range = start..<s.position
            return n
        case JSONByte.quote:
            let (_, escaped) = try s.scanString()
            var n = JSONNode(kind: .string, range: start..<s.position)
            n.escaped = escaped
            return n
        case UInt8(ascii: "t"):
            try s.literal("true")
            return JSONNode(kind: .bool, range: start..<s.position)
        case UInt8(ascii: "f"):
            try s.literal("false")
            return JSONNode(kind: .bool, range: start..<s.position)
        case UInt8(ascii: "n"):
            try s.literal("null")
            return JSONNode(kind: .null, range: start..<s.position)
        default:
            _ = try s.scanNumber()
            return JSONNode(kind: .number, range: start..<s.position)
        }
    }
}

/// An object's member.
struct JSONMember {
    var key: String
    var value: JSONNode
}

/// A parsed element with its bytes: the accessors the decoders use.
struct JSONElement {
    // SAFETY: the element's bytes, the stream reader's window: valid only during the handler call
    // that was given this element, which is never kept beyond it.
    let bytes: UnsafeBufferPointer<UInt8>
    let root: JSONNode
    /// The line of the element's first byte.
    let line: Int

    /// The raw bytes of `node`.
    // SAFETY: `node.range` came from parsing these bytes, so it lies inside them; valid as long as
    // `bytes`.
    func raw(_ node: JSONNode) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[node.range])
    }

    /// A number, or nil for any other value.
    func number(_ node: JSONNode?) -> Double? {
        guard let node, node.kind == .number else { return nil }
        return DecimalNumber.parse(raw(node))
    }

    /// A number, or a string holding one (some exporters quote their numbers).
    func looseNumber(_ node: JSONNode?) -> Double? {
        guard let node else { return nil }
        if node.kind == .number { return DecimalNumber.parse(raw(node)) }
        if node.kind == .string, !node.escaped, node.range.count > 2 {
            // SAFETY: a string node's range spans at least its two quotes (`count > 2` checked), so
            // the inner range lies inside `bytes`.
            let inner = UnsafeBufferPointer(rebasing: bytes[(node.range.lowerBound + 1)..<(node.range.upperBound - 1)])
            return DecimalNumber.parse(inner)
        }
        return nil
    }

    /// A string's value, or nil for any other value.
    func string(_ node: JSONNode?) -> String? {
        guard let node, node.kind == .string else { return nil }
        let inner = (node.range.lowerBound + 1)..<(node.range.upperBound - 1)
        return JSONScanner(bytes).stringValue(inner, escaped: node.escaped)
    }

    /// A time: an RFC 3339 string, or a number of seconds (milliseconds when above 1e11,
    /// which as seconds would be past the year 5000) since 1970, as a number or a string of digits.
    func time(_ node: JSONNode?) -> Timestamp? {
        guard let node else { return nil }
        if node.kind == .string, !node.escaped {
            // SAFETY: as above: the range, quotes dropped, lies inside `bytes`.
            let inner = UnsafeBufferPointer(rebasing: bytes[(node.range.lowerBound + 1)..<(node.range.upperBound - 1)])
            if let t = Timestamp.parse(inner) { return t }
            if !inner.isEmpty, inner.allSatisfy({ $0 &- 48 < 10 }), let v = DecimalNumber.parse(inner) {
                return Self.epoch(v)
            }
            return nil
        }
        if node.kind == .number, let v = DecimalNumber.parse(raw(node)) { return Self.epoch(v) }
        return nil
    }

    static func epoch(_ v: Double) -> Timestamp? {
        guard v.isFinite, abs(v) < 1e16 else { return nil }
        return abs(v) >= 1e11 ? Timestamp(milliseconds: Int64(v.rounded())) : Timestamp(seconds: v)
    }

    /// The line of `node`'s first byte.
    func line(of node: JSONNode) -> Int {
        JSONStreamReader.line(of: node.range.lowerBound, in: bytes, from: line)
    }

    /// The text of `node`, shortened for a message.
    func shown(_ node: JSONNode) -> String {
        let r = raw(node)
        return escapedForMessage(r.prefix(40)) + (r.count > 40 ? "..." : "")
    }
}

extension JSONElement {
    /// Parses `bytes` (an element a stream reader handed over), or reports where its grammar
    /// breaks and returns nil.
    static func parse(
        // SAFETY: `bytes` is the element the stream reader handed over, valid during the handler's
        // call; the element returned must not outlive it.
        _ bytes: UnsafeBufferPointer<UInt8>, line: Int, what: String, problem: (Int, String) throws -> Void
    ) throws -> JSONElement? {
        let root: JSONNode
        do throws(JSONSyntaxError) {
            root = try JSONNode.parse(bytes)
        } catch {
            try problem(
                JSONStreamReader.line(of: error.offset, in: bytes, from: line),
                "\(what) is not valid JSON: \(error.message); skipped")
            return nil
        }
        return JSONElement(bytes: bytes, root: root, line: line)
    }
}
