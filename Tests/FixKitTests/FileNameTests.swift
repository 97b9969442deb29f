import Foundation
import Testing

@testable import FixKit

/// File names are bytes (issue 15, defects 1, 2 and 7): an output that is an input under any
/// name is refused before it is opened; names that are not UTF-8 open the files they name and
/// come back as the same bytes; messages never carry raw control bytes.
@Suite("File names: the same file, bytes end to end, printable messages")
struct FileNameTests {
    /// A fresh directory with `walk.ndjson` (a fixsim walk) in it, removed at the end.
    static func withWalk(_ body: (URL) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixkit-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sim = try Tools.run("fixsim", ["--origin", "51.5,-0.12", "--route", "0,0:400,0", "--seed", "2"])
        try #require(sim.status == 0)
        try sim.stdout.write(to: dir.appendingPathComponent("walk.ndjson"))
        try body(dir)
    }

    /// Runs a bash script in `dir`; `$T` is the directory of the built tools.
    static func sh(_ dir: URL, _ script: String) throws -> Tools.Result {
        try Tools.shell("cd '\(dir.path)' && \(script)")
    }

    // MARK: - Defect 1: an output that is an input

    @Test(
        "--rejects naming an input, by any name, is refused with exit 2 and the input left whole",
        arguments: [
            "fixfilter --rejects walk.ndjson walk.ndjson",
            "fixfilter --rejects=walk.ndjson walk.ndjson",
            "fixfilter --rejects ./walk.ndjson other.ndjson walk.ndjson",
            "ln walk.ndjson hard && fixfilter --rejects hard walk.ndjson",
            "ln -s walk.ndjson soft && fixfilter --rejects soft walk.ndjson",
            "ln -s walk.ndjson soft && fixfilter --rejects walk.ndjson soft",
            "fixfilter --rejects walk.ndjson < walk.ndjson",
            "fixfilter --rejects walk.ndjson - < walk.ndjson",
        ])
    func rejectsIntoAnInput(_ command: String) throws {
        try Self.withWalk { dir in
            let before = try Data(contentsOf: dir.appendingPathComponent("walk.ndjson"))
            try Data("{\"lat\":1,\"lon\":2}\n".utf8).write(to: dir.appendingPathComponent("other.ndjson"))
            let r = try Self.sh(dir, command)
            #expect(r.status == 2, "\(command): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(command)")
            #expect(r.stderr.hasPrefix("fixfilter: --rejects "), "\(r.stderr)")
            #expect(r.stderr.contains("(the same file)"), "\(r.stderr)")
            #expect(
                try Data(contentsOf: dir.appendingPathComponent("walk.ndjson")) == before,
                "\(command) changed the input")
        }
    }

    @Test("--rejects into another file, or into /dev/null beside /dev/null input, is written as before")
    func rejectsElsewhere() throws {
        try Self.withWalk { dir in
            let r = try Self.sh(dir, "fixfilter --min-move 50 --rejects rej.ndjson walk.ndjson")
            #expect(r.status == 0, "\(r.stderr)")
            let rejected = try String(contentsOf: dir.appendingPathComponent("rej.ndjson"), encoding: .utf8)
            #expect(rejected.contains(#""reason":"move""#))
            let null = try Self.sh(dir, "fixfilter --rejects /dev/null /dev/null")
            #expect(null.status == 0, "\(null.stderr)")
        }
    }

    @Test(
        "standard output that is an input (>> or <>) is refused with exit 2, by every tool that reads files",
        arguments: ["fixfilter", "visits", "fencerule --fences f.json", "fix2gpx", "fixstats", "gpx2fix", "fixplot"])
    func standardOutputIntoAnInput(_ tool: String) throws {
        try Self.withWalk { dir in
            try Data(#"[{"id":"a","lat":51.5,"lon":-0.12,"radius":50}]"#.utf8).write(
                to: dir.appendingPathComponent("f.json"))
            let before = try Data(contentsOf: dir.appendingPathComponent("walk.ndjson"))
            for redirect in [">> walk.ndjson", "1<> walk.ndjson", "< walk.ndjson >> walk.ndjson"] {
                let operand = redirect.hasPrefix("<") ? "" : "walk.ndjson"
                let r = try Self.sh(dir, "\(tool) \(operand) \(redirect)")
                #expect(r.status == 2, "\(tool) \(redirect): \(r.stderr)")
                #expect(r.stderr.contains("standard output is "), "\(tool): \(r.stderr)")
                #expect(
                    try Data(contentsOf: dir.appendingPathComponent("walk.ndjson")) == before,
                    "\(tool) \(redirect) changed it")
            }
        }
    }

    @Test("fix2gpx --split refuses, before writing any file, a file that would be an input")
    func splitOntoAnInput() throws {
        try Self.withWalk { dir in
            // Two traces; the second one's file (sim.gpx) is the input itself.
            let walk = try String(contentsOf: dir.appendingPathComponent("walk.ndjson"), encoding: .utf8)
            let input =
                walk.replacingOccurrences(of: #""trace":"sim""#, with: #""trace":"first""#)
                + walk.prefix(while: { $0 != "\n" }) + "\n"
            try Data(input.utf8).write(to: dir.appendingPathComponent("sim.gpx"))
            let r = try Self.sh(dir, "fix2gpx --split . sim.gpx")
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stdout.isEmpty, "\(r.out)")
            #expect(r.stderr.contains("--split's file ./sim.gpx is the input sim.gpx"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("first.gpx").path))
            #expect(try String(contentsOf: dir.appendingPathComponent("sim.gpx"), encoding: .utf8) == input)
        }
    }

    // MARK: - Defect 2: names that are not UTF-8

    @Test("ByteText: any bytes decode to a String that gives them back; valid UTF-8 is the String itself")
    func byteTextRoundTrip() {
        var g = FixGenerator(seed: 15)
        for k in 0..<5000 {
            let n = Int(g.nextUInt() % 24)
            // Mostly bytes that make UTF-8 sequences, whole or cut, and high bytes.
            let pool: [UInt8] = [
                0x41, 0x5C, 0x22, 0x0A, 0x80, 0xBF, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xF4, 0x8F,
                0xBE, 0xFF, 0xED, 0xA0,
            ]
            let bytes = (0..<n).map { _ in
                k % 3 == 0 ? UInt8(truncatingIfNeeded: g.nextUInt()) : pool[Int(g.nextUInt() % UInt64(pool.count))]
            }
            let s = ByteText.decode(bytes)
            #expect(ByteText.bytes(s) == bytes, "\(bytes)")
            if let valid = String(validating: bytes, as: UTF8.self) { #expect(s == valid) }
            // A JSON writer gives the bytes back too, with only JSON's escapes added.
            var json: [UInt8] = []
            writeString(s, into: &json)
            var expected: [UInt8] = [0x22]
            for b in bytes {
                switch b {
                case 0x22, 0x5C: expected += [0x5C, b]
                case 0x0A: expected += [0x5C, UInt8(ascii: "n")]
                case 0x0D: expected += [0x5C, UInt8(ascii: "r")]
                case 0x09: expected += [0x5C, UInt8(ascii: "t")]
                case 0..<0x20: expected += Array(("\\u00" + (b < 16 ? "0" : "") + String(b, radix: 16)).utf8)
                default: expected.append(b)
                }
            }
            expected.append(0x22)
            #expect(json == expected, "\(bytes)")
            let width = stringWidth(s)
            let written = [UInt8](unsafeUninitializedCapacity: width) { p, count in
                count = writeString(s, to: p.baseAddress!)
            }
            #expect(written == expected, "\(bytes)")
        }
    }

    @Test("Operands, --fences and --rejects that are not UTF-8 open the files of those bytes")
    func latin1FileNames() throws {
        try Self.withWalk { dir in
            let r = try Self.sh(
                dir,
                #"""
                cp walk.ndjson "$(printf 'r\351de.ndjson')"
                printf '[{"id":"a","lat":51.5,"lon":-0.12,"radius":50}]' > "$(printf 'f\351nces.json')"
                gpx2fix "$(printf 'r\351de.ndjson')" | wc -l
                fencerule --fences "$(printf 'f\351nces.json')" "$(printf 'r\351de.ndjson')" | grep -c '"event":"enter"'
                fixfilter --min-move 50 --rejects "$(printf 'rej\351')" walk.ndjson > /dev/null
                ls | grep -c "^$(printf 'rej\351')\$"
                ls | grep -c '^rej'
                """#)
            #expect(r.status == 0, "\(r.stderr)")
            let walkLines = try String(contentsOf: dir.appendingPathComponent("walk.ndjson"), encoding: .utf8)
                .split(separator: "\n").count
            #expect(r.lines == ["\(walkLines)", "1", "1", "1"], "\(r.out) \(r.stderr)")
        }
    }

    @Test(
        "A trace named by a file name that is not UTF-8 keeps its bytes through every tool, and two such names stay two"
    )
    func latin1TraceNames() throws {
        try Self.withWalk { dir in
            // Two stays at one place, in files named caf\xe9 and caf\xe8 (Latin-1 é and è).
            var lines: [String] = []
            for k in 0..<900 {
                let t = Timestamp(seconds: 1_767_258_000 + Double(k)).rfc3339
                lines.append(#"{"time":"\#(t)","lat":51.5,"lon":-0.12,"hacc":10}"#)
            }
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent("stay.ndjson"))
            try Data(#"[{"id":"a","lat":51.5,"lon":-0.12,"radius":50}]"#.utf8).write(
                to: dir.appendingPathComponent("f.json"))
            let r = try Self.sh(
                dir,
                #"""
                sed 's/}$/,"trace":"caf\xe9"}/' stay.ndjson > a; sed 's/}$/,"trace":"caf\xe8"}/' stay.ndjson > b
                cat a b > both.ndjson
                visits both.ndjson > visits.out
                fencerule --fences f.json both.ndjson > fences.out
                fix2gpx both.ndjson > both.gpx && gpx2fix both.gpx > back.ndjson
                fix2gpx --geojson both.ndjson > both.geojson
                fixstats both.ndjson > stats.out
                """#)
            #expect(r.status == 0, "\(r.stderr)")
            let e9 = Array(#""trace":"caf"#.utf8) + [0xE9, 0x22]
            let e8 = Array(#""trace":"caf"#.utf8) + [0xE8, 0x22]
            for (file, each) in [("visits.out", 1), ("fences.out", 1), ("stats.out", 1)] {
                let out = try [UInt8](Data(contentsOf: dir.appendingPathComponent(file)))
                #expect(
                    out.occurrences(of: e9) == each && out.occurrences(of: e8) == each,
                    "\(file): \(String(decoding: out, as: UTF8.self))")
            }
            // The GPX holds the bytes as U+10FFE9 and U+10FFE8 (fix(5)), valid XML, and reads back
            // as the same bytes: the records come back exactly.
            let gpx = try Data(contentsOf: dir.appendingPathComponent("both.gpx"))
            #expect(String(data: gpx, encoding: .utf8)?.contains("<name>caf\u{10FFE9}</name>") == true)
            #expect(String(data: gpx, encoding: .utf8)?.contains("<name>caf\u{10FFE8}</name>") == true)
            let back = try [UInt8](Data(contentsOf: dir.appendingPathComponent("back.ndjson")))
            #expect(back.occurrences(of: e9) == 900 && back.occurrences(of: e8) == 900)
            let geojson = try [UInt8](Data(contentsOf: dir.appendingPathComponent("both.geojson")))
            #expect(
                geojson.occurrences(of: Array("caf".utf8) + [0xE9]) >= 1
                    && geojson.occurrences(of: Array("caf".utf8) + [0xE8]) >= 1)
        }
    }

    // MARK: - Defect 7: printable messages

    @Test("printableMessage: control and format characters and held bytes escaped, the rest (and backslashes) kept")
    func printable() {
        #expect(printableMessage("plain: caf\u{E9} 5 m") == "plain: caf\u{E9} 5 m")
        #expect(printableMessage("a\u{1B}[31mred\u{0}\u{7F}\u{85}\rb") == "a\\x1b[31mred\\x00\\x7f\\x85\\x0db")
        #expect(printableMessage("x\u{202E}y\u{10FFE9}") == "x\\u{202e}y\\xe9")
        #expect(printableMessage("already \\x7f\ttab") == "already \\x7f\\x09tab", "a tab is escaped too")
    }

    @Test(
        "Binary input, a file name and an option value with control bytes: every message is printable UTF-8",
        arguments: ["gpx2fix", "fixfilter", "visits", "fencerule --fences f.json", "fix2gpx", "fixstats", "fixplot"])
    func messagesArePrintable(_ tool: String) throws {
        try Self.withWalk { dir in
            try Data(#"[{"id":"a","lat":51.5,"lon":-0.12,"radius":50}]"#.utf8).write(
                to: dir.appendingPathComponent("f.json"))
            var binary: [UInt8] = Array("\u{7F}ELF\u{2}\u{1}\u{1}\u{0}\u{1B}[2J".utf8)
            var g = FixGenerator(seed: 7)
            for _ in 0..<3000 { binary.append(UInt8(truncatingIfNeeded: g.nextUInt())) }
            binary += Array("\n{\"lat\":\"\u{1B}]0;owned\u{7}\"}\n{\"lat\":1,\"lon\":2,\"time\":\"\u{1B}[31m\"}\n".utf8)
            try Data(binary).write(to: dir.appendingPathComponent("bin"))
            let r = try Self.sh(
                dir,
                #"""
                cp bin "$(printf 'esc\033[31m\001\351')"
                \#(tool) bin "$(printf 'esc\033[31m\001\351')" "$(printf 'gone\033]0;x\007')" 2>&1 >/dev/null
                \#(tool) --strict "$(printf '\033[2Jnope')" 2>&1 >/dev/null
                \#(tool) --frobnicate "$(printf '\033[2J')" 2>&1
                \#(tool) --strict="$(printf '\033')" 2>&1
                fixfilter --max-hacc "$(printf '\033[2J')" < /dev/null 2>&1
                true
                """#)
            let bytes = [UInt8](r.stdout)
            #expect(
                !bytes.contains { $0 < 0x20 && $0 != 0x0A && $0 != 0x09 || $0 == 0x7F },
                "\(tool): \(r.out.debugDescription)")
            #expect(String(validating: bytes, as: UTF8.self) != nil, "\(tool): not UTF-8")
            #expect(r.out.contains("esc\\x1b[31m\\x01\\xe9"), "\(tool): \(r.out)")
            #expect(r.out.contains("gone\\x1b]0;x\\x07"), "\(tool): \(r.out)")
            #expect(r.out.contains("--max-hacc '\\x1b[2J' is not a number"), "\(r.out)")
        }
    }
}

extension Array where Element == UInt8 {
    /// How many times `needle` occurs, not overlapping.
    func occurrences(of needle: [UInt8]) -> Int {
        guard !needle.isEmpty, needle.count <= count else { return 0 }
        var n = 0
        var i = 0
        while i + needle.count <= count {
            if self[i..<i + needle.count].elementsEqual(needle) {
                n += 1
                i += needle.count
            } else {
                i += 1
            }
        }
        return n
    }
}
