/// A parsed JSON value, for the small documents options read (fences). Records are never read
/// this way: they use `FixDecoder`, which does not build values it does not need.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var number: Double? {
        if case .number(let v) = self { return v }
        return nil
    }

    public var string: String? {
        if case .string(let v) = self { return v }
        return nil
    }

    /// Parses one JSON text (RFC 8259), with the error's byte offset.
    // SAFETY: `bytes` is the caller's, read during this call only; the value copies every string
    // and number it keeps.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var s = JSONScanner(bytes, endName: "the end")
        let v = try value(&s, depth: 0)
        s.skipSpace()
        guard s.atEnd else { throw s.error("expected the end of the document, found \(s.describeHere())") }
        return v
    }

    static func value(_ s: inout JSONScanner, depth: Int) throws(JSONSyntaxError) -> JSONValue {
        s.skipSpace()
        guard let c = s.peek() else { throw s.error("expected a value, found the end") }
        guard depth < JSONScanner.maxDepth else { throw s.error("values nested deeper than \(JSONScanner.maxDepth)") }
        switch c {
        case JSONByte.openBrace:
            var members: [(String, JSONValue)] = []
            var walk = JSONWalk()
            while let name = try s.nextMember(&walk) {
                let key = s.stringValue(name.range, escaped: name.escaped)
                members.append((key, try value(&s, depth: depth + 1)))
            }
            return .object(members)
        case JSONByte.openBracket:
            var items: [JSONValue] = []
            var walk = JSONWalk()
            while try s.nextElement(&walk) != nil {
                items.append(try value(&s, depth: depth + 1))
            }
            return .array(items)
        case JSONByte.quote:
            let (r, escaped) = try s.scanString()
            return .string(s.stringValue(r, escaped: escaped))
        case UInt8(ascii: "t"):
            try s.literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try s.literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try s.literal("null")
            return .null
        default:
            let text = try s.scanNumber()
            guard let v = DecimalNumber.parse(text) else { throw s.error("a number too large for a double") }
            return .number(v)
        }
    }
}
