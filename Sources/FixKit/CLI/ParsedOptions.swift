/// Command-line arguments parsed against a tool's option table: GNU-style long options
/// (`--name VALUE` or `--name=VALUE`), `--` to end them, and operands. `-` is an operand
/// (standard input). Every value is checked here against its option's kind in the table
/// (`OptionKind`: a number in its range, a whole number, a time, one of a type's words), so a
/// bad value is a usage error naming the option before the tool starts, and the tool reads
/// each value typed, without repeating the range. `--help` and `--version` win over a bad
/// value: with either, values are not checked.
public struct ParsedOptions: Sendable {
    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var operands: [String] = []
    /// The checked values, by option name: numbers (`off` ones in `turnedOff`), whole
    /// numbers and times.
    private var numbers: [String: Double] = [:]
    private var turnedOff: Set<String> = []
    private var integers: [String: Int] = [:]
    private var times: [String: Timestamp] = [:]

    public init(arguments: [String], table: [OptionSpec]) throws(UsageError) {
        var i = 0
        var onlyOperands = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyOperands || arg == "-" || !arg.hasPrefix("-") {
                operands.append(arg)
                continue
            }
            if arg == "--" {
                onlyOperands = true
                continue
            }
            if arg == "-h" {
                flags.insert("help")
                continue
            }
            guard arg.hasPrefix("--") else {
                throw UsageError("unknown option '\(arg)' (options are long, such as --help)")
            }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = table.first(where: { $0.name == name }) else {
                let near = table.filter { $0.name.hasPrefix(name) || name.hasPrefix($0.name) }.map { "--" + $0.name }
                let hint = near.isEmpty ? "" : " (did you mean \(near.joined(separator: " or "))?)"
                throw UsageError("unknown option '--\(name)'\(hint)")
            }
            if spec.value == nil {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if let inlineValue {
                values[name] = inlineValue
            } else {
                guard i < arguments.count else {
                    throw UsageError("--\(name) needs a value (\(spec.value ?? "a value"))")
                }
                values[name] = arguments[i]
                i += 1
            }
        }
        if flags.contains("help") || flags.contains("version") { return }
        // The last value given of each option, in the table's order.
        for spec in table {
            guard let text = values[spec.name] else { continue }
            try check(text, spec)
        }
    }

    /// Checks `text`, the value of `spec`'s option, against its kind, and keeps it typed.
    private mutating func check(_ text: String, _ spec: OptionSpec) throws(UsageError) {
        let name = spec.name
        switch spec.kind {
        case .flag, .text:
            return
        case .number(let range, let orOff):
            if orOff, text == "off" {
                turnedOff.insert(name)
                return
            }
            numbers[name] = try ParsedOptions.number(text, name: name, in: range, orOff: orOff)
        case .integer(let range):
            // Read as a number first (`3`, `3.0` and `3e0` are all 3), so that a value out of
            // range says so whether or not it is whole.
            let v = try ParsedOptions.number(
                text, name: name, in: Double(range.lowerBound)...Double(range.upperBound), orOff: false)
            guard v == v.rounded() else { throw UsageError("--\(name) '\(text)' is not a whole number") }
            integers[name] = Int(v)
        case .time:
            guard let t = Timestamp.parse(text) else {
                throw UsageError("--\(name) '\(text)' is not an RFC 3339 time such as 2026-01-01T09:00:00Z")
            }
            times[name] = t
        case .choice(let what, let expected):
            guard spec.choices.contains(text) else {
                throw UsageError("--\(name) '\(text)' is not \(what): expected \(expected)")
            }
        }
    }

    private static func number(_ text: String, name: String, in range: ClosedRange<Double>, orOff: Bool)
        throws(UsageError) -> Double
    {
        guard let v = DecimalNumber.parse(text) else {
            throw UsageError("--\(name) '\(text)' is not a number\(orOff ? " or 'off'" : "")")
        }
        guard range.contains(v) else {
            throw UsageError(
                "--\(name) \(text) is out of range: expected \(DecimalNumber.text(range.lowerBound)) to \(range.upperBound == .greatestFiniteMagnitude ? "any larger number" : DecimalNumber.text(range.upperBound))"
            )
        }
        return v
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    public func string(_ name: String) -> String? { values[name] }

    /// A number option's value (in its table range), nil when it was not given or was `off`.
    public func double(_ name: String) -> Double? { numbers[name] }

    /// A number option's value, `def` when it was not given.
    public func double(_ name: String, default def: Double) -> Double { numbers[name] ?? def }

    /// A number option that can be turned off: nil for `off`, `def` when it was not given.
    public func double(_ name: String, default def: Double?) -> Double? {
        turnedOff.contains(name) ? nil : numbers[name] ?? def
    }

    /// A whole-number option's value (in its table range), nil when it was not given.
    public func integer(_ name: String) -> Int? { integers[name] }

    /// A whole-number option's value, `def` when it was not given.
    public func integer(_ name: String, default def: Int) -> Int { integers[name] ?? def }

    /// An option whose value is one of the words of `T` (or an alias); nil when not given.
    public func choice<T: OptionChoice>(_ name: String, _ type: T.Type) -> T? {
        guard let text = values[name] else { return nil }
        return T(rawValue: text) ?? T.aliases.first(where: { $0.word == text })?.value
    }

    /// A time option (RFC 3339); nil when it was not given.
    public func time(_ name: String) -> Timestamp? { times[name] }

    /// The file an option names, where `-` is standard input (or output), as it is for an
    /// operand; standard input cannot be both an option's file and an input, so
    /// `--fences -` needs the fixes' files as operands.
    public func file(_ name: String, readsStandardInput: Bool) throws(UsageError) -> String? {
        guard let path = values[name] else { return nil }
        if readsStandardInput, path == "-", inputs.contains(where: \.isStandardInput) {
            throw UsageError(
                "--\(name) - reads standard input, which the fixes are read from too: name the fixes' files as operands"
            )
        }
        return path
    }

    /// Operands as inputs; none means standard input.
    public var inputs: [InputName] {
        operands.isEmpty ? [InputName("-")] : operands.map(InputName.init)
    }
}

/// Bad usage: exit 2, nothing written to standard output.
public struct UsageError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
