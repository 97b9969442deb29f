import Foundation
import Testing

/// The project's rules that a reading of the library's source can check (STYLE.md): no force
/// unwrap, `try!`, `as!` or `fatalError` outside tests. Comments and string literals are left
/// out of the search (a help text may say "Stop!"). A use that must stay goes in `allowed`,
/// with its file and the reason.
@Suite("Source rules")
struct SourceRulesTests {
    /// `file: fragment`, each with why it is allowed. Empty: there is none.
    static let allowed: [(file: String, fragment: String, why: String)] = []

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every `.swift` file under Sources, as a path relative to it.
    static func swiftFiles() throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".swift") { files.append(path) }
        }
        return files.sorted()
    }

    /// The code of each line of `text`: string literals' contents (one-line and multi-line)
    /// and comments (`//` and `/* */`) blanked out.
    static func codeLines(_ text: String) -> [String] {
        var lines: [String] = []
        var inMultiline = false  // inside a """ literal
        var inBlockComment = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var out = ""
            let chars = Array(line)
            var i = 0
            var inString = false
            while i < chars.count {
                let c = chars[i]
                let triple = i + 2 < chars.count && c == "\"" && chars[i + 1] == "\"" && chars[i + 2] == "\""
                if inBlockComment {
                    if c == "*", i + 1 < chars.count, chars[i + 1] == "/" {
                        inBlockComment = false
                        i += 1
                    }
                } else if inMultiline {
                    if c == "\\" {
                        i += 1
                    } else if triple {
                        inMultiline = false
                        out += "\"\"\""
                        i += 2
                    }
                } else if inString {
                    if c == "\\" {
                        i += 1
                    } else if c == "\"" {
                        inString = false
                        out.append(c)
                    }
                } else if triple {
                    inMultiline = true
                    out += "\"\"\""
                    i += 2
                } else if c == "\"" {
                    inString = true
                    out.append(c)
                } else if c == "/", i + 1 < chars.count, chars[i + 1] == "/" {
                    break
                } else if c == "/", i + 1 < chars.count, chars[i + 1] == "*" {
                    inBlockComment = true
                    i += 1
                } else {
                    out.append(c)
                }
                i += 1
            }
            lines.append(out)
        }
        return lines
    }

    /// The forbidden uses in one line of code: a postfix `!` (after a name, `)`, `]` or `?`,
    /// not `!=`), `try!`, `as!`, `fatalError(` and `.unsafelyUnwrapped`.
    static func violations(_ code: String) -> [String] {
        var found: [String] = []
        let chars = Array(code)
        for (i, c) in chars.enumerated() where c == "!" {
            let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
            if next == "=" { continue }
            guard i > 0 else { continue }
            let before = chars[i - 1]
            if before.isLetter || before.isNumber || before == "_" || before == ")" || before == "]" || before == "?"
                || before == ">"
            {
                let start = max(0, i - 20)
                found.append(String(chars[start...min(chars.count - 1, i + 10)]))
            }
        }
        for word in ["fatalError(", ".unsafelyUnwrapped"] where code.contains(word) { found.append(word) }
        return found
    }

    @Test func theScannerFindsWhatItLooksFor() {
        let code = Self.codeLines(
            """
            let a = b!
            let c = try! d()
            let e = f as! G
            if x != y, !z { fatalError("no") }
            let s = "wow!" // hey!
            /* why! */ let t = u[0]!.v
            let m = \"""
                Stop!
                \""" + w!
            """)
        #expect(Self.violations(code[0]).count == 1)
        #expect(Self.violations(code[1]).count == 1)
        #expect(Self.violations(code[2]).count == 1)
        #expect(Self.violations(code[3]) == ["fatalError("])
        #expect(Self.violations(code[4]).isEmpty)
        #expect(Self.violations(code[5]).count == 1)
        #expect(Self.violations(code[6]).isEmpty)
        #expect(Self.violations(code[7]).isEmpty)
        #expect(Self.violations(code[8]).count == 1)
    }

    @Test func noForceUnwrapTryBangOrFatalErrorInSources() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 100, "Sources has the library's files")
        var unexplained: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for (n, code) in Self.codeLines(text).enumerated() {
                for hit in Self.violations(code)
                where !Self.allowed.contains(where: { file.hasSuffix($0.file) && code.contains($0.fragment) }) {
                    unexplained.append("Sources/\(file):\(n + 1): \(hit)")
                }
            }
        }
        #expect(unexplained.isEmpty, "outside tests: \(unexplained.joined(separator: "\n"))")
    }
}
