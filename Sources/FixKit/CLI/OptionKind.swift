/// What an option's value must be, in its table entry (`OptionSpec.kind`). `ParsedOptions`
/// checks every value given against it when the arguments are parsed (a bad one is a usage
/// error naming the option), and keeps it typed for the tool.
public enum OptionKind: Sendable, Equatable {
    /// No value: `--stats`.
    case flag
    /// Any text, which the tool reads itself: a name, a file, a list (`--preset a,b`).
    case text
    /// A number (`DecimalNumber.parse`) in the range; with `orOff`, also the word `off`.
    case number(ClosedRange<Double>, orOff: Bool)
    /// A whole number in the range. It is read as a number first (`3`, `3.0` and `3e0` are all
    /// 3), so that a value out of range says so whether or not it is whole.
    case integer(ClosedRange<Int>)
    /// A time in RFC 3339.
    case time
    /// One of the words in `OptionSpec.choices`, which are an `OptionChoice` type's words;
    /// `what` and `expected` make the error: `--rule 'x' is not a rule: expected a, b or c`.
    case choice(what: String, expected: String)
}
