/// The values of an option that takes one of a few words: the cases of a type. The option's
/// table entry (`OptionSpec(_:value:choices:help:)`), its help, shell completion, parsing
/// (`ParsedOptions`, which checks the word, and `ParsedOptions.choice`) and the error for a wrong
/// word all take the words from here.
public protocol OptionChoice: CaseIterable, RawRepresentable, Sendable where RawValue == String {
    /// What a value is, for the error message: "a rule" in `--rule 'x' is not a rule`.
    static var what: String { get }
    /// Other words accepted, after the cases (`--course off` is `keep`).
    static var aliases: [(word: String, value: Self)] { get }
}

extension OptionChoice {
    public static var aliases: [(word: String, value: Self)] { [] }

    /// Every word accepted, in order: the cases, then the aliases.
    public static var words: [String] { allCases.map(\.rawValue) + aliases.map(\.word) }

    /// The words as a sentence lists them: `a, b or c`, with `(default)` after the default.
    public static func listed(default def: Self? = nil) -> String {
        let words =
            allCases.map { $0.rawValue + ($0.rawValue == def?.rawValue ? " (default)" : "") } + aliases.map(\.word)
        guard let last = words.last else { return "" }
        return words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
    }
}

extension OptionSpec {
    /// An option that takes one of the words of `T`.
    public init<T: OptionChoice>(_ name: String, value: String, choices: T.Type, help: String) {
        self.init(name, value: value, choices: T.words, kind: .choice(what: T.what, expected: T.listed()), help: help)
    }
}
