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

    /// Reports input that could not be used. Throws `StrictStop` under `--strict`.
    public func problem(_ input: InputName?, line: Int?, _ message: String) throws(StrictStop) {
        problemCount += 1
        var text = tool + ": "
        if let input {
            text += input.shown
            if let line { text += ":\(line)" }
            text += ": "
        }
        emit(text + message)
        if strict { throw StrictStop() }
    }

    /// Says something that is not a problem (a summary of expected noise, a default used).
    public func note(_ message: String) {
        emit(tool + ": " + message)
    }

    func emit(_ line: String) {
        statusLine?.clear()
        var bytes = Array(printableMessage(line).utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc_write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 {
                    if n < 0, errno == EINTR { continue }
                    return  // nowhere left to complain to
                }
                offset += n
            }
        }
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
