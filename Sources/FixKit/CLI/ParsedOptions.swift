/// Command-line arguments parsed against a tool's option table: GNU-style long options
/// (`--name VALUE` or `--name=VALUE`), `--` to end them, and operands. `-` is an operand
/// (standard input). Every accessor that converts a value names the option when it fails.
public struct ParsedOptions: Sendable {
    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var operands: [String] = []

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
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    public func string(_ name: String) -> String? { values[name] }

    /// A number option; `off` gives nil when `allowOff`.
    public func double(_ name: String, default def: Double?, range: ClosedRange<Double>? = nil, allowOff: Bool = false)
        throws(UsageError) -> Double?
    {
        guard let text = values[name] else { return def }
        if allowOff, text == "off" { return nil }
        guard let v = DecimalNumber.parse(text) else {
            throw UsageError("--\(name) '\(text)' is not a number\(allowOff ? " or 'off'" : "")")
        }
        if let range, !range.contains(v) {
            throw UsageError(
                "--\(name) \(text) is out of range: expected \(DecimalNumber.text(range.lowerBound)) to \(range.upperBound == .greatestFiniteMagnitude ? "any larger number" : DecimalNumber.text(range.upperBound))"
            )
        }
        return v
    }

    /// A number option that has a default, so always a number.
    public func double(_ name: String, default def: Double, range: ClosedRange<Double>) throws(UsageError) -> Double {
        try double(name, default: Optional(def), range: range) ?? def
    }

    /// A whole-number option in `range`. The value is read as a number first (`3`, `3.0` and
    /// `3e0` are all 3), so that a value out of range says so whether or not it is whole.
    public func integer(_ name: String, default def: Int?, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return def }
        guard
            let v = try double(name, default: nil, range: Double(range.lowerBound)...Double(range.upperBound)),
            v == v.rounded()
        else {
            throw UsageError("--\(name) '\(text)' is not a whole number")
        }
        return Int(v)
    }

    /// A whole-number option that has a default, so always a number.
    public func integer(_ name: String, default def: Int, range: ClosedRange<Int>) throws(UsageError) -> Int {
        try integer(name, default: Optional(def), range: range) ?? def
    }

    /// An option whose value is one of the words of `T` (or an alias); nil when not given.
    public func choice<T: OptionChoice>(_ name: String, _ type: T.Type) throws(UsageError) -> T? {
        guard let text = values[name] else { return nil }
        guard let v = T(rawValue: text) ?? T.aliases.first(where: { $0.word == text })?.value else {
            throw UsageError("--\(name) '\(text)' is not \(T.what): expected \(T.listed())")
        }
        return v
    }

    /// A time option in RFC 3339.
    public func time(_ name: String) throws(UsageError) -> Timestamp? {
        guard let text = values[name] else { return nil }
        guard let t = Timestamp.parse(text) else {
            throw UsageError("--\(name) '\(text)' is not an RFC 3339 time such as 2026-01-01T09:00:00Z")
        }
        return t
    }

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
