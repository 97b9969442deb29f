#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one place where a tool's problems become messages on standard error and an exit status.
///
/// Every data problem has a location: `TOOL: FILE:LINE: message`, with `-` for standard input
/// (SPEC "Errors and exit status"). A reported problem makes the exit status 1; under
/// `--strict` the first one stops the tool.
public final class Diagnostics {
    public let tool: String
    public let strict: Bool
    public private(set) var problemCount = 0
    let fd: Int32
    /// A progress line on the same standard error, erased before every message.
    var statusLine: ProgressLine?

    public init(tool: String, strict: Bool, fd: Int32 = 2) {
        self.tool = tool
        self.strict = strict
        self.fd = fd
    }

    /// Reports input that could not be used. Throws `StrictStop` under `--strict`, and then says
    /// that the tool stopped instead of what would have been skipped.
    ///
    /// Of each kind of problem (`kind(of:)`), the first `shownPerKind` of an input are shown;
    /// later ones are counted, and `endInput` says how many there were, so a binary file
    /// given to an NDJSON tool writes a screenful, not a line per line of it.
    public func problem(_ input: InputName?, line: Int?, _ message: String) throws(StrictStop) {
        problemCount += 1
        if strict {
            emit(tool + ": " + (input.map { ErrorLocation($0, line: line).prefix } ?? "") + Self.stopping(message))
            throw StrictStop()
        }
        if input?.path != shownFor?.path {
            endInput()
            shownFor = input
        }
        let kind = Self.kind(of: message)
        let shown = shownPerInput[kind, default: 0]
        if shown >= Self.shownPerKind || (shown == 0 && shownPerInput.count >= Self.kindsTracked) {
            hidden += 1
            return
        }
        shownPerInput[kind] = shown + 1
        var text = tool + ": " + (input.map { ErrorLocation($0, line: line).prefix } ?? "") + message
        if shown + 1 == Self.shownPerKind {
            text += " (\(Self.shownPerKind) problems like this: more of them in this input are counted, not shown)"
        }
        emit(text)
    }

    /// How many problems of one kind an input shows (documented in every tool's man page).
    public static let shownPerKind = 10
    /// Kinds told apart per input; problems of further kinds are counted with the hidden ones.
    static let kindsTracked = 1000
    private var shownFor: InputName?
    private var shownPerInput: [String: Int] = [:]
    private var hidden = 0

    /// Says how many problems of the input that had the last ones were counted, not shown.
    /// Called at the end of each input and of the run.
    public func endInput() {
        defer {
            shownFor = nil
            shownPerInput = [:]
            hidden = 0
        }
        guard hidden > 0 else { return }
        let name = shownFor.map { $0.shown + ": " } ?? ""
        emit("\(tool): \(name)\(hidden) more problem\(hidden == 1 ? "" : "s") like those above not shown")
    }

    /// What makes two messages the same problem: their words without the ones that quote the
    /// input (a number, a quoted or escaped text, a tag), so `lat 95 is out of range` and
    /// `lat 97 is out of range` are one kind.
    static func kind(of message: String) -> String {
        var out = ""
        for word in message.split(separator: " ") {
            guard
                word.unicodeScalars.allSatisfy({
                    ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ",;:.()-".unicodeScalars.contains($0)
                })
            else { continue }
            out += word
            out += " "
        }
        return out
    }

    /// Under `--strict` the tool stops at the problem: the message's last clause, which says
    /// what a run without it does (`; line skipped`, `; left out`), says so instead.
    static func stopping(_ message: String) -> String {
        let bytes = Array(message.utf8)
        for separator in [UInt8(ascii: ";"), UInt8(ascii: ":")] {
            guard
                let at = bytes.indices.last(where: {
                    bytes[$0] == separator && $0 + 1 < bytes.count && bytes[$0 + 1] == 0x20
                })
            else { continue }
            let tail = String(decoding: bytes[(at + 2)...], as: UTF8.self)
            guard tail.utf8.count <= 40,
                tail.unicodeScalars.allSatisfy({ ($0 >= "a" && $0 <= "z") || $0 == " " }),
                ["skipped", "left out", "ignored", "dropped"].contains(where: {
                    tail.hasSuffix($0) || tail.hasPrefix($0)
                })
            else { continue }
            return String(decoding: bytes[..<at], as: UTF8.self) + "; stopped (--strict)"
        }
        return message
    }

    /// Says the error that ends the tool: `TOOL: FILE:LINE: message`, or `TOOL: message` when it
    /// is about the run as a whole.
    public func report(_ error: some ToolError) {
        emit(tool + ": " + (error.location?.prefix ?? "") + error.message)
    }

    /// Says something that is not a problem (a summary of expected noise, a default used).
    public func note(_ message: String) {
        emit(tool + ": " + message)
    }

    func emit(_ line: String) {
        statusLine?.clear()
        var bytes = Array(printableMessage(line).utf8)
        bytes.append(0x0A)
        System.writeAll(fd, bytes)  // on failure: nowhere left to complain to
    }

    public var exitStatus: Int32 { problemCount > 0 ? 1 : 0 }
}

/// Thrown by `Diagnostics.problem` under `--strict`: the tool stops with exit 1.
public struct StrictStop: Error {}

/// An option's file (such as fencerule's fences) that cannot be used: exit 2.
public struct OptionFileError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
