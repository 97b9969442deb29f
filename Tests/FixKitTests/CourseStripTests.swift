import Foundation
import Testing

@testable import FixKit

/// fixfilter's default course stripping (issue 11b removes the member from the span the
/// decoder found, without a second scan): for generated lines, with the course first, in the
/// middle or last, twice, with white space anywhere between tokens, and with "course" inside
/// strings and nested objects, the output is byte for byte the line with its top-level
/// `course` member removed by a second, independent scan (`RawRecord.removingMember`), and,
/// when python3 is present, it parses with Python's json to the input's object without
/// `course`, members in the same order.
struct CourseStripTests {
    /// Inserts white space after `{`, `:` and `,` and before `}` outside strings.
    static func spaced(_ line: String, _ r: inout FenceIndexBruteForceTests.Random) -> String {
        var out = ""
        var inString = false
        var escaped = false
        for c in line {
            if inString {
                out.append(c)
                if escaped {
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    inString = false
                }
                continue
            }
            if c == "\"" { inString = true }
            if c == "}", r.chance(0.5) { out += r.chance(0.5) ? " " : "\t " }
            out.append(c)
            if c == "{" || c == ":" || c == ",", r.chance(0.5) { out += r.chance(0.5) ? " " : " \t" }
        }
        return out
    }

    /// Lines as fixfilter may read them: fixes from FixGenerator, rewritten in several ways.
    static func lines() -> [String] {
        var g = FixGenerator(seed: 2024)
        var r = FenceIndexBruteForceTests.Random(99)
        var out: [String] = []
        for i in 0..<600 {
            var f = g.next()
            if r.chance(0.3) {
                // "course" in a nested object, in a string and as part of a key: not the member.
                if !f.extra.isEmpty { f.extra.append(UInt8(ascii: ",")) }
                f.extra += Array(#""x":{"course":5,"cacc":1},"s":"\"course\":1,","course2":3"#.utf8)
            }
            var line = FixEncoder.line(f).trimmingCharacters(in: .newlines)
            let course = #""course":\#(r.g.pick(["1", "359.9", "1.5e2", "0", "-0.0", "12.000"]))"#
            switch i % 6 {
            case 0:
                // The course first.
                if f.course != nil {
                    line = line.replacingOccurrences(
                        of: #","course":\#(DecimalNumber.text(f.course!))"#, with: "")
                    line = "{" + course + "," + line.dropFirst()
                }
            case 1:
                // The course last.
                if f.course != nil {
                    line = line.replacingOccurrences(
                        of: #","course":\#(DecimalNumber.text(f.course!))"#, with: "")
                    line = line.dropLast() + "," + course + "}"
                }
            case 2:
                // Twice (the second wins for the decoder; both go).
                line = line.dropLast() + "," + course + "," + course + "}"
            default: break
            }
            if r.chance(0.5) { line = spaced(line, &r) }
            if r.chance(0.2) { line = " " + line + (r.chance(0.5) ? " " : "\t") }
            out.append(line)
        }
        return out
    }

    @Test func strippedLinesEqualASecondScanAndTheParsedObject() throws {
        let lines = Self.lines()
        // The variants are there: the course first, last, and twice.
        let squeezed = lines.map { $0.filter { $0 != " " && $0 != "\t" } }
        #expect(squeezed.filter { $0.hasPrefix(#"{"course":"#) }.count > 40)
        #expect(
            squeezed.filter { $0.range(of: #","course":[^,{}]*\}$"#, options: .regularExpression) != nil }.count > 80)
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let run = try Tools.run(
            "fixfilter",
            ["--max-hacc", "off", "--max-age", "off", "--max-speed", "off", "--min-move", "off", "--stats"],
            stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        let output = run.lines
        #expect(output.count == lines.count)
        var stripped = 0
        for (line, got) in zip(lines, output) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let validCacc = (object["cacc"] as? Double).map { $0 >= 0 } ?? false
            if object["course"] != nil && !validCacc {
                stripped += 1
                let want = Array(line.utf8).withUnsafeBufferPointer { RawRecord.removingMember("course", from: $0) }
                #expect(want.map { String(decoding: $0, as: UTF8.self) } == got, "from \(line)")
            } else {
                #expect(got == line)
            }
        }
        #expect(stripped > 150, "only \(stripped) lines had a course to strip")
        #expect(run.stderr.contains("course stripped from \(stripped)"), "\(run.stderr)")

        // The same by value, with a JSON parser of another program when there is one.
        if let python = Tools.which("python3") {
            let dir = TestScratch.root.appendingPathComponent("fixkit-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            try input.write(to: dir.appendingPathComponent("in"))
            try run.stdout.write(to: dir.appendingPathComponent("out"))
            let script = """
                import json, sys
                def pairs(p):
                    d = {}
                    for k, v in p:
                        d[k] = v
                    return d
                bad = 0
                for a, b in zip(open(sys.argv[1]), open(sys.argv[2])):
                    x = json.loads(a, object_pairs_hook=pairs)
                    y = json.loads(b, object_pairs_hook=pairs)
                    c = x.get("cacc")
                    if "course" in x and not (isinstance(c, (int, float)) and c >= 0):
                        del x["course"]
                    if x != y or list(x) != [k for k in y]:
                        bad += 1
                        print(a.strip(), "->", b.strip())
                print("bad", bad)
                """
            let result = try Tools.runExecutable(
                python, ["-c", script, dir.appendingPathComponent("in").path, dir.appendingPathComponent("out").path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.out.hasSuffix("bad 0\n"), "\(result.out)")
        }
    }
}
