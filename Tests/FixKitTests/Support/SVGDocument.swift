import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An SVG (or the SVG inside fixplot's HTML page) read with Foundation's XML parser: every
/// element with its attributes and the classes of its ancestors, for tests that look for
/// what SPEC says each drawn record carries.
struct SVGDocument {
    struct Element {
        var name: String
        var attributes: [String: String]
        /// The `class` of each ancestor, outermost first.
        var ancestors: [String]
        var text = ""
        var classes: [String] { (attributes["class"] ?? "").split(separator: " ").map(String.init) }
        func has(_ c: String) -> Bool { classes.contains(c) }
        func number(_ a: String) -> Double? { attributes[a].flatMap(Double.init) }
    }

    var elements: [Element] = []

    init(_ data: Data) throws {
        var bytes = data
        // From the page: the <svg> element alone (the page is HTML, not XML).
        if let text = String(data: data, encoding: .utf8), let start = text.range(of: "<svg"),
            let end = text.range(of: "</svg>")
        {
            bytes = Data(text[start.lowerBound..<end.upperBound].utf8)
        }
        let delegate = Delegate()
        let parser = XMLParser(data: bytes)
        parser.delegate = delegate
        guard parser.parse() else {
            throw TestFailure(
                "SVG is not well formed: \(parser.parserError.map { "\($0)" } ?? "?") at line \(parser.lineNumber)")
        }
        elements = delegate.elements
    }

    func all(_ name: String, class c: String? = nil) -> [Element] {
        elements.filter { $0.name == name && (c == nil || $0.has(c!)) }
    }

    func all(class c: String) -> [Element] { elements.filter { $0.has(c) } }

    final class Delegate: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var stack: [Int] = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let ancestors = stack.map { elements[$0].attributes["class"] ?? "" }
            elements.append(Element(name: name, attributes: attributes, ancestors: ancestors))
            stack.append(elements.count - 1)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let k = stack.last { elements[k].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }
    }
}

/// The vertices of a path's `d` as fixplot writes it: `M x y`, then `l` with relative pairs
/// (the letter repeated or not), `h`, `v`, `m`, `z`; each subpath a polyline.
func pathVertices(_ d: String) throws -> [[(Double, Double)]] {
    var lines: [[(Double, Double)]] = []
    var tokens: [String] = []
    var current = ""
    for c in d {
        if c.isLetter {
            if !current.isEmpty { tokens.append(current) }
            tokens.append(String(c))
            current = ""
        } else if c == "-" {
            if !current.isEmpty { tokens.append(current) }
            current = "-"
        } else if c == " " || c == "," {
            if !current.isEmpty { tokens.append(current) }
            current = ""
        } else if c == ".", current.contains(".") {
            tokens.append(current)
            current = "."
        } else {
            current.append(c)
        }
    }
    if !current.isEmpty { tokens.append(current) }
    var i = 0
    var command = ""
    var x = 0.0
    var y = 0.0
    func number() throws -> Double {
        guard i < tokens.count, let v = Double(tokens[i]) else {
            throw TestFailure("bad path data at token \(i): \(d.prefix(80))")
        }
        i += 1
        return v
    }
    while i < tokens.count {
        if tokens[i].first!.isLetter {
            command = tokens[i]
            i += 1
            if command == "z" || command == "Z" { continue }
        }
        switch command {
        case "M":
            x = try number()
            y = try number()
            lines.append([(x, y)])
            command = "L"
        case "m":
            x += try number()
            y += try number()
            lines.append([(x, y)])
            command = "l"
        case "L":
            x = try number()
            y = try number()
            lines[lines.count - 1].append((x, y))
        case "l":
            x += try number()
            y += try number()
            lines[lines.count - 1].append((x, y))
        case "h":
            x += try number()
            lines[lines.count - 1].append((x, y))
        case "V":
            y = try number()
            lines[lines.count - 1].append((x, y))
        case "v":
            y += try number()
            lines[lines.count - 1].append((x, y))
        default:
            throw TestFailure("unexpected path command \(command) in \(d.prefix(80))")
        }
    }
    return lines
}

/// The distance from a point to a polyline.
func distance(_ p: (Double, Double), toPolyline line: [(Double, Double)]) -> Double {
    guard line.count > 1 else { return hypot(p.0 - line[0].0, p.1 - line[0].1) }
    var best = Double.infinity
    for k in 1..<line.count {
        let a = line[k - 1]
        let b = line[k]
        let dx = b.0 - a.0
        let dy = b.1 - a.1
        let len2 = dx * dx + dy * dy
        let t = len2 == 0 ? 0 : max(0, min(1, ((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2))
        best = min(best, hypot(p.0 - (a.0 + t * dx), p.1 - (a.1 + t * dy)))
    }
    return best
}
