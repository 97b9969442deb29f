import Foundation
import Testing

/// Every example in README.md and in the man pages runs, and what it shows is what the tools
/// print, so that the documentation cannot go stale. One test case per example, named by its
/// file and line.
///
/// What an example is:
/// - In a man page, a `.Bd -literal` block that has a line starting with `$ `. Such a line is
///   a command; the command goes on while its last line ends in `\` or `|`, or while the next
///   line starts with white space and bash (`bash -n`) finds the command unfinished (a `for`
///   loop, an open quote). The lines after it, up to the next `$ ` or the block's end, are
///   what it shows. mdoc's escapes are turned back first: `\e` is `\`, `\(dq` is `"`, `\&`
///   is nothing, `\-` is `-`. A block without a `$ ` line (a record, a list of messages) is
///   not an example.
/// - In README.md, a fenced block marked ```` ```console ````, read the same way (without
///   escapes). Every other fenced block (records, messages, the source tree) shows no
///   command: no line of it may start with `$ `, nor its first line with a tool's name or
///   a command word (`.build/`, `swift`, `make`, `sudo`, `brew`, `printf`, `for`, `echo`),
///   so that a command cannot hide from the test in a plain block.
///
/// A record a page shows outside an example (a JSON object with a `trace`, maybe broken over
/// lines to fit) must be one that an example prints, so that copies are checked as well.
///
/// How it runs: with bash and `set -o pipefail`, in a fresh scratch directory holding a copy of
/// `samples/`, `man/` and the Makefile, `Tests` and `bench` (links to the package's, for the
/// fixtures and bench/rules-lags.awk),
/// `.build/release` (a link to the built products, so the README's `.build/release/X`
/// works), and small stand-ins for the reader's own files the docs name: `ride.gpx`,
/// `walk.gpx`, `day.gpx` (copies of `samples/walk.gpx`), and `rides/` (two GPX files, one of
/// them a "Morning Ride", and a FIT file). PATH starts with the built products, `HOME` and
/// `TMPDIR` are in the scratch directory, and every `/tmp/` in a command is redirected into
/// it (and back in what the command prints). The scratch directory is removed afterwards.
/// Examples share what earlier ones made: before each example, every earlier command of the
/// same file that shows no output and writes a file (a `>` that is not `/dev/null`) or is a
/// shell assignment (`f=...`) is run again, in order, in the same shell.
///
/// How the output is compared: the shown lines that start with a tool's name and a colon
/// (`gpx2fix: `) are standard error, the others standard output, and each must be what the
/// command printed there, line for line and in order. A shown line that is exactly `...`
/// stands for any number of lines (none included), and `...` inside a line for any text in
/// it: that is how a doc shows the stable part of an output that is not (a version, a
/// path); "run but not compared" is a lone `...`. The command must exit 0, or 1 when it
/// shows a diagnostic.
///
/// Not run, and said so by file and line when the suite runs (`Test.cancel` with the
/// reason): the commands in `skipped` below (installing, building, a live receiver), and an
/// example that needs a program the machine lacks (`requirements`). A skip entry that
/// matches no example fails the test, so the list cannot go stale either.
struct DocExamplesTests {
    struct Example: CustomTestStringConvertible, Sendable {
        var file: String
        var line: Int
        var command: String
        var shown: [String]
        /// Earlier commands of the same file that made files this one may read.
        var setup: [String]
        var testDescription: String { "\(file):\(line)" }
        /// Whether later examples replay it: it shows nothing, and writes a file or sets a
        /// shell variable.
        var isSetup: Bool {
            shown.isEmpty
                && (command.range(of: #">\s*(?!/dev/null|&)[^\s]"#, options: .regularExpression) != nil
                    || command.range(of: #"^[A-Za-z_][A-Za-z0-9_]*=[^\s;|&]*$"#, options: .regularExpression) != nil)
        }
    }

    static let tools = ["gpx2fix", "fix2gpx", "fixfilter", "fencerule", "fixsim", "visits", "fixplot", "fixstats"]

    /// Commands that are never run here, by file and how the command starts, with why.
    static let skipped: [(file: String, command: String, reason: String)] = [
        ("README.md", "sudo apt-get install", "installs system packages"),
        ("README.md", "brew install", "installs Homebrew packages (macOS)"),
        ("README.md", "swift build", "builds the package: the suite runs on the products it was built with"),
        ("README.md", "swift test", "runs this test suite"),
        ("README.md", "make build", "builds the package: the suite runs on the products it was built with"),
        ("README.md", "parallel -j 2 --sshlogin", "needs ssh hosts (BulkRecipesTests runs it with --sshlogin : alone)"),
        ("man/gpx2fix.1", "gpspipe -w", "needs gpsd and a receiver (LiveGPSDTests replays one with gpsfake)"),
        (
            "README.md", "bench/rules.sh",
            "a benchmark (13 minutes on 2 shared cores); the cells shown after it run here"
        ),
    ]

    /// Programs some examples use that a machine may lack: the example is skipped without them.
    /// (`make lint-man` runs mandoc.)
    static let requirements: [(program: String, used: String)] = [
        ("jq", "jq"), ("parallel", "parallel"), ("chromium", "chromium"), ("mandoc", "mandoc"),
        ("mandoc", "make lint-man"),
    ]

    static let pages = [
        "README.md", "man/gpx2fix.1", "man/fixfilter.1", "man/fix2gpx.1", "man/fencerule.1", "man/fixsim.1",
        "man/visits.1", "man/fixplot.1", "man/fixstats.1", "man/fix.5",
    ]

    // MARK: reading the examples

    /// Turns mdoc's escapes back, in one pass: `\e`, `\(dq`, `\&`, `\-`; others are kept.
    static func unescape(_ line: String) -> String {
        var out = ""
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            let next = line.index(after: i)
            guard c == "\\", next < line.endIndex else {
                out.append(c)
                i = next
                continue
            }
            let rest = line[next...]
            if rest.hasPrefix("e") {
                out.append("\\")
                i = line.index(after: next)
            } else if rest.hasPrefix("&") {
                i = line.index(after: next)
            } else if rest.hasPrefix("-") {
                out.append("-")
                i = line.index(after: next)
            } else if rest.hasPrefix("(dq") {
                out.append("\"")
                i = line.index(next, offsetBy: 3)
            } else {
                out.append(c)
                i = next
            }
        }
        return out
    }

    /// Whether bash finds `command` complete (`bash -n`).
    static func complete(_ command: String) throws -> Bool {
        try Tools.runExecutable(URL(fileURLWithPath: "/bin/bash"), ["-n", "-c", command]).status == 0
    }

    /// The examples of one block: `lines` with their line numbers in the file.
    static func examples(inBlock lines: [(number: Int, text: String)], file: String) throws -> [Example] {
        guard lines.contains(where: { $0.text.hasPrefix("$ ") }) else { return [] }
        guard let first = lines.first, first.text.hasPrefix("$ ") else {
            throw TestFailure("\(file):\(lines.first?.number ?? 0): an example block must start with a `$ ` command")
        }
        var out: [Example] = []
        var i = 0
        while i < lines.count {
            let start = lines[i]
            var command = String(start.text.dropFirst(2))
            var last = command
            i += 1
            while i < lines.count, !lines[i].text.hasPrefix("$ ") {
                let next = lines[i].text
                var continued = last.hasSuffix("\\") || last.hasSuffix("|")
                if !continued, next.first?.isWhitespace == true { continued = try !complete(command) }
                guard continued else { break }
                command += "\n" + next
                last = next
                i += 1
            }
            var shown: [String] = []
            while i < lines.count, !lines[i].text.hasPrefix("$ ") {
                shown.append(lines[i].text)
                i += 1
            }
            out.append(Example(file: file, line: start.number, command: command, shown: shown, setup: []))
        }
        return out
    }

    /// The fenced blocks of a Markdown file: info string, first line number, lines.
    static func fencedBlocks(_ text: String) -> [(info: String, lines: [(number: Int, text: String)])] {
        var blocks: [(info: String, lines: [(number: Int, text: String)])] = []
        var open: (info: String, lines: [(number: Int, text: String)])?
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.hasPrefix("```") {
                if let block = open {
                    blocks.append(block)
                    open = nil
                } else {
                    open = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
                }
            } else if open != nil {
                open?.lines.append((n + 1, line))
            }
        }
        return blocks
    }

    /// The examples of one file, in order, each with the earlier file-making commands.
    /// The literal blocks of a man page, escapes turned back, or README's fenced blocks
    /// (`console` ones when `console`, the others when not).
    static func blocks(of file: String, console: Bool = true) throws -> [[(number: Int, text: String)]] {
        let text = try String(contentsOf: Tools.packageRoot.appendingPathComponent(file), encoding: .utf8)
        if file.hasSuffix(".md") {
            return fencedBlocks(text).filter { ($0.info == "console") == console }.map(\.lines)
        }
        var blocks: [[(number: Int, text: String)]] = []
        var block: [(number: Int, text: String)]?
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if raw.hasPrefix(".Bd -literal") {
                block = []
            } else if raw.hasPrefix(".Ed") {
                if let b = block { blocks.append(b) }
                block = nil
            } else if block != nil {
                block?.append((n + 1, unescape(String(raw))))
            }
        }
        return blocks
    }

    static func examples(of file: String) throws -> [Example] {
        var found: [Example] = []
        for block in try blocks(of: file) {
            found += try examples(inBlock: block, file: file)
        }
        var setup: [String] = []
        for i in found.indices {
            found[i].setup = setup
            if found[i].isSetup { setup.append(found[i].command) }
        }
        return found
    }

    static func all() throws -> [Example] {
        try cached.get()
    }

    private static let cached = Result(catching: { try pages.flatMap { try examples(of: $0) } })

    // MARK: running them

    /// Why `example` is not run, if it is not.
    static func skipReason(_ example: Example) -> String? {
        if let s = skipped.first(where: { $0.file == example.file && example.command.hasPrefix($0.command) }) {
            return s.reason
        }
        for (program, used) in requirements where Tools.which(program) == nil {
            let pattern = "(^|[|;&({`\\s])\(used)(\\s|$)"
            if (example.setup + [example.command]).contains(where: {
                $0.range(of: pattern, options: .regularExpression) != nil
            }) {
                return "needs \(program), which is not on PATH"
            }
        }
        return nil
    }

    /// A scratch directory laid out as the docs expect (see the top of this file).
    static func makeScratch() throws -> URL {
        let fm = FileManager.default
        let root = Tools.packageRoot
        // A short name: Chromium's singleton socket lives under TMPDIR (the scratch's tmp/), and
        // a Unix socket path longer than 107 bytes makes it abort.
        let dir = TestScratch.root.appendingPathComponent("doc-\(UUID().uuidString.prefix(8))")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in ["samples", "man", "Makefile"] {
            try fm.copyItem(at: root.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        }
        try fm.createSymbolicLink(
            at: dir.appendingPathComponent("Tests"), withDestinationURL: root.appendingPathComponent("Tests"))
        try fm.createSymbolicLink(
            at: dir.appendingPathComponent("bench"), withDestinationURL: root.appendingPathComponent("bench"))
        try fm.createDirectory(at: dir.appendingPathComponent(".build"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(
            at: dir.appendingPathComponent(".build/release"), withDestinationURL: Tools.productsDirectory)
        for name in ["tmp", "home", "rides"] {
            try fm.createDirectory(at: dir.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let walk = try Data(contentsOf: root.appendingPathComponent("samples/walk.gpx"))
        for name in ["ride.gpx", "walk.gpx", "day.gpx", "rides/2026-03-14.gpx"] {
            try walk.write(to: dir.appendingPathComponent(name))
        }
        let ride = String(decoding: walk, as: UTF8.self)
            .replacingOccurrences(of: "Morning walk", with: "Morning Ride")
            .replacingOccurrences(of: "2026-03-14T", with: "2026-03-15T")
        try Data(ride.utf8).write(to: dir.appendingPathComponent("rides/2026-03-15.gpx"))
        let fit = FITGeneratedTests.ride(seed: 15, count: 120, trace: "ride").writer.file()
        try Data(fit).write(to: dir.appendingPathComponent("rides/2026-03-16.fit"))
        return dir
    }

    /// Runs `command` in `dir` as the docs' reader would (see the top of this file).
    static func run(_ command: String, in dir: URL) throws -> Tools.Result {
        let tmp = dir.appendingPathComponent("tmp").path
        let script = """
            export PATH='\(Tools.productsDirectory.path)':"$PATH" HOME='\(dir.path)/home' TMPDIR='\(tmp)' LC_ALL=C
            cd '\(dir.path)' || exit 99
            set -o pipefail
            \(command.replacingOccurrences(of: "/tmp/", with: tmp + "/"))
            """
        var r = try Tools.runExecutable(URL(fileURLWithPath: "/bin/bash"), ["-c", script])
        r.stdout = Data(r.out.replacingOccurrences(of: tmp + "/", with: "/tmp/").utf8)
        r.stderr = r.stderr.replacingOccurrences(of: tmp + "/", with: "/tmp/")
        return r
    }

    /// Whether `lines` match `pattern`, where a pattern line `...` stands for any run of
    /// lines and `...` inside a line for any text.
    static func matches(_ lines: [String], _ pattern: [String]) -> Bool {
        func line(_ text: String, _ pattern: String) -> Bool {
            guard pattern.contains("...") else { return text == pattern }
            let parts = pattern.components(separatedBy: "...")
            guard let head = parts.first, let tail = parts.last, text.hasPrefix(head) else { return false }
            var rest = text.dropFirst(head.count)
            for part in parts.dropFirst().dropLast() {
                guard let r = rest.range(of: part) else { return false }
                rest = rest[r.upperBound...]
            }
            return rest.count >= tail.count && rest.hasSuffix(tail)
        }
        var memo: [Int: Bool] = [:]
        func match(_ i: Int, _ j: Int) -> Bool {
            let key = i * (pattern.count + 1) + j
            if let m = memo[key] { return m }
            let result: Bool
            if j == pattern.count {
                result = i == lines.count
            } else if pattern[j] == "..." {
                result = match(i, j + 1) || (i < lines.count && match(i + 1, j))
            } else {
                result = i < lines.count && line(lines[i], pattern[j]) && match(i + 1, j + 1)
            }
            memo[key] = result
            return result
        }
        return match(0, 0)
    }

    static func isDiagnostic(_ line: String) -> Bool {
        tools.contains { line.hasPrefix($0 + ": ") }
    }

    static func lines(_ text: String) -> [String] {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    @Test(arguments: try DocExamplesTests.all())
    func runsAsShown(_ example: Example) throws {
        if let reason = Self.skipReason(example) {
            print("DocExamplesTests: \(example.file):\(example.line) not run: \(reason)")
            try Test.cancel("\(example.file):\(example.line) not run: \(reason)")
        }
        let dir = try Self.makeScratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let setup = example.setup.map {
            "{ \($0)\n} > /dev/null 2>&1 || { echo \"an earlier example failed: $?\" >&2; exit 98; }\n"
        }
        let r = try Self.run(setup.joined() + example.command, in: dir)
        #expect(r.status != 98, "an earlier example of \(example.file) failed: \(r.stderr)")
        let shownErr = example.shown.filter(Self.isDiagnostic)
        let shownOut = example.shown.filter { !Self.isDiagnostic($0) }
        let out = Self.lines(r.out)
        let err = Self.lines(r.stderr)
        var allowed: Set<Int32> = shownErr.isEmpty ? [0] : [0, 1]
        // A reader that stops early (`| head -4`) may end a stage before it (sed) by SIGPIPE,
        // which pipefail reports as 141: how pipes work, not a failure of the example.
        if example.command.contains("| head") { allowed.insert(141) }
        #expect(allowed.contains(r.status), "exit status \(r.status)\n\(r.stderr)")
        #expect(
            Self.matches(out, shownOut),
            "standard output differs from the doc:\n--- shown\n\(shownOut.joined(separator: "\n"))\n--- printed\n\(out.joined(separator: "\n"))"
        )
        #expect(
            Self.matches(err, shownErr),
            "standard error differs from the doc:\n--- shown\n\(shownErr.joined(separator: "\n"))\n--- printed\n\(err.joined(separator: "\n"))"
        )
    }

    // MARK: the conventions hold

    @Test func everyPageHasAnExampleWithItsOutput() throws {
        let examples = try Self.all()
        for page in Self.pages {
            let mine = examples.filter { $0.file == page }
            #expect(
                mine.contains { !$0.shown.isEmpty && !$0.shown.allSatisfy { $0 == "..." } },
                "\(page) has no example that shows its output")
        }
        #expect(examples.count >= 80)
    }

    /// A record a page shows outside an example (the visit record, the events, fixstats'
    /// summary: a JSON object with a `trace`, maybe broken over lines to fit) is a copy of one
    /// an example prints, so that it is checked too.
    @Test func shownRecordsAreExampleOutputs() throws {
        let printed = Set(try Self.all().flatMap(\.shown))
        var checked = 0
        for file in Self.pages {
            for block in try Self.blocks(of: file, console: false)
            where !block.contains(where: { $0.text.hasPrefix("$ ") }) {
                var record = ""
                var first = 0
                for line in block {
                    let text = line.text.trimmingCharacters(in: .whitespaces)
                    if text.hasPrefix("{") {
                        record = ""
                        first = line.number
                    } else if record.isEmpty {
                        continue
                    }
                    record += text
                    let json = record.hasSuffix(",") ? String(record.dropLast()) : record
                    guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
                        continue
                    }
                    if object["trace"] is String || (object["properties"] as? [String: Any])?["trace"] is String {
                        let known = printed.contains(record)
                        #expect(known, "\(file):\(first): this record is printed by no example: \(record)")
                        checked += 1
                    }
                    record = ""
                }
            }
        }
        #expect(checked >= 10)
    }

    @Test func everySkipIsUsed() throws {
        let examples = try Self.all()
        for s in Self.skipped {
            #expect(
                examples.contains { $0.file == s.file && $0.command.hasPrefix(s.command) },
                "the skip of \(s.file) \(s.command) matches no example")
        }
    }

    @Test func readmeCommandsAreInConsoleBlocks() throws {
        let text = try String(contentsOf: Tools.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let starts =
            Self.tools.map { $0 + " " } + [".build/", "swift ", "make ", "sudo ", "brew ", "printf ", "for ", "echo "]
        for block in Self.fencedBlocks(text) where block.info != "console" {
            for line in block.lines where line.text.hasPrefix("$ ") {
                Issue.record("README.md:\(line.number): a `$ ` command outside a ```console block")
            }
            if let first = block.lines.first, starts.contains(where: { first.text.hasPrefix($0) }) {
                Issue.record(
                    "README.md:\(first.number): a command in a plain block: make it a ```console block with `$ `")
            }
        }
    }

    @Test func parsing() {
        #expect(Self.unescape(#"sed 's/\e(x\e)/\(dq\&.\-/'"#) == #"sed 's/\(x\)/".-/'"#)
        #expect(Self.matches(["a", "b", "c"], ["a", "...", "c"]))
        #expect(Self.matches(["a", "c"], ["a", "...", "c"]))
        #expect(!Self.matches(["a", "b"], ["a", "...", "c"]))
        #expect(Self.matches(["x 0.1.0 y"], ["x ... y"]))
        #expect(!Self.matches(["x 0.1.0 z"], ["x ... y"]))
        #expect(!Self.matches(["a", "b"], ["a"]))
        #expect(!Self.matches(["a"], ["a", "b"]))
    }
}
