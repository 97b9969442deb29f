import Foundation
import Testing

/// `gpx2fix` over every file of the corpus's `geojson/`, `takeout/` and `owntracks/`
/// folders: read without a crash, exit 0 with nothing on standard error but the expected
/// notes, the same fixes field by field as the reference reader `Tests/oracle/json_oracle.py`
/// (Python's json module, written from the man page's tables), the same fixes whatever the
/// input's reads are split into, and the same from a gzip copy.
///
/// There are no differences to explain: every field of every fix agrees, with and without
/// `--waypoints`. What the two readers agree on by design, and a reader of the files might
/// not expect, is listed in `notes` with the reason.
@Suite("Corpus JSON formats: gpx2fix against the reference reader")
struct CorpusJSONTests {
    static let folders = ["geojson", "takeout", "owntracks"]

    static let files: [String] = {
        guard let corpus = Tools.corpus else { return [] }
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent(folder).path)) ?? [])
                .map { "\(folder)/\($0)" }
        }.sorted()
    }()

    static let oracle = Tools.packageRoot.appendingPathComponent("Tests/oracle/json_oracle.py")

    /// Files whose standard error holds a note (after the fixes, exit 0), and why.
    static let notes: [String: String] = [
        // Overland's second feature is an app event ("action": "will_terminate") without geometry.
        "geojson/dawarich__spec__fixtures__files__overland__geodata.json": "features that are not fixes skipped: 1 without geometry",
        // Only waypointPath points (snapped to roads, no times): no fixes at all.
        "takeout/dawarich__spec__fixtures__files__google__semantic_history.json": "waypointPath points have no time",
        // 224 waypointPath points beside the raw paths.
        "takeout/gpsbabel__reference__googletakeout__2013__2013_MAY.json": "waypointPath points have no time",
        // A region-leave event: not a location.
        "owntracks/owntracks-android__project__app__src__test__resources__fixtures__transition_message.json":
            "messages that are not locations skipped: 1 transition",
        // Two "lwt" (last will) lines, one with "tst" as a string.
        "owntracks/owntracks-recorder__etc__demo-iphone.rec": "messages that are not locations skipped: 2 lwt",
    ]
    // Also agreed by design, with no message:
    // - mapbox multitrack.kml.geojson: the Start and End Point features carry a "timestamp",
    //   so they are track fixes (SPEC: "Point features with a time property") beside the
    //   LineString's 16: 18 fixes, the Points with the file's name as trace.
    // - timeline_from_ios_randomized.json holds visits and activities only: its 26 visits are
    //   waypoints, written because the file has no track fixes (activities are not fixes).
    // - dawarich geojson export.json writes coordinates as strings ("0.1"): read as numbers.
    // - Overland's vertical_accuracy -1 (Core Location: altitude invalid) drops alt 0 too.

    static func path(_ file: String) throws -> String {
        try #require(Tools.corpus).appendingPathComponent(file).path
    }

    @Test(
        "gpx2fix reads the file: exit 0, only the expected note, the oracle's fixes",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(if: CorpusGPXTests.python != nil, Comment(rawValue: CorpusGPXTests.pythonMissing)),
        arguments: CorpusJSONTests.files, [false, true])
    func sameFixesAsOracle(file: String, waypoints: Bool) throws {
        let path = try Self.path(file)
        let options = waypoints ? ["--waypoints"] : []
        let tool = try Tools.run("gpx2fix", options + [path])
        #expect(tool.status == 0, "\(file): exit \(tool.status): \(tool.stderr.prefix(1000))")
        if let note = Self.notes[file] {
            #expect(tool.stderr.contains(note), "\(file): expected the note '\(note)', got: \(tool.stderr)")
            #expect(tool.stderr.split(separator: "\n").count == 1, "\(file): one note expected: \(tool.stderr)")
        } else {
            #expect(tool.stderr.isEmpty, "\(file): \(tool.stderr.prefix(1000))")
        }
        let oracle = try Tools.runExecutable(try #require(CorpusGPXTests.python), [Self.oracle.path, path] + options)
        try #require(oracle.status == 0, "the oracle failed on \(file): \(oracle.stderr)")
        try Self.compare(tool.out, oracle.out, file)
    }

    /// Field by field, by value (numbers as the same double, times as the same millisecond).
    static func compare(_ mine: String, _ theirs: String, _ file: String) throws {
        let a = try CorpusGPXTests.fixes(mine, who: "gpx2fix", file: file)
        let b = try CorpusGPXTests.fixes(theirs, who: "oracle", file: file)
        #expect(a.count == b.count, "\(file): gpx2fix writes \(a.count) fixes, the oracle \(b.count)")
        var differences: [String] = []
        for (i, (x, y)) in zip(a, b).enumerated() {
            let keys = Set(x.fields.map(\.key)).union(y.fields.map(\.key))
            for key in keys.sorted() where !CorpusGPXTests.sameValue(key, x[key], y[key]) {
                differences.append("fix #\(i) \(key): gpx2fix \(x[key]?.text ?? "absent"), oracle \(y[key]?.text ?? "absent")")
            }
        }
        #expect(differences.isEmpty, "\(file): \(differences.count) differences:\n  \(differences.prefix(12).joined(separator: "\n  "))")
    }

    @Test(
        "the output does not depend on how the input is split into reads (a pipe fed 1 to 13 bytes at a time)",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(if: CorpusGPXTests.python != nil, Comment(rawValue: CorpusGPXTests.pythonMissing)),
        arguments: CorpusJSONTests.files.filter { (try? FileManager.default.attributesOfItem(atPath: Tools.corpus!.appendingPathComponent($0).path)[.size] as? Int).map { $0 < 60_000 } ?? false })
    func chunkIndependence(file: String) throws {
        let path = try Self.path(file)
        let whole = try Tools.run("gpx2fix", ["--trace-name", "t", path])
        let python = try #require(CorpusGPXTests.python).path
        let feeder = """
            import sys, time
            d = open(sys.argv[1], 'rb').read(); i = 0; k = 0
            sizes = [1, 2, 3, 5, 7, 11, 13]
            while i < len(d):
                n = sizes[k % len(sizes)]; k += 1
                sys.stdout.buffer.write(d[i:i + n]); sys.stdout.buffer.flush(); i += n
                time.sleep(0.0001)
            """
        let script = "\(python) -c \(shellQuote(feeder)) \(shellQuote(path)) | gpx2fix --trace-name t"
        let piped = try Tools.shell(script)
        #expect(piped.status == whole.status, "\(file): exit \(piped.status) from the pipe, \(whole.status) from the file")
        #expect(piped.out == whole.out, "\(file): the output differs when read in small pieces")
        // Messages name the input: "-" for the pipe.
        #expect(
            piped.stderr == whole.stderr.replacingOccurrences(of: path, with: "-"),
            "\(file): messages differ: \(piped.stderr) vs \(whole.stderr)")
    }

    @Test(
        "a gzip copy gives the same fixes, with the trace from the name without .gz",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(if: Tools.which("gzip") != nil, "gzip is not on PATH"),
        arguments: CorpusJSONTests.files)
    func gzipCopy(file: String) throws {
        let path = try Self.path(file)
        let dir = TestScratch.root.appendingPathComponent("fixkit-gz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = (file as NSString).lastPathComponent
        let plain = dir.appendingPathComponent(name).path
        let gz = plain + ".gz"
        _ = try Tools.shell("cp \(shellQuote(path)) \(shellQuote(plain)) && gzip -c \(shellQuote(path)) > \(shellQuote(gz))")
        let a = try Tools.run("gpx2fix", [plain])
        let b = try Tools.run("gpx2fix", [gz])
        #expect(b.status == a.status)
        #expect(b.out == a.out, "\(file): the gzip copy gives other fixes")
        #expect(!a.out.isEmpty == !b.out.isEmpty)
    }
}

func shellQuote(_ s: String) -> String {
    "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
