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

    public var helpText: String {
        var out = "Usage: \(name) [OPTION]...\(operands.isEmpty ? "" : " " + operands)\n\(summary)\n\n"
        if !operands.isEmpty {
            out += "Reads the FILEs in order, or standard input when there are none or a FILE is -.\n\n"
        }
        out += "Options:\n"
        let labels = options.map { ($0.name == "help" ? "-h, --" : "--") + $0.name + ($0.value.map { " " + $0 } ?? "") }
        let width = min(24, (labels.map(\.count).max() ?? 0) + 2)
        for (spec, label) in zip(options, labels) {
            let lines = wrap(spec.help, width: 78 - width - 2)
            var first = "  " + label
            if label.count + 2 > width {
                out += first + "\n"
                first = ""
            }
            for (k, line) in lines.enumerated() {
                let lead = k == 0 && !first.isEmpty ? first : ""
                out += lead.padding(width + 2) + line + "\n"
            }
        }
        if !details.isEmpty { out += "\n" + details + (details.hasSuffix("\n") ? "" : "\n") }
        if operands.isEmpty {
            out += """

                Exit status: 0 when everything was written; 1 when the output could not be
                written; 2 for bad usage.
                Full documentation: man \(name)

                """
        } else {
            out += """

                Exit status: 0 when all input was understood; 1 when some input was skipped or a
                file could not be read (reported on standard error as \(name): FILE:LINE: ...);
                2 for bad usage or an unreadable option file.
                Full documentation: man \(name)

                """
        }
        return out
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
        if !current.isEmpty, current.count + 1 + word.count > width {
            lines.append(current)
            current = ""
        }
        current += (current.isEmpty ? "" : " ") + word
    }
    if !current.isEmpty || lines.isEmpty { lines.append(current) }
    return lines
}
