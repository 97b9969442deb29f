/// Edits of a record's line that leave every other byte as it was: how a filter removes one
/// member or adds one without re-encoding, so that the fields it does not use pass through
/// byte for byte.
public enum RawRecord {
    /// `line` without its top-level members named `name` (and one comma each). Returns nil when
    /// the line has no such member. The line must be a JSON object (as decoded already).
    // SAFETY: `line` is the caller's, read during this call only; every range below comes from the
    // scanner over it, so it lies inside it, and the bytes are copied into `out`.
    public static func removingMember(_ name: StaticString, from line: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        // Each member: where its separator starts (the previous value's end), its key, its end.
        var members: [(separator: Int, key: Int, end: Int, matches: Bool)] = []
        var s = JSONScanner(line)
        s.skipSpace()
        guard s.peek() == JSONByte.openBrace else { return nil }
        let afterBrace = s.position + 1
        var separator = afterBrace
        do throws(JSONSyntaxError) {
            try s.forEachMember { s, key throws(JSONSyntaxError) in
                try s.skipValue()
                let matches =
                    !key.escaped && key.range.count == name.utf8CodeUnitCount
                    && s.bytes[key.range].elementsEqual(
                        // SAFETY: the name's bytes: a StaticString's, valid for the program's life.
                        UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                members.append((separator, key.start, s.position, matches))
                separator = s.position
            }
        } catch {
            return nil
        }
        guard members.contains(where: \.matches) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(line.count)
        // SAFETY: `..<afterBrace` lies inside `line` (the scanner passed it); copied.
        out.append(contentsOf: UnsafeBufferPointer(rebasing: line[..<afterBrace]))
        var wroteOne = false
        for m in members where !m.matches {
            // The first member kept keeps the original first member's leading space, not a comma.
            let lead = wroteOne ? m.separator : afterBrace
            let leadEnd = wroteOne ? m.key : members[0].key
            // SAFETY: the member's ranges come from the scanner over `line`, so they lie inside it;
            // copied.
            out.append(contentsOf: UnsafeBufferPointer(rebasing: line[lead..<leadEnd]))
            // SAFETY: as above: inside `line`, copied.
            out.append(contentsOf: UnsafeBufferPointer(rebasing: line[m.key..<m.end]))
            wroteOne = true
        }
        // SAFETY: the last member's end is inside `line`; copied.
        out.append(contentsOf: UnsafeBufferPointer(rebasing: line[members[members.count - 1].end...]))
        return out
    }

    /// Appends `line` without the member that `span` (from `FixDecoder`) locates, and one comma:
    /// the same bytes as `removingMember`, without scanning the line again or allocating.
    /// Returns false, appending nothing, unless the span holds exactly one member.
    public static func appendRemoving(
        // SAFETY: `line` is the caller's, read during this call only; `span.end <= line.count` is
        // checked, and the span's other offsets are below its end.
        _ span: MemberSpan, from line: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]
    ) -> Bool {
        guard span.count == 1, span.end <= line.count else { return false }
        let head: Int
        let tail: Int
        if !span.isFirst {
            (head, tail) = (span.separator, span.end)  // from the previous value's end: its comma
        } else if span.nextKey >= 0 {
            (head, tail) = (span.key, span.nextKey)  // the first of several: up to the next key
        } else {
            (head, tail) = (span.afterBrace, span.end)  // the only member
        }
        // SAFETY: `..<head` and `tail...` lie inside `line` (head <= tail <= span.end <= count);
        // copied.
        out.append(contentsOf: UnsafeBufferPointer(rebasing: line[..<head]))
        // SAFETY: as above.
        out.append(contentsOf: UnsafeBufferPointer(rebasing: line[tail...]))
        return true
    }

    /// Appends `member` (`"key":value` bytes) as the object's last member, before its `}`.
    public static func appendingMember(
        // SAFETY: `line` is the caller's, read during this call only.
        _ member: some Collection<UInt8>, to line: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]
    ) {
        guard let at = memberInsertion(in: line) else {
            out.append(contentsOf: line)
            return
        }
        out.append(contentsOf: at.head)
        if at.comma { out.append(JSONByte.comma) }
        out.append(contentsOf: member)
        out.append(contentsOf: at.tail)
    }

    /// Where `appendingMember` puts a member: after `head` (and a comma, unless the object is
    /// empty), before `tail` (its last `}` and what follows); nil for a line with no `}`, which
    /// is left as it is. For a writer that writes a long member a piece at a time.
    static func memberInsertion(
        in line: UnsafeBufferPointer<UInt8>
    ) -> (head: UnsafeBufferPointer<UInt8>, comma: Bool, tail: UnsafeBufferPointer<UInt8>)? {
        var end = line.count
        while end > 0, line[end - 1] != JSONByte.closeBrace { end -= 1 }
        guard end > 0 else { return nil }
        var inner = end - 1
        while inner > 0, isXMLSpace(line[inner - 1]) { inner -= 1 }
        // SAFETY: `end - 1` is the index of the `}` found inside `line`: both parts lie inside it,
        // and are the caller's for as long as `line` is.
        return (
            UnsafeBufferPointer(rebasing: line[..<(end - 1)]), inner == 0 || line[inner - 1] != JSONByte.openBrace,
            UnsafeBufferPointer(rebasing: line[(end - 1)...])
        )
    }
}
