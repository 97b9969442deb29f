import Foundation
import Testing

@testable import FixKit

/// The shell completions come from the option tables: every option of every tool is offered
/// by each shell's script, the values the tables know are offered for the options that take
/// them, and each script loads in its shell (where the shell is installed).
struct CompletionTests {
    static let tools = DocumentationTests.tools

    /// Writes `TOOL --completions SHELL` (from the built executable) to a temporary file.
    static func script(_ tool: String, _ shell: CompletionShell) throws -> (text: String, file: URL) {
        let r = try Tools.run(tool, ["--completions", shell.rawValue])
        #expect(r.status == 0, "\(tool) --completions \(shell.rawValue): \(r.stderr)")
        let dir = TestScratch.root.appendingPathComponent("fixkit-compl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent(shell == .zsh ? "_\(tool)" : shell == .fish ? "\(tool).fish" : tool)
        try r.out.write(to: file, atomically: false, encoding: .utf8)
        return (r.out, file)
    }

    static func remove(_ file: URL) {
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
    }

    @Test(arguments: CompletionTests.tools.map(\.name))
    func everyOptionIsInEveryShellsCompletion(_ tool: String) throws {
        let description = try #require(Self.tools.first { $0.name == tool })
        for shell in CompletionShell.allCases {
            let (text, file) = try Self.script(tool, shell)
            defer { Self.remove(file) }
            #expect(text == description.completionScript(shell), "the executable prints the library's script")
            let lines = text.split(separator: "\n").map(String.init)
            for option in description.options {
                let found: Bool
                switch shell {
                case .bash:
                    // The words offered for "-..." are the one list given to _fixkit_reply_words
                    // after the `case` of values.
                    let wordLists = lines.filter { $0.contains("_fixkit_reply_words '--") }
                    found =
                        wordLists.count == 1
                        && wordLists[0].split(separator: "'")[1].split(separator: " ")
                            .contains(Substring("--" + option.name))
                case .zsh:
                    found = lines.contains {
                        $0.contains("'--\(option.name)[") || $0.contains("'--\(option.name)=[")
                            || $0.contains("'(- *)--\(option.name)[")
                    }
                case .fish:
                    found = lines.contains {
                        $0.hasPrefix("complete -c \(tool) ") && $0.contains(" -l \(option.name) ")
                    }
                }
                #expect(found, "\(tool)'s \(shell.rawValue) completion does not offer --\(option.name)")
            }
        }
    }

    /// Runs `body` in bash after sourcing the script, with COMP_WORDS set to `words` (the
    /// last being completed), in `directory`; returns COMPREPLY, one a line.
    static func bashComplete(_ file: URL, _ function: String, _ words: [String], in directory: URL? = nil) throws
        -> [String]
    {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        var script = "source '\(file.path)'; "
        if let directory { script += "cd '\(directory.path)'; " }
        script += "COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); \(function); "
        script += "printf '%s\\n' \"${COMPREPLY[@]}\""
        let r = try Tools.runExecutable(URL(fileURLWithPath: "/bin/bash"), ["-c", script])
        #expect(r.status == 0, "bash: \(r.stderr)")
        #expect(r.stderr.isEmpty, "bash: \(r.stderr)")
        return r.lines
    }

    @Test(arguments: CompletionTests.tools.map(\.name))
    func bashLoadsItAndCompletesOptionsAndValues(_ tool: String) throws {
        let description = try #require(Self.tools.first { $0.name == tool })
        let (_, file) = try Self.script(tool, .bash)
        defer { Self.remove(file) }
        let r = try Tools.runExecutable(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "source '\(file.path)' && complete -p \(tool)"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out == "complete -F _fixkit_\(tool) \(tool)\n")
        let function = "_fixkit_\(tool)"

        // A scratch directory with one file and one directory, for FILE and DIR values.
        let dir = TestScratch.root.appendingPathComponent("fixkit-compl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("adir"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: dir.appendingPathComponent("afile.json"))
        defer { try? FileManager.default.removeItem(at: dir) }

        for option in description.options {
            // The option's full name completes to itself (among the options it begins).
            let names = try Self.bashComplete(file, function, [tool, "--" + option.name])
            #expect(names.contains("--" + option.name), "\(tool) --\(option.name): \(names)")
            #expect(names.allSatisfy { $0.hasPrefix("--" + option.name) })
            guard option.value != nil else { continue }
            let values = try Self.bashComplete(file, function, [tool, "--" + option.name, ""], in: dir)
            let joined = try Self.bashComplete(file, function, [tool, "--" + option.name, "=", ""], in: dir)
            #expect(values == joined, "--\(option.name) VALUE and --\(option.name)=VALUE complete alike")
            switch option.completionValue {
            case .words(let words): #expect(values == words, "\(tool) --\(option.name): \(values)")
            case .file: #expect(Set(values) == ["adir", "afile.json"], "\(tool) --\(option.name): \(values)")
            case .directory: #expect(values == ["adir"], "\(tool) --\(option.name): \(values)")
            case .free: #expect(values.isEmpty, "\(tool) --\(option.name) offers \(values)")
            case .none: Issue.record("--\(option.name) has a value")
            }
        }
        // Operands are files, also after "--" (and never options there).
        let operands = try Self.bashComplete(file, function, [tool, "a"], in: dir)
        let afterDashes = try Self.bashComplete(file, function, [tool, "--", "a"], in: dir)
        #expect(operands == afterDashes)
        #expect(Set(operands) == (description.operands.isEmpty ? [] : ["adir", "afile.json"]))
    }

    @Test(
        .enabled(
            if: Tools.which("zsh") != nil, "zsh is not installed (apt-get install zsh): its completions are not parsed"),
        arguments: CompletionTests.tools.map(\.name))
    func zshParsesIt(_ tool: String) throws {
        let zsh = try #require(Tools.which("zsh"))
        let (text, file) = try Self.script(tool, .zsh)
        defer { Self.remove(file) }
        #expect(text.hasPrefix("#compdef \(tool)\n"))
        let r = try Tools.runExecutable(zsh, ["-n", file.path])
        #expect(r.status == 0 && r.stderr.isEmpty, "zsh -n _\(tool): \(r.stderr)")
        // Loaded as a completion function under compinit, it defines _TOOL for TOOL.
        let load = try Tools.runExecutable(
            zsh,
            [
                "-f", "-c",
                "fpath=('\(file.deletingLastPathComponent().path)' $fpath); autoload -U compinit; compinit -u -D; print -r -- ${_comps[\(tool)]}",
            ])
        #expect(load.out == "_\(tool)\n", "zsh compinit: \(load.out) \(load.stderr)")
    }

    /// zsh offers what the tables say: each tool's script is loaded by compinit in an
    /// interactive zsh on a pseudo-terminal (Support/zsh-complete.zsh), and the words it
    /// hands to compadd for "TOOL --" and for each option's value are compared.
    @Test(
        .enabled(
            if: Tools.which("zsh") != nil, "zsh is not installed (apt-get install zsh): its completions are not tried"))
    func zshCompletesOptionsAndValues() throws {
        let zsh = try #require(Tools.which("zsh"))
        let dir = TestScratch.root.appendingPathComponent("fixkit-zsh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("fpath"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var lines: [String] = []
        for description in Self.tools {
            try description.completionScript(.zsh).write(
                to: dir.appendingPathComponent("fpath/_\(description.name)"), atomically: false, encoding: .utf8)
            lines.append("\(description.name) --")
            for option in description.options where option.completionValue != .none && option.completionValue != .file {
                lines.append("\(description.name) --\(option.name) ")
            }
        }
        let out = dir.appendingPathComponent("out")
        let driver = Tools.packageRoot.appendingPathComponent("Tests/FixKitTests/Support/zsh-complete.zsh")
        let r = try Tools.runExecutable(
            zsh, ["-f", driver.path, dir.appendingPathComponent("fpath").path, out.path] + lines)
        #expect(r.status == 0, "\(r.stderr)")
        var offered: [String: Set<String>] = [:]
        for record in try String(contentsOf: out, encoding: .utf8).split(separator: "\n") {
            let parts = record.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            offered[String(parts[0]), default: []].formUnion(parts[1].split(separator: " ").map(String.init))
        }
        for description in Self.tools {
            let t = description.name
            #expect(offered["\(t) --"] == Set(description.options.map { "--" + $0.name }), "zsh: \(t) --")
            for option in description.options {
                switch option.completionValue {
                case .words(let words):
                    #expect(offered["\(t) --\(option.name) "] == Set(words), "zsh: \(t) --\(option.name)")
                case .free: #expect(offered["\(t) --\(option.name) "] == [], "zsh: \(t) --\(option.name)")
                case .directory: #expect(offered["\(t) --\(option.name) "] != nil, "zsh: \(t) --\(option.name)")
                case .none, .file: break
                }
            }
        }
    }

    @Test(
        .enabled(
            if: Tools.which("fish") != nil,
            "fish is not installed (apt-get install fish): its completions are not tried"),
        arguments: CompletionTests.tools.map(\.name))
    func fishParsesAndCompletesIt(_ tool: String) throws {
        let fish = try #require(Tools.which("fish"))
        let description = try #require(Self.tools.first { $0.name == tool })
        let (_, file) = try Self.script(tool, .fish)
        defer { Self.remove(file) }
        let parse = try Tools.runExecutable(fish, ["--no-execute", file.path])
        #expect(parse.status == 0 && parse.stderr.isEmpty, "fish --no-execute \(tool).fish: \(parse.stderr)")
        // `complete -C` asks fish what it would offer for a command line.
        var script = "source '\(file.path)'; "
        for option in description.options {
            script += "echo '## --\(option.name)'; complete -C '\(tool) --\(option.name)'; "
            if case .words = option.completionValue {
                script += "echo '## --\(option.name) VALUE'; complete -C '\(tool) --\(option.name) '; "
            }
        }
        let r = try Tools.runExecutable(fish, ["--no-config", "-c", script])
        #expect(r.status == 0 && r.stderr.isEmpty, "fish: \(r.stderr)")
        var sections: [String: [String]] = [:]
        var current = ""
        for line in r.out.split(separator: "\n") {
            if line.hasPrefix("## ") {
                current = String(line.dropFirst(3))
                sections[current] = []
            } else {
                sections[current, default: []].append(String(line.split(separator: "\t")[0]))
            }
        }
        for option in description.options {
            #expect(
                sections["--" + option.name]?.contains("--" + option.name) == true,
                "fish does not offer \(tool) --\(option.name): \(sections["--" + option.name] ?? [])")
            if case .words(let words) = option.completionValue {
                #expect(Set(sections["--\(option.name) VALUE"] ?? []) == Set(words), "\(tool) --\(option.name) VALUE")
            }
        }
    }

    /// The choices a table gives are the values its tool takes: each is accepted, and a
    /// value that is not one of them is refused with a message naming the option.
    @Test func theChoicesAreWhatTheToolsAccept() throws {
        let fences = Tools.fixtures.appendingPathComponent("fences/mall-400.json").path
        var checked = 0
        for description in Self.tools {
            for option in description.options where !option.choices.isEmpty {
                var base = ["--\(option.name)"]
                if description.name == "fencerule" { base = ["--fences", fences] + base }
                for choice in option.choices {
                    let r = try Tools.run(description.name, base + [choice], stdin: Data())
                    #expect(r.status != 2, "\(description.name) --\(option.name) \(choice): \(r.stderr)")
                    checked += 1
                }
                let bad = try Tools.run(description.name, base + ["no-such-choice"], stdin: Data())
                #expect(bad.status == 2 && bad.stderr.contains("--\(option.name) 'no-such-choice'"), "\(bad.stderr)")
            }
        }
        #expect(checked >= 20)
    }

    @Test func completionsNeedOneKnownShell() throws {
        for arguments in [["--completions"], ["--completions", "tcsh"], ["--completions", "bash", "x"]] {
            let r = try Tools.run("gpx2fix", arguments)
            #expect(r.status == 2 && r.out.isEmpty)
            #expect(r.stderr.hasPrefix("gpx2fix: --completions needs a shell (bash, zsh, fish)"), "\(r.stderr)")
        }
        let r = try Tools.run("fixsim", ["--completions=fish"])
        #expect(r.status == 0 && r.out == FixSim.description.completionScript(.fish))
    }

    @Test(.enabled(if: Tools.which("make") != nil, "make is not installed: make install is not tried"))
    func makeInstallPutsThemWhereTheShellsLookAndUninstallRemovesThem() throws {
        let prefix = TestScratch.root.appendingPathComponent("fixkit-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let make = try #require(Tools.which("make"))
        let args = ["-C", Tools.packageRoot.path, "PREFIX=\(prefix.path)", "BUILD_DIR=\(Tools.productsDirectory.path)"]
        let install = try Tools.runExecutable(make, ["install"] + args)
        #expect(install.status == 0, "\(install.stderr)")
        for description in Self.tools {
            let t = description.name
            for (shell, path) in [
                (CompletionShell.bash, "share/bash-completion/completions/\(t)"),
                (.zsh, "share/zsh/site-functions/_\(t)"), (.fish, "share/fish/vendor_completions.d/\(t).fish"),
            ] {
                let text = try? String(contentsOf: prefix.appendingPathComponent(path), encoding: .utf8)
                #expect(text == description.completionScript(shell), "\(path)")
            }
        }
        let uninstall = try Tools.runExecutable(make, ["uninstall"] + args)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        let left = FileManager.default.enumerator(atPath: prefix.path)?.compactMap { $0 as? String }.filter {
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: prefix.appendingPathComponent($0).path, isDirectory: &isDir)
                && !isDir.boolValue
        }
        #expect(left == [], "make uninstall left \(left ?? [])")
    }
}
