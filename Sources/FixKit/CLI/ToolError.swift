#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one error protocol. Every error that can end a tool says what went wrong, where, which
/// exit status it gives, and whether the usage hint follows; `ToolMain.run` catches once and
/// asks these, so a new error type is one conformance, not another branch.
public protocol ToolError: Error {
    /// What went wrong, in words a user can act on, without the `TOOL: ` and location in front.
    var message: String { get }
    /// The input (and line) the message is about; nil when it is about the run as a whole.
    var location: ErrorLocation? { get }
    var exit: ToolExit { get }
    /// Whether `Try 'TOOL --help' for more information.` follows the message (bad usage).
    var showsUsage: Bool { get }
}

extension ToolError {
    public var location: ErrorLocation? { nil }
    public var showsUsage: Bool { false }
}

/// Where an error is: `FILE` or `FILE:LINE` in `TOOL: FILE:LINE: message` (`-` for standard
/// input).
public struct ErrorLocation: Sendable, Equatable {
    public var input: InputName
    /// 1-based; nil for the input as a whole.
    public var line: Int?

    public init(_ input: InputName, line: Int? = nil) {
        self.input = input
        self.line = line
    }

    /// `FILE:LINE: ` or `FILE: `, to follow `TOOL: `.
    var prefix: String {
        var text = input.shown
        if let line { text += ":\(line)" }
        return text + ": "
    }
}

/// How an error ends the tool.
public enum ToolExit: Sendable, Equatable {
    /// Say the message, then exit with this status (SPEC: 1 for input that could not be used
    /// or read, 2 for bad usage or an unreadable option file).
    case status(Int32)
    /// Say nothing more and exit as the problems reported so far say (0 or 1): a `--strict`
    /// stop, whose problem has been said, and a closed output pipe, which ends a tool quietly.
    case quietly
}

// MARK: The errors of the kit

extension UsageError: ToolError {
    public var exit: ToolExit { .status(2) }
    public var showsUsage: Bool { true }
}

extension OptionFileError: ToolError {
    public var exit: ToolExit { .status(2) }
}

extension ToolFailure: ToolError {
    public var exit: ToolExit { .status(1) }
}

extension StrictStop: ToolError {
    public var message: String { "stopped at the first input problem (--strict)" }
    public var exit: ToolExit { .quietly }
}

extension InputError: ToolError {
    public var message: String { reason }
    public var location: ErrorLocation? { ErrorLocation(name) }
    public var exit: ToolExit { .status(1) }
}

extension OutputError: ToolError {
    public var exit: ToolExit { self == .closed ? .quietly : .status(1) }
}

extension FixDecodingError: ToolError {
    public var exit: ToolExit { .status(1) }
}

extension JSONSyntaxError: ToolError {
    public var exit: ToolExit { .status(1) }
}

extension PlotRecordError: ToolError {
    public var exit: ToolExit { .status(1) }
}

extension GzipError: ToolError {
    var message: String { reason }
    var exit: ToolExit { .status(1) }
}

extension SpoolError: ToolError {
    var message: String { description }
    var exit: ToolExit { .status(1) }
}

extension FileReadError: ToolError {
    var message: String { "cannot read: \(SystemError.describe(errno))" }
    var exit: ToolExit { .status(1) }
}

extension XMLParserUnavailable: ToolError {
    var message: String { description }
    var exit: ToolExit { .status(1) }
}

/// An error from outside the kit (Foundation, the standard library): said as it describes
/// itself, with exit 2 while the options are being checked and 1 once input is being read.
struct ForeignError: ToolError {
    var error: any Error
    var exit: ToolExit
    var message: String { "\(error)" }
}

extension CSVRowDecoder.Bad: ToolError {
    var exit: ToolExit { .status(1) }
}
