/// Finds the root element's local name in the head of an XML input, for telling XML
/// vocabularies apart: past the XML declaration, processing instructions, comments and a
/// DOCTYPE.
enum XMLRoot {
    enum Answer: Equatable {
        case name([UInt8])
        /// Not XML as far as the head shows (or a root that cannot be found in it).
        case none
        case needMore
    }

    static func find(_ head: InputHead) -> Answer {
        let b = head.bytes
        var i = 0
        let more: Answer = head.isComplete ? .none : .needMore
        while true {
            while i < b.count, isXMLSpace(b[i]) { i += 1 }
            guard i < b.count else { return more }
            guard b[i] == UInt8(ascii: "<") else { return .none }
            guard i + 1 < b.count else { return more }
            let c = b[i + 1]
            if c == UInt8(ascii: "?") {
                guard let end = find(b, "?>", from: i + 2) else { return more }
                i = end
            } else if c == UInt8(ascii: "!") {
                if b[(i + 2)...].starts(with: "--".utf8) {
                    guard let end = find(b, "-->", from: i + 4) else { return more }
                    i = end
                } else if b.count < i + 4 {
                    return more
                } else {
                    // DOCTYPE, with an internal subset in brackets perhaps.
                    var k = i + 2
                    var depth = 0
                    while k < b.count {
                        if b[k] == UInt8(ascii: "[") { depth += 1 }
                        if b[k] == UInt8(ascii: "]") { depth -= 1 }
                        if b[k] == UInt8(ascii: ">"), depth <= 0 { break }
                        k += 1
                    }
                    guard k < b.count else { return more }
                    i = k + 1
                }
            } else {
                var k = i + 1
                while k < b.count, !isXMLSpace(b[k]), b[k] != UInt8(ascii: ">"), b[k] != UInt8(ascii: "/") { k += 1 }
                guard k < b.count else { return more }
                var name = Array(b[(i + 1)..<k])
                if let colon = name.lastIndex(of: UInt8(ascii: ":")) { name = Array(name[(colon + 1)...]) }
                return .name(name)
            }
        }
    }

    /// The index just past the first `pattern` at or after `from`.
    private static func find(_ b: [UInt8], _ pattern: String, from: Int) -> Int? {
        let p = Array(pattern.utf8)
        guard from <= b.count - p.count else { return nil }
        var k = from
        while k + p.count <= b.count {
            if b[k] == p[0], b[k..<(k + p.count)].elementsEqual(p) { return k + p.count }
            k += 1
        }
        return nil
    }

    /// A recognizer for a vocabulary whose root has `localName`.
    static func recognize(_ head: InputHead, localName: String) -> Recognition {
        switch find(head) {
        case .name(let n): return n.elementsEqual(localName.utf8) ? .yes : .no
        case .none: return .no
        case .needMore: return .needMore
        }
    }
}
