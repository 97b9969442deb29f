/// Bytes as printable text for a message: valid UTF-8 as it is, control bytes and invalid
/// UTF-8 as `\xNN` escapes, so that a binary file never writes raw bytes to a terminal.
func escapedForMessage(_ bytes: some Collection<UInt8>) -> String {
    var out = ""
    var it = Array(bytes)[...]
    while let b = it.first {
        if b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\\") {
            out.unicodeScalars.append(Unicode.Scalar(b))
            it = it.dropFirst()
            continue
        }
        if b >= 0xC2 && b <= 0xF4 {
            // A whole UTF-8 sequence is shown as the character.
            let need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            if it.count >= need {
                let seq = it.prefix(need)
                var decoder = UTF8()
                var iterator = seq.makeIterator()
                if case .scalarValue(let scalar) = decoder.decode(&iterator),
                    !scalar.properties.generalCategory.isControl
                {
                    out.unicodeScalars.append(scalar)
                    it = it.dropFirst(need)
                    continue
                }
            }
        }
        out += b == UInt8(ascii: "\\") ? "\\\\" : "\\x" + String(b, radix: 16, uppercase: false).leftPadded(2)
        it = it.dropFirst()
    }
    return out
}

/// A message line made safe for a terminal, whatever was put into it: control and format
/// characters (tab included: it came from the input, and a message is one line), and the bytes that `ByteText` holds, as `\xNN` (`\u{NNNN}` past
/// U+00FF); everything else, backslashes included, as it is, so text already escaped by
/// `escapedForMessage` is left alone. `Diagnostics` passes every line through it.
func printableMessage(_ line: String) -> String {
    func unprintable(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || s.value >= 0x7F && (s.value < 0xA0 || s.properties.generalCategory.isControl)
    }
    guard line.unicodeScalars.contains(where: unprintable) else { return line }
    var out = String.UnicodeScalarView()
    for s in line.unicodeScalars {
        guard unprintable(s) else {
            out.append(s)
            continue
        }
        let v = s.value >= ByteText.base + 0x80 ? s.value - ByteText.base : s.value
        let text = v <= 0xFF ? "\\x" + String(v, radix: 16).leftPadded(2) : "\\u{" + String(v, radix: 16) + "}"
        out.append(contentsOf: text.unicodeScalars)
    }
    return String(out)
}

/// A path or name held as `ByteText` (bytes that need not be UTF-8), as a message shows it.
func shownPath(_ s: String) -> String { escapedForMessage(ByteText.bytes(s)) }

/// A name read from input (a trace), quoted for a message: printable, bytes escaped.
func quoted(_ s: String) -> String { "\"" + escapedForMessage(ByteText.bytes(s)) + "\"" }

extension Unicode.GeneralCategory {
    fileprivate var isControl: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String {
        count >= n ? self : String(repeating: "0", count: n - count) + self
    }
}
