#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The toolkit's version, printed by every tool's `--version`.
public let fixKitVersion = "0.1.0"

/// A command-line tool of the kit. `main.swift` only calls `ToolMain.run(T.self)`; the rest
/// (option parsing, help, exit status, a closed pipe, a failed write) is handled once here.
public protocol Tool {
    static var description: ToolDescription { get }
    /// Checks and converts the options; a bad value throws `UsageError` naming the option.
    init(options: ParsedOptions) throws
    /// Processes the inputs, writing records to `context.output` through a `RecordWriter`
    /// (`context.output.document(writer) { ... }`), never to its buffer.
    mutating func run(inputs: [InputName], context: ToolContext) throws
}

public struct ToolContext {
    public let output: OutputSink
    public let diagnostics: Diagnostics
    /// Called before every read of every input this context opens. The fuzzing harness
    /// (fuzz/) feeds a pipe from it, one chunk a read, to check that how the bytes arrive
    /// changes nothing.
    public var beforeEachRead: (() -> Void)?
    /// No operand was given, so standard input is read because of that alone: when it is a
    /// terminal, a one-line hint says so, rather than the tool seeming to hang (as jq does).
    var hintsAtTerminal = false

    public init(output: OutputSink, diagnostics: Diagnostics, beforeEachRead: (() -> Void)? = nil) {
        self.output = output
        self.diagnostics = diagnostics
        self.beforeEachRead = beforeEachRead
    }

    /// Reads every input as fix records and calls `body` with each fix, the bytes of its line,
    /// and where it came from (input and line number): blank lines are skipped, a line that is not a usable fix is reported as
    /// `TOOL: FILE:LINE: ...; line skipped`, an input that cannot be opened is reported, and
    /// the rest is still read.
    public func forEachFix(
        // SAFETY: the line handed to `body` points into the reader's buffer, valid during that call
        // only.
        _ inputs: [InputName], _ body: (Fix, UnsafeBufferPointer<UInt8>, InputName, Int) throws -> Void
    ) throws {
        try forEachFix(inputs) { fix, line, _, name, number in try body(fix, line, name, number) }
    }

    /// `forEachFix`, also handing over where the line's `course` member lies (for
    /// `RawRecord.appendRemoving`).
    public func forEachFix(
        // SAFETY: as above: valid during `body`'s call only.
        _ inputs: [InputName], _ body: (Fix, UnsafeBufferPointer<UInt8>, MemberSpan, InputName, Int) throws -> Void
    ) throws {
        var decoder = FixDecoder()
        for name in inputs {
            guard let input = try open(name) else { continue }
            let tooLong: (Int) throws -> Void = { number in
                try diagnostics.problem(name, line: number, InputReader.tooLongMessage)
            }
            // A read that fails part way (EIO) is reported like a file that cannot be opened, after
            // what was read before it, and the next input is read (as gpx2fix does).
            do {
                try input.forEachLine(tooLong: tooLong) { line, number in
                    if line.allSatisfy(isXMLSpace) { return }
                    let fix: Fix
                    do throws(FixDecodingError) {
                        fix = try decoder.decode(line)
                    } catch {
                        try diagnostics.problem(name, line: number, error.message + "; line skipped")
                        return
                    }
                    try body(fix, line, decoder.course, name, number)
                }
            } catch let error as InputError where error.name == name {
                try diagnostics.problem(name, line: nil, error.reason)
            }
            diagnostics.endInput()
        }
    }

    /// Opens an input, reporting one that cannot be opened (exit 1) and returning nil. With
    /// `decompressing`, gzip data is read decompressed.
    public func open(_ name: InputName, decompressing: Bool = false) throws -> InputReader? {
        if hintsAtTerminal, name.isStandardInput, System.isTerminal(0) {
            diagnostics.note(
                "reading standard input from the terminal (end it with Ctrl-D); name input files as operands, or see '\(diagnostics.tool) --help'"
            )
        }
        let output = self.output
        let hook = beforeEachRead
        do {
            return try InputReader(
                name: name, decompressing: decompressing,
                beforeRead: {
                    hook?()
                    try output.flush()
                })
        } catch {
            try diagnostics.problem(name, line: nil, error.reason)
            return nil
        }
    }
}

public enum ToolMain {
    /// Runs a tool with the process's arguments and standard streams; returns the exit status.
    public static func run<T: Tool>(_ type: T.Type, arguments: [String] = Array(ByteText.arguments.dropFirst()))
        -> Int32
    {
        run(type, arguments: arguments, outputFD: 1, errorFD: 2)
    }

    /// The same with other descriptors for standard output and error, and a hook before every
    /// input read: how the fuzzing harness (fuzz/) runs a tool in-process, exit status and all.
    ///
    /// Every error that ends the tool, from parsing the options to the last write, reaches the
    /// one `catch` below, which asks the error (`ToolError`) what to say and how to exit.
    public static func run<T: Tool>(
        _ type: T.Type, arguments: [String], outputFD: Int32, errorFD: Int32, beforeEachRead: (() -> Void)? = nil
    ) -> Int32 {
        // A closed pipe must end the tool quietly, not kill it with SIGPIPE: writes return EPIPE.
        System.ignoreBrokenPipe()
        let description = T.description
        let output = OutputSink(fd: outputFD)
        var diagnostics = Diagnostics(tool: description.name, strict: false, fd: errorFD)
        var readingInput = false
        do {
            if let first = arguments.first, first == "--completions" || first.hasPrefix("--completions=") {
                try completions(description, arguments, output: output)
                return 0
            }
            let options = try ParsedOptions(arguments: arguments, table: description.options)
            if options.has("help") {
                try output.write(description.helpText)
                try output.flush()
                return 0
            }
            if options.has("version") {
                try output.write("\(description.name) (FixKit) \(fixKitVersion)\n")
                try output.flush()
                return 0
            }
            diagnostics = Diagnostics(tool: description.name, strict: options.has("strict"), fd: errorFD)
            var tool = try T(options: options)
            if !description.operands.isEmpty {
                try FileIdentity.refuse("standard output", fd: outputFD, ifAmong: options.inputs)
            }
            var context = ToolContext(output: output, diagnostics: diagnostics, beforeEachRead: beforeEachRead)
            context.hintsAtTerminal = options.operands.isEmpty
            readingInput = true
            try tool.run(inputs: options.inputs, context: context)
            try output.flush()
            diagnostics.endInput()
            return diagnostics.exitStatus
        } catch {
            let failure: any ToolError =
                error as? any ToolError ?? ForeignError(error: error, exit: .status(readingInput ? 1 : 2))
            diagnostics.endInput()
            switch failure.exit {
            case .quietly:
                try? output.flush()
                return diagnostics.exitStatus
            case .status(let status):
                // What was written before the error stays written, unless the error is bad usage or
                // an unusable option file: then nothing is (SPEC). After a failed write the
                // buffer is empty already.
                if status != 2 { try? output.flush() }
                diagnostics.report(failure)
                if failure.showsUsage { diagnostics.emit("Try '\(description.name) --help' for more information.") }
                return status
            }
        }
    }

    /// `TOOL --completions SHELL`: the shell's completion script on standard output. Hidden
    /// (not in the option table, so not in --help): it is for `make install` and packagers,
    /// and only as the first and only option.
    static func completions(_ description: ToolDescription, _ arguments: [String], output: OutputSink) throws {
        var words = arguments
        if let eq = words[0].firstIndex(of: "=") {
            words = [String(words[0][..<eq]), String(words[0][words[0].index(after: eq)...])] + words.dropFirst()
        }
        let shells = CompletionShell.allCases.map(\.rawValue).joined(separator: ", ")
        guard words.count == 2, let shell = CompletionShell(rawValue: words[1]) else {
            throw UsageError("--completions needs a shell (\(shells)) and nothing else")
        }
        try output.write(description.completionScript(shell))
        try output.flush()
    }
}

/// A failure that ends a tool with exit 1 and its message, such as a side file that cannot be
/// written.
public struct ToolFailure: Error {
    public var message: String
    public init(_ message: String) { self.message = message }
}
