/// One command-line option. Each tool has one table of these; the same table drives parsing
/// (each value is checked against the option's `kind` there) and `--help`, so the help cannot
/// drift from what is parsed.
public struct OptionSpec: Sendable {
    /// Long name without the dashes: `max-hacc`.
    public var name: String
    /// The value's placeholder in help (`M`, `FILE`), or nil for a flag.
    public var value: String?
    /// One or two sentences for `--help`.
    public var help: String
    /// The values the option takes when they are a fixed list (`--rule`), for shell
    /// completion; empty when any value of its kind goes.
    public var choices: [String]
    /// What the value must be; `ParsedOptions` checks it, and the tool reads it typed.
    public var kind: OptionKind

    /// A flag (no `value`), or an option whose value the tool reads itself (a name, a file, a
    /// list): any text is accepted here. `choices` only fill shell completion.
    public init(_ name: String, value: String? = nil, choices: [String] = [], help: String) {
        self.init(name, value: value, choices: choices, kind: value == nil ? .flag : .text, help: help)
    }

    init(_ name: String, value: String?, choices: [String] = [], kind: OptionKind, help: String) {
        self.name = name
        self.value = value
        self.choices = choices
        self.kind = kind
        self.help = help
    }

    /// A number in `range` (`ParsedOptions.double`); with `orOff`, also the word `off`, a rule
    /// turned off.
    public static func number(
        _ name: String, value: String, in range: ClosedRange<Double>, orOff: Bool = false, help: String
    ) -> OptionSpec {
        OptionSpec(name, value: value, kind: .number(range, orOff: orOff), help: help)
    }

    /// A whole number in `range` (`ParsedOptions.integer`).
    public static func integer(_ name: String, value: String, in range: ClosedRange<Int>, help: String)
        -> OptionSpec
    {
        OptionSpec(name, value: value, kind: .integer(range), help: help)
    }

    /// A time in RFC 3339 (`ParsedOptions.time`).
    public static func time(_ name: String, value: String = "TIME", help: String) -> OptionSpec {
        OptionSpec(name, value: value, kind: .time, help: help)
    }

    /// Options every tool takes, appended to each tool's own table.
    public static let common: [OptionSpec] = [
        OptionSpec("strict", help: "Stop at the first input problem (exit 1) instead of skipping it."),
        OptionSpec("help", help: "Print this help and exit."),
        OptionSpec("version", help: "Print the version and exit."),
    ]

    /// The same for a tool that reads no input (fixsim), whose --strict has nothing to stop at.
    public static let commonWithoutInput: [OptionSpec] =
        [
            OptionSpec("strict", help: "Accepted, as by every tool; with no input to read it changes nothing.")
        ] + common.dropFirst()
}

/// What a tool says about itself in `--help`.
public struct ToolDescription: Sendable {
    public var name: String
    /// Operand part of the usage line, after the options: `[FILE]...`.
    public var operands: String
    /// One line: what the tool does.
    public var summary: String
    /// Paragraphs after the options: details and examples.
    public var details: String
    public var options: [OptionSpec]

    public init(name: String, operands: String = "[FILE]...", summary: String, details: String, options: [OptionSpec]) {
        self.name = name
        self.operands = operands
        self.summary = summary
        self.details = details
        self.options = options + (operands.isEmpty ? OptionSpec.commonWithoutInput : OptionSpec.common)
    }

    /// The columns --help fills: it fits an 80-column terminal with the cursor after the
    /// last character (GNU's coding standards ask the same of --help).
    public static let helpWidth = 79

    public var helpText: String {
        let width = ToolDescription.helpWidth
        var out = "Usage: \(name) [OPTION]...\(operands.isEmpty ? "" : " " + operands)\n"
        out += wrap(summary, width: width).joined(separator: "\n") + "\n\n"
        if !operands.isEmpty {
            out += "Reads the FILEs in order, or standard input when there are none or a FILE is -.\n\n"
        }
        out += "Options:\n"
        let labels = options.map { ($0.name == "help" ? "-h, --" : "--") + $0.name + ($0.value.map { " " + $0 } ?? "") }
        let column = min(24, (labels.map(\.count).max() ?? 0) + 2)
        for (spec, label) in zip(options, labels) {
            let lines = wrap(spec.help, width: width - 1 - column - 2)
            var first = "  " + label
            if label.count + 2 > column {
                out += first + "\n"
                first = ""
            }
            for (k, line) in lines.enumerated() {
                let lead = k == 0 && !first.isEmpty ? first : ""
                out += lead.padding(column + 2) + line + "\n"
            }
        }
        if !details.isEmpty { out += "\n" + ToolDescription.fill(details, width: width) + "\n" }
        let status =
            operands.isEmpty
            ? "Exit status: 0 when everything was written; 1 when the output could not be written; 2 for bad usage."
            : "Exit status: 0 when all input was understood; 1 when some input was skipped or a file could not be read (reported on standard error as \(name):\u{00A0}FILE:LINE:\u{00A0}...); 2 for bad usage or an unreadable option file."
        out += "\n" + wrap(status, width: width).joined(separator: "\n") + "\nFull documentation: man \(name)\n"
        return out
    }

    /// `details` as --help prints it: each paragraph of prose (lines that start with no
    /// space) filled to `width` columns, so that no hand-wrapped line runs past it; indented
    /// lines (examples, tables) as written, and blank lines between paragraphs kept.
    static func fill(_ details: String, width: Int) -> String {
        var out: [String] = []
        var prose: [Substring] = []
        func flush() {
            if !prose.isEmpty { out += wrap(prose.joined(separator: " "), width: width) }
            prose = []
        }
        for line in details.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty || line.first == " " {
                flush()
                out.append(String(line))
            } else {
                prose.append(line)
            }
        }
        flush()
        // A trailing newline of the literal is not a blank line to keep.
        while out.last == "" { out.removeLast() }
        return out.joined(separator: "\n")
    }

    /// A table's rows for `details`: each name in a column of `nameWidth`, its text filled to
    /// `width` with the lines after the first indented under it.
    static func table(_ rows: [(name: String, text: String)], nameWidth: Int, width: Int) -> String {
        let indent = 2 + nameWidth + 1
        return rows.map { row in
            wrap(row.text, width: width - indent).enumerated().map { k, line in
                (k == 0 ? "  " + row.name.padding(nameWidth) + " " : String(repeating: " ", count: indent)) + line
            }.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

/// `text` filled into lines of at most `width` characters (a word longer than that on a line
/// of its own), broken at spaces but never between a number and its unit ("500 m", "25 m/s")
/// nor at a no-break space (U+00A0), which comes out as a plain space.
func wrap(_ text: String, width: Int) -> [String] {
    var words: [String] = []
    for word in text.split(separator: " ") {
        if let last = words.last, last.last?.isNumber == true, isUnit(word) {
            words[words.count - 1] = last + " " + word
        } else {
            words.append(String(word))
        }
    }
    var lines: [String] = []
    var current = ""
    for word in words {
        if !current.isEmpty, current.count + 1 + word.count > width {
            lines.append(current)
            current = ""
        }
        current += (current.isEmpty ? "" : " ") + word
    }
    if !current.isEmpty || lines.isEmpty { lines.append(current) }
    return lines.map { String($0.map { $0 == "\u{00A0}" ? " " : $0 }) }
}

/// Whether a word is a unit the tools' texts give after a number (with any punctuation after
/// it): metres, kilometres, metres a second, hours, minutes, seconds, milliseconds, megabytes.
private func isUnit(_ word: Substring) -> Bool {
    let bare = word.prefix { !",.;:)".contains($0) }
    return ["m", "km", "m/s", "h", "min", "s", "ms", "MB", "MiB"].contains(bare)
}
