import Foundation
import Testing

@testable import FixKit

/// What a new user hit (issue 15, defects 10-18), tried again with the built tools: text cut
/// without a word, a byte order mark refused, `--strict` messages that say "skipped", help
/// that is slightly wrong, `-` meaning different things, thousands of lines for one binary
/// file, a silent wait on a terminal, the default hacc.
@Suite(.serialized)
struct UsabilityTests {
    static let ndjsonTools = ["fixfilter", "visits", "fix2gpx", "fixstats", "fixplot"]
    static let allTools = ["gpx2fix", "fix2gpx", "fixfilter", "fencerule", "visits", "fixplot", "fixstats", "fixsim"]
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A scratch directory, removed by `body`'s end.
    static func inScratch<R>(_ body: (URL) throws -> R) throws -> R {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixkit-usability-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    static func fences(_ dir: URL, bom: Bool = false) throws -> URL {
        let url = dir.appendingPathComponent("fences.json")
        try Data((bom ? Self.bom : []) + Array(#"[{"id":"home","lat":51.5,"lon":-0.12,"radius":100}]"#.utf8)).write(
            to: url)
        return url
    }

    // MARK: 10. Text over 1 MiB

    /// gpx2fix on a one-point track named `name`: the run, and the trace its fix was given.
    static func runNamed(_ name: String) throws -> (r: Tools.Result, trace: String?) {
        let gpx = """
            <gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><name>\(name)</name><trkseg>
            <trkpt lat="1" lon="2"/></trkseg></trk></gpx>
            """
        let r = try Tools.run("gpx2fix", [], stdin: Data(gpx.utf8))
        let fix = try #require(JSONSerialization.jsonObject(with: Data(r.lines[0].utf8)) as? [String: Any])
        return (r, fix["trace"] as? String)
    }

    @Test func aNameOverOneMiBIsCutAtACharacterAndSaid() throws {
        // 'é' is two bytes: 600,000 of them are 1,200,000 bytes, cut at 1,048,576 = 2 x 524,288.
        let (r, trace) = try Self.runNamed("x" + String(repeating: "é", count: 600_000))
        #expect(r.status == 1)
        #expect(
            r.stderr
                == "gpx2fix: -:1: the text of <name> is 1200001 bytes, more than the 1048576 (1 MiB) kept: its first 1048575 bytes are used\n"
        )
        let kept = try #require(trace)
        #expect(kept.utf8.count == 1_048_575)
        #expect(kept == "x" + String(repeating: "é", count: 524_287))
    }

    /// The cut drops the character it splits; a short piece after it (libxml2 hands over an
    /// entity, `&amp;`, as a piece of its own) must not be kept after the gap.
    @Test func nothingIsKeptAfterTheCut() throws {
        // 'x' and 524,288 'é': the last 'é' straddles byte 1,048,576 and is dropped.
        let (r, trace) = try Self.runNamed("x" + String(repeating: "é", count: 524_288) + "&amp;zzz")
        #expect(r.status == 1)
        #expect(
            r.stderr
                == "gpx2fix: -:1: the text of <name> is 1048581 bytes, more than the 1048576 (1 MiB) kept: its first 1048575 bytes are used\n"
        )
        #expect(trace == "x" + String(repeating: "é", count: 524_287))
    }

    @Test func aKMLWhenOverOneMiBIsSaid() throws {
        let kml = """
            <kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>\(String(repeating: "n", count: 1 << 21))</name>
            <Point><coordinates>2,1</coordinates></Point></Placemark></kml>
            """
        let r = try Tools.run("gpx2fix", ["--format", "kml"], stdin: Data(kml.utf8))
        #expect(r.status == 1)
        #expect(
            r.stderr.contains("the text of <name> is 2097152 bytes, more than the 1048576 (1 MiB) kept"), "\(r.stderr)")
        #expect(r.lines.count == 1)
    }

    @Test func aShortNameSaysNothing() throws {
        let gpx =
            #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Ride</name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#
        let r = try Tools.run("gpx2fix", [], stdin: Data(gpx.utf8))
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty)
    }

    // MARK: 11. A byte order mark

    @Test(arguments: UsabilityTests.ndjsonTools)
    func aBOMBeforeTheFirstFixIsSkipped(_ tool: String) throws {
        let input = Self.bom + Array(#"{"time":"2026-01-01T09:00:00Z","lat":51.5,"lon":-0.12,"hacc":5}"#.utf8) + [0x0A]
        let plain = try Tools.run(tool, [], stdin: Data(Array(input.dropFirst(3))))
        let r = try Tools.run(tool, [], stdin: Data(input))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        #expect(r.stdout == plain.stdout)
    }

    @Test func fixfilterPassesTheFirstLineWithoutItsBOM() throws {
        let r = try Tools.run("fixfilter", [], stdin: Data(Self.bom + Array(#"{"lat":1,"lon":2}"#.utf8)))
        #expect(r.status == 0)
        #expect(r.out == #"{"lat":1,"lon":2}"# + "\n")
    }

    @Test func aBOMInsideTheInputIsStillReported() throws {
        let r = try Tools.run(
            "fixfilter", [], stdin: Data(Array("{\"lat\":1,\"lon\":2}\n".utf8) + Self.bom + Array("{}\n".utf8)))
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("fixfilter: -:2: "))
    }

    @Test func aFencesFileWithABOMIsRead() throws {
        try Self.inScratch { dir in
            let fences = try Self.fences(dir, bom: true)
            let fix = #"{"time":"2026-01-01T09:00:00Z","lat":51.5,"lon":-0.12,"hacc":5}"#
            let r = try Tools.run(
                "fencerule", ["--fences", fences.path, "--rule", "naive"], stdin: Data((fix + "\n").utf8))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.lines.count == 1)
            #expect(r.out.contains(#""event":"enter""#))
            let plot = try Tools.run("fixplot", ["--fences", fences.path], stdin: Data((fix + "\n").utf8))
            #expect(plot.status == 0, "\(plot.stderr)")
            #expect(plot.out.contains(#"data-fence="home""#))
        }
    }

    @Test(arguments: [
        ("csv", "lat,lon\n1,2\n"),
        ("nmea", "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\n"),
        (
            "geojson",
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"time":"2026-01-01T00:00:00Z"}}"#
        ),
        (
            "gpx",
            #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#
        ),
        ("ndjson", #"{"lat":1,"lon":2}"#),
    ])
    func gpx2fixSkipsABOMInEveryFormat(_ format: String, _ text: String) throws {
        let r = try Tools.run("gpx2fix", ["--date", "2026-01-01"], stdin: Data(Self.bom + Array(text.utf8)))
        #expect(r.status == 0, "\(format): \(r.stderr)")
        #expect(r.lines.count == 1, "\(format)")
    }

    // MARK: 12. --strict says that the tool stopped

    @Test func strictMessagesSayTheToolStopped() throws {
        let nd = try Tools.run(
            "fixfilter", ["--strict"], stdin: Data("{\"lat\":1,\"lon\":2}\nxx\n{\"lat\":3,\"lon\":4}\n".utf8))
        #expect(nd.status == 1)
        #expect(
            nd.stderr
                == "fixfilter: -:2: a fix is a JSON object, but the line starts with 'x' (at byte 1); stopped (--strict)\n"
        )
        #expect(nd.lines == [#"{"lat":1,"lon":2}"#])
        let gpx =
            #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="1" lon="2"><ele>x</ele></trkpt></trkseg></trk></gpx>"#
        let g = try Tools.run("gpx2fix", ["--strict"], stdin: Data(gpx.utf8))
        #expect(g.status == 1)
        #expect(g.stderr == "gpx2fix: -:1: <ele>x</ele> is not a number; stopped (--strict)\n")
        // Without --strict, the same messages say what was skipped.
        let g2 = try Tools.run("gpx2fix", [], stdin: Data(gpx.utf8))
        #expect(g2.stderr == "gpx2fix: -:1: <ele>x</ele> is not a number; left out\n")
    }

    @Test(arguments: [
        ("a fix needs \"lon\"; line skipped", "a fix needs \"lon\"; stopped (--strict)"),
        (
            "<time>x</time> is not an ISO 8601 time; time left out",
            "<time>x</time> is not an ISO 8601 time; stopped (--strict)"
        ),
        ("column \"x\": the unit is unknown; column ignored", "column \"x\": the unit is unknown; stopped (--strict)"),
        ("more than 1048576 bytes: skipped up to the end of the line", "more than 1048576 bytes; stopped (--strict)"),
        (
            "byte 12: a definition is not trusted: left out of its messages",
            "byte 12: a definition is not trusted; stopped (--strict)"
        ),
        ("the input is empty: expected GPS data (gpx, nmea)", "the input is empty: expected GPS data (gpx, nmea)"),
        ("cannot read: No such file or directory", "cannot read: No such file or directory"),
    ])
    func strictWording(_ message: String, _ expected: String) {
        #expect(Diagnostics.stopping(message) == expected)
    }

    // MARK: 13. --help

    @Test(arguments: UsabilityTests.allTools)
    func helpListsH(_ tool: String) throws {
        let r = try Tools.run(tool, ["--help"])
        #expect(r.status == 0)
        #expect(r.out.contains("\n  -h, --help "))
        #expect(try Tools.run(tool, ["-h"]).stdout == r.stdout)
    }

    /// Every line of --help fits an 80-column terminal, the cursor after it: the prose is
    /// filled to 79 columns (`ToolDescription.fill`), and the examples and tables, written
    /// by hand, must fit as well.
    @Test(arguments: UsabilityTests.allTools)
    func helpFitsEightyColumns(_ tool: String) throws {
        let r = try Tools.run(tool, ["--help"])
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        let long = lines.filter { $0.count > 79 }
        #expect(long.isEmpty, "\(tool) --help, lines over 79 columns:\n\(long.joined(separator: "\n"))")
        // Filling joins no example or table row into prose: what was indented still is.
        #expect(lines.contains { $0.hasPrefix("  \(tool) ") || $0.contains("| \(tool)") })
    }

    @Test func wrapKeepsNumbersWithUnitsAndNoBreakSpaces() {
        #expect(wrap("moves of 500 m, up to 25 m/s", width: 13) == ["moves of", "500 m, up to", "25 m/s"])
        #expect(wrap("NMEA\u{00A0}0183 and gpsd", width: 6) == ["NMEA 0183", "and", "gpsd"])
        // A word that only looks like a unit after something that is no number is a word.
        #expect(wrap("plan m", width: 4) == ["plan", "m"])
        #expect(wrap("", width: 10) == [""])
    }

    @Test func fillJoinsProseAndKeepsIndentedLines() {
        let details = "One two\nthree four.\n\nExamples:\n  tool --a | tool --b\n"
        #expect(
            ToolDescription.fill(details, width: 9)
                == "One two\nthree\nfour.\n\nExamples:\n  tool --a | tool --b")
    }

    @Test func fixsimHelpSpeaksOfNoInput() throws {
        let r = try Tools.run("fixsim", ["--help"])
        #expect(!r.out.contains("input problem"))
        #expect(!r.out.contains("FILE"))
        #expect(!r.out.contains("input was skipped"))
        #expect(r.out.contains("1 when the output could not be"))
    }

    @Test(arguments: UsabilityTests.allTools)
    func aFailedWriteOfHelpOrVersionIsSaid(_ tool: String) throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        for option in ["--help", "--version"] {
            let r = try Tools.shell("\(tool) \(option) > /dev/full")
            #expect(r.status == 1, "\(tool) \(option)")
            #expect(r.stderr == "\(tool): writing output failed: No space left on device\n")
        }
        // A reader that stops early is no failure.
        let head = try Tools.shell("\(tool) --help | head -c 10 > /dev/null; echo \"status ${PIPESTATUS[0]}\"")
        #expect(head.out == "status 0\n")
        #expect(head.stderr.isEmpty)
    }

    // MARK: 14. '-' is standard input or standard output everywhere

    @Test func rejectsDashGoesToStandardOutputInOrder() throws {
        try Self.inScratch { dir in
            let input = """
                {"lat":51.5,"lon":-0.12,"hacc":5}
                {"lat":51.6,"lon":-0.12,"hacc":500}
                {"lat":51.7,"lon":-0.12,"hacc":5}

                """
            let r = try Tools.run("fixfilter", ["--rejects", "-"], stdin: Data(input.utf8), in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.lines == [
                    #"{"lat":51.5,"lon":-0.12,"hacc":5}"#, #"{"lat":51.6,"lon":-0.12,"hacc":500,"reason":"hacc"}"#,
                    #"{"lat":51.7,"lon":-0.12,"hacc":5}"#,
                ])
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("-").path))
        }
    }

    @Test func fencesDashReadsStandardInput() throws {
        try Self.inScratch { dir in
            let fixes = dir.appendingPathComponent("fixes.ndjson")
            try Data(#"{"time":"2026-01-01T09:00:00Z","lat":51.5,"lon":-0.12,"hacc":5}"#.utf8).write(to: fixes)
            let fences = try Data(contentsOf: try Self.fences(dir))
            let r = try Tools.run("fencerule", ["--fences", "-", "--rule", "naive", fixes.path], stdin: fences)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.out.contains(#""event":"enter","fence":"home""#))
            let plot = try Tools.run("fixplot", ["--fences", "-", fixes.path], stdin: fences)
            #expect(plot.status == 0, "\(plot.stderr)")
            #expect(plot.out.contains(#"data-fence="home""#))
            for (tool, operands) in [("fencerule", [String]()), ("fencerule", [fixes.path, "-"]), ("fixplot", [])] {
                let both = try Tools.run(tool, ["--fences", "-"] + operands, stdin: fences)
                #expect(both.status == 2, "\(tool) \(operands)")
                #expect(both.stdout.isEmpty)
                #expect(
                    both.stderr.hasPrefix("\(tool): --fences - reads standard input, which the fixes are read from too")
                )
            }
        }
    }

    @Test func splitDashIsRefused() throws {
        try Self.inScratch { dir in
            let r = try Tools.run("fix2gpx", ["--split", "-"], stdin: Data(#"{"lat":1,"lon":2}"#.utf8), in: dir)
            #expect(r.status == 2)
            #expect(r.stderr.hasPrefix("fix2gpx: --split - names no directory"))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("-").path))
        }
    }

    // MARK: 15. The same problem over and over

    @Test func aBinaryFileGivesAScreenfulAndACount() throws {
        // 1,000 lines that are not JSON, as a binary file gives.
        let input = (0..<1000).map { "\u{7F}ELF \($0)\n" }.joined()
        let r = try Tools.run("fixfilter", [], stdin: Data(input.utf8))
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 11)
        #expect(
            lines[0]
                == "fixfilter: -:1: a fix is a JSON object, but the line starts with byte 0x7f (at byte 1); line skipped"
        )
        #expect(lines[9].hasSuffix("(10 problems like this: more of them in this input are counted, not shown)"))
        #expect(lines[10] == "fixfilter: -: 990 more problems like those above not shown")
    }

    @Test func eachKindAndEachInputHasItsOwnTen() throws {
        try Self.inScratch { dir in
            var text = ""
            for k in 0..<15 { text += #"{"lat":\#(91 + k),"lon":0}"# + "\n" }  // lat out of range
            for k in 0..<12 { text += #"{"lat":0,"lon":"\#(k)"}"# + "\n" }  // lon not a number
            text += #"{"lat":1,"lon":2}"# + "\n"
            let a = dir.appendingPathComponent("a.ndjson")
            let b = dir.appendingPathComponent("b.ndjson")
            try Data(text.utf8).write(to: a)
            try Data(text.utf8).write(to: b)
            let r = try Tools.run("fixfilter", ["--min-move", "off", a.path, b.path])
            #expect(r.status == 1)
            #expect(r.lines.count == 2)
            let lines = r.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 2 * 21, "\(r.stderr)")
            #expect(lines.filter { $0.hasPrefix("fixfilter: \(a.path):") && $0.contains("lat ") }.count == 10)
            #expect(lines[20] == "fixfilter: \(a.path): 7 more problems like those above not shown")
            #expect(lines[41] == "fixfilter: \(b.path): 7 more problems like those above not shown")
        }
    }

    @Test func kinds() {
        #expect(Diagnostics.kind(of: "lat 95 is out of range") == Diagnostics.kind(of: "lat 97 is out of range"))
        #expect(Diagnostics.kind(of: "lat 95 is out of range") != Diagnostics.kind(of: "lon 95 is out of range"))
        #expect(
            Diagnostics.kind(of: "\"time\" \"x\" is not an RFC 3339 time")
                == Diagnostics.kind(of: "\"time\" \"yesterday\" is not an RFC 3339 time"))
    }

    // MARK: 16. A terminal on standard input

    /// Runs a tool with standard input, output and error on a pseudo-terminal (python3's pty
    /// module) and returns its first line (within 10 s), or what it wrote before it ended;
    /// then it is killed.
    static func onTerminal(_ tool: String, _ arguments: [String]) throws -> String? {
        guard Tools.which("python3") != nil else { return nil }
        let script = """
            import os, pty, select, sys, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            out = b""
            end = time.time() + 10
            while time.time() < end:
                r, _, _ = select.select([fd], [], [], 0.2)
                if r:
                    try:
                        d = os.read(fd, 4096)
                    except OSError:
                        break
                    if not d:
                        break
                    out += d
                    if b"\\n" in out:
                        break
            try:
                os.kill(pid, 9)
            except OSError:
                pass
            os.waitpid(pid, 0)
            sys.stdout.write(out.decode("utf-8", "replace"))
            """
        let exe = Tools.productsDirectory.appendingPathComponent(tool).path
        let r = try Tools.runExecutable(try #require(Tools.which("python3")), ["-c", script, exe] + arguments)
        return r.out
    }

    @Test func aTerminalOnStandardInputGetsAHint() throws {
        guard let out = try Self.onTerminal("fixfilter", []) else {
            print("python3 is missing: the terminal test is skipped")
            return
        }
        #expect(
            out.contains(
                "fixfilter: reading standard input from the terminal (end it with Ctrl-D); name input files as operands, or see 'fixfilter --help'"
            ), "\(out)")
        let named = try #require(try Self.onTerminal("fixfilter", ["/dev/null"]))
        #expect(!named.contains("reading standard input"), "\(named)")
        let gpx2fix = try #require(try Self.onTerminal("gpx2fix", []))
        #expect(gpx2fix.contains("gpx2fix: reading standard input from the terminal"))
    }

    // MARK: 17, 18. The default hacc

    @Test func theDefaultHaccIsSaidOncePerRunByTheToolsThatUseIt() throws {
        try Self.inScratch { dir in
            var paths: [String] = []
            for k in 0..<2 {
                let url = dir.appendingPathComponent("walk\(k).ndjson")
                // One trace a file: one trace's fixes at the same times twice would go back in time.
                let lines = (0..<5).map {
                    #"{"time":"2026-01-01T09:00:0\#($0)Z","lat":51.5,"lon":-0.12,"trace":"walk\#(k)"}"#
                }
                try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
                paths.append(url.path)
            }
            let fences = try Self.fences(dir)
            let note = "fixes without hacc are taken as --default-hacc 10 m"
            let fr = try Tools.run("fencerule", ["--fences", fences.path] + paths)
            #expect(fr.stderr == "fencerule: \(note)\n")
            let v = try Tools.run("visits", paths)
            #expect(v.stderr == "visits: \(note)\n")
            for tool in ["fixfilter", "fix2gpx", "fixstats"] {
                let r = try Tools.run(tool, paths)
                #expect(r.status == 0)
                #expect(!r.stderr.contains("hacc"), "\(tool): \(r.stderr)")
            }
            let gpx = try Tools.run("gpx2fix", [Tools.fixtures.appendingPathComponent("gpx/gpx10.gpx").path])
            #expect(!gpx.stderr.contains("hacc"))
        }
    }

    /// Fixes without hacc at home, a few 65 m away over a minute, home again: with 10 m the
    /// excursion lies outside radius + hacc (60 m) and is left out of the stay (which goes on,
    /// as back-to-back visits merge); with 20 m (70 m) its 8 fixes are part of it. visits'
    /// default is 10, as fencerule's.
    @Test func visitsDefaultHaccIsTen() throws {
        var lines: [String] = []
        var t = 0
        func add(_ east: Double) {
            let lon = -0.12 + east / (111_320 * cos(51.5 * .pi / 180))
            lines.append(
                #"{"time":"\#(Timestamp(seconds: 1_767_258_000 + Double(t)).rfc3339)","lat":51.5,"lon":\#(lon)}"#)
            t += 10
        }
        for _ in 0..<60 { add(0) }
        for _ in 0..<8 { add(65) }
        for _ in 0..<60 { add(0) }
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let byDefault = try Tools.run("visits", [], stdin: input)
        let ten = try Tools.run("visits", ["--default-hacc", "10"], stdin: input)
        let twenty = try Tools.run("visits", ["--default-hacc", "20"], stdin: input)
        #expect(byDefault.stdout == ten.stdout)
        #expect(twenty.lines.count == 1 && twenty.out.contains(#""fixes":128"#), "\(twenty.out)")
        #expect(ten.lines.count == 1 && ten.out.contains(#""fixes":120"#), "\(ten.out)")
        #expect(StaySettings().defaultHacc == DefaultHacc.metres)
        #expect(DefaultHacc.metres == 10)
    }

    // MARK: The one error protocol (issue 9, point 4)

    @Test func everyErrorSaysItsExitAndUsage() {
        let cases: [(any ToolError, ToolExit, Bool)] = [
            (UsageError("x"), .status(2), true),
            (OptionFileError("x"), .status(2), false),
            (ToolFailure("x"), .status(1), false),
            (InputError(name: InputName("a.gpx"), errno: ENOENT), .status(1), false),
            (OutputError.failed(errno: ENOSPC), .status(1), false),
            (OutputError.closed, .quietly, false),
            (StrictStop(), .quietly, false),
            (FixDecodingError(message: "x"), .status(1), false),
        ]
        for (error, exit, usage) in cases {
            #expect(error.exit == exit, "\(error)")
            #expect(error.showsUsage == usage, "\(error)")
        }
        let input = InputError(name: InputName("a.gpx"), errno: ENOENT)
        #expect(input.location == ErrorLocation(InputName("a.gpx")))
        #expect(input.message == "cannot read: No such file or directory")
    }

    @Test func aJSONErrorAboutTheWholeRecordHasNoOffset() throws {
        var decoder = FixDecoder()
        let line = Array(#"{"lat":1}"#.utf8)
        #expect {
            try line.withUnsafeBufferPointer { try decoder.decode($0) }
        } throws: { error in
            (error as? FixDecodingError)?.message == #"a fix needs "lon" (WGS 84 degrees) but this object has no "lon""#
        }
        #expect(JSONStreamReader.line(of: nil, in: UnsafeBufferPointer(start: nil, count: 0), from: 7) == 7)
    }

    /// In-process, through the one catch: bad usage says the usage hint and writes nothing.
    @Test func theOneCatchGivesTheStatusAndTheUsageHint() throws {
        try Self.inScratch { dir in
            let out = dir.appendingPathComponent("out")
            let err = dir.appendingPathComponent("err")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            FileManager.default.createFile(atPath: err.path, contents: nil)
            let o = try FileHandle(forWritingTo: out)
            let e = try FileHandle(forWritingTo: err)
            let status = ToolMain.run(
                FixFilter.self, arguments: ["--max-hacc", "x"], outputFD: o.fileDescriptor, errorFD: e.fileDescriptor)
            try o.close()
            try e.close()
            #expect(status == 2)
            #expect(try Data(contentsOf: out).isEmpty)
            #expect(
                String(decoding: try Data(contentsOf: err), as: UTF8.self)
                    == "fixfilter: --max-hacc 'x' is not a number or 'off'\nTry 'fixfilter --help' for more information.\n"
            )
        }
    }
}
