/// The text of one element, collected from libxml2's pieces, and the conversions the XML
/// vocabularies share. At most `limit` bytes are kept: a longer text is cut there (at a
/// character boundary), and `reportCut` says so, so that nothing is lost unsaid.
struct ElementText {
    static let limit = 1 << 20
    /// The text is `storage[..<count]`; the rest is room, kept from element to element. An
    /// element's start and each piece of its text are then a count set and a few bytes copied,
    /// where `removeAll(keepingCapacity:)` and `append(contentsOf:)` went through the array's
    /// general code every time (a GPX point has five texts: 1.6% of gpx2fix's instructions).
    private var storage = [UInt8](repeating: 0, count: 256)
    private(set) var count = 0
    /// Bytes of the text past `limit`, not kept.
    private(set) var cutBytes = 0

    init() {}

    /// The text's bytes.
    var bytes: ArraySlice<UInt8> { storage[..<count] }

    mutating func reset() {
        count = 0
        cutBytes = 0
    }

    // SAFETY: `piece` is libxml2's text, valid during the callback that hands it over; it is copied
    // into `storage` here.
    @inline(__always)
    mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
        // Once cut, the text keeps nothing more: a piece after a cut that dropped half a
        // character would otherwise be kept after the gap.
        if cutBytes > 0 {
            cutBytes += piece.count
            return
        }
        let room = ElementText.limit - count
        if piece.count <= room {
            copy(piece)
            return
        }
        if room > 0 { copy(UnsafeBufferPointer(rebasing: piece.prefix(room))) }
        cutBytes += piece.count - max(room, 0)
        // Never keep half a UTF-8 character: drop continuation bytes, then their lead byte.
        if room > 0 {
            var end = count
            while end > 0, storage[end - 1] & 0xC0 == 0x80 { end -= 1 }
            if end > 0, storage[end - 1] >= 0xC0 {
                let lead = storage[end - 1]
                let need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                if count - (end - 1) < need {
                    cutBytes += count - (end - 1)
                    count = end - 1
                }
            }
        }
    }

    /// Appends `piece` (at most `limit` bytes in all), growing the room when it is short.
    // SAFETY: `piece` is the caller's, valid for the call; `storage` has room for `count +
    // piece.count` bytes once it has grown, and only those are written.
    @inline(__always)
    private mutating func copy(_ piece: UnsafeBufferPointer<UInt8>) {
        let n = piece.count
        guard n > 0, let from = piece.baseAddress else { return }
        let needed = count + n
        if needed > storage.count {
            storage.append(contentsOf: repeatElement(0, count: max(needed, 2 * storage.count) - storage.count))
        }
        let at = count
        storage.withUnsafeMutableBufferPointer { b in
            guard let to = b.baseAddress.map({ $0 + at }) else { return }
            // A coordinate or a time is a few bytes: a loop, not a call.
            if n <= 32 {
                for i in 0..<n { to[i] = from[i] }
            } else {
                to.update(from: from, count: n)
            }
        }
        count = needed
    }

    /// Says, once the element has ended, that its text was longer than `limit` and was cut:
    /// a problem (exit 1), since part of the input is not in the output. The element's name
    /// is worked out only then: a vocabulary's names are enumeration cases, and making one a
    /// String on every element (`"\(case)"` goes through the runtime's reflection) cost GPX
    /// three times libxml2's own parse.
    func reportCut(_ element: @autoclosure () -> String, line: Int, sink: FixSink) throws {
        guard cutBytes > 0 else { return }
        try sink.problem(
            line: line,
            "the text of <\(element())> is \(bytes.count + cutBytes) bytes, more than the \(ElementText.limit) (1 MiB) kept: its first \(bytes.count) bytes are used"
        )
    }

    /// Whether the text is empty or white space only: such an element says nothing.
    var isBlank: Bool { bytes.allSatisfy(isXMLSpace) }

    /// Where the text is, without XML white space at its ends.
    private var trimmedRange: Range<Int> {
        var s = 0
        var e = bytes.count
        while s < e, isXMLSpace(bytes[s]) { s += 1 }
        while e > s, isXMLSpace(bytes[e - 1]) { e -= 1 }
        return s..<e
    }

    /// The text without XML white space at its ends.
    var trimmed: String { String(decoding: bytes[trimmedRange], as: UTF8.self) }

    /// For a message: the trimmed text, shortened and escaped.
    var shown: String {
        let t = Array(trimmed.utf8)
        return escapedForMessage(t.prefix(60)) + (t.count > 60 ? "..." : "")
    }

    // SAFETY: `bytes`' storage, read by the parser during the closure only.
    var number: Double? { bytes.withUnsafeBufferPointer { DecimalNumber.parse($0, trimmingXMLSpace: true) } }

    var timestamp: Timestamp? {
        let r = trimmedRange
        // SAFETY: `bytes`' storage, lent for the closure; `r` is a range inside it
        // (`trimmedRange`).
        return bytes.withUnsafeBufferPointer { Timestamp.parse(UnsafeBufferPointer(rebasing: $0[r])) }
    }
}

/// Compares a NUL-terminated name from libxml2 with a literal.
// SAFETY: `p` is a NUL-terminated name from libxml2, valid during the callback; at most `n + 1`
// bytes are read, and a shorter name differs at its NUL first. `w` is the literal's bytes, in the
// binary.
@inline(__always)
func xmlNameIs(_ p: UnsafePointer<UInt8>, _ s: StaticString) -> Bool {
    let n = s.utf8CodeUnitCount
    let w = s.utf8Start
    for k in 0..<n where p[k] != w[k] { return false }
    return p[n] == 0
}
