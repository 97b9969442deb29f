/// Appends SVG markup to a byte buffer. Text and attribute values are escaped (`&`, `<`, `>`,
/// `"`), numbers are written in a fixed form so that the same input always gives the same
/// bytes: pixels on the tenth-of-a-pixel grid (`PathGrid`), data values in the kit's shortest
/// round-trip form (`DecimalNumber`).
struct SVGWriter {
    var out: [UInt8] = []

    mutating func raw(_ s: String) {
        out.append(contentsOf: s.utf8)
    }

    mutating func raw(_ bytes: [UInt8]) {
        out.append(contentsOf: bytes)
    }

    /// Escaped text content or attribute value. Control characters other than tab and newline
    /// are not allowed in XML: they become U+FFFD.
    mutating func text(_ s: String) {
        SVGWriter.escape(s, into: &out)
    }

    static func escape(_ s: String, into out: inout [UInt8]) {
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            case 0x09, 0x0A: out.append(c)
            case 0..<0x20, 0x7F: out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            default: out.append(c)
            }
        }
    }

    /// ` name="value"`, the value escaped.
    mutating func attr(_ name: String, _ value: String) {
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: "=\"".utf8)
        text(value)
        out.append(UInt8(ascii: "\""))
    }

    /// ` name="12.3"`: pixels on the grid.
    mutating func px(_ name: String, _ value: Double) {
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: "=\"".utf8)
        PathGrid.write(pixels: value, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// ` name="0.9231"`: a data value in full precision.
    mutating func number(_ name: String, _ value: Double) {
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: "=\"".utf8)
        DecimalNumber.write(value, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// ` name="2026-01-01T09:00:00Z"`.
    mutating func time(_ name: String, _ t: Timestamp) {
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: "=\"".utf8)
        t.write(into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// `<text x y ...>content</text>`, with extra attributes as written.
    mutating func label(x: Double, y: Double, _ content: String, attributes: String = "") {
        raw("<text")
        px("x", x)
        px("y", y)
        if !attributes.isEmpty { raw(" " + attributes) }
        raw(">")
        text(content)
        raw("</text>\n")
    }
}

/// Colours that readers with any common colour-vision deficiency can tell apart: Okabe and
/// Ito's palette ("Color Universal Design", 2002; Wong, Nature Methods 8:441, 2011), in an
/// order that puts the colours most distinct from each other, and from white, first.
enum Palette {
    static let black = "#000000"
    static let orange = "#E69F00"
    static let skyBlue = "#56B4E9"
    static let bluishGreen = "#009E73"
    static let yellow = "#F0E442"
    static let blue = "#0072B2"
    static let vermillion = "#D55E00"
    static let reddishPurple = "#CC79A7"

    /// One colour per trace, in order of first appearance, repeating after eight.
    static let traces = [blue, vermillion, bluishGreen, reddishPurple, orange, skyBlue, black, yellow]

    static func trace(_ k: Int) -> String { traces[k % traces.count] }

    /// `--color time`: viridis (van der Walt and Smith, matplotlib 2015) in 16 steps, dark
    /// blue-purple early to yellow late: perceptually uniform, readable in grey and by
    /// colour-blind readers.
    static let time = [
        "#440154", "#481A6C", "#472F7D", "#414487", "#39568C", "#31688E", "#2A788E", "#23888E",
        "#1F988B", "#22A884", "#35B779", "#54C568", "#7AD151", "#A5DB36", "#D2E21B", "#FDE725",
    ]

    /// The colour of a reject's reason (fixfilter's, in SPEC order), grey for any other.
    static func reason(_ r: String) -> String {
        switch r {
        case "hacc": return orange
        case "age": return skyBlue
        case "speed": return vermillion
        case "course": return reddishPurple
        case "move": return "#7F7F7F"
        default: return black
        }
    }

    static func event(_ kind: String) -> String {
        switch kind {
        case "enter": return bluishGreen
        case "exit": return vermillion
        case "missed": return reddishPurple
        case "reselect": return skyBlue
        default: return black
        }
    }
}
