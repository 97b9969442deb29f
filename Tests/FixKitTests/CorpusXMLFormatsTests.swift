import Foundation
import Testing

/// `gpx2fix` over every TCX and KML file of the shared corpus, against an independent reader,
/// `Tests/oracle/xml_oracle.py` (Python's xml.etree, which builds the whole tree; gpx2fix
/// streams): the same fixes, field by field and by value, the same exit status, and no crash.
///
/// Known, explained differences: none at present. `legacy_kml22_statistics_marker.kml` holds
/// a Point at "180.0,100.0" (latitude 100), which both readers skip and report, so both exit 1.
@Suite("Corpus TCX and KML: gpx2fix against xml.etree")
struct CorpusXMLFormatsTests {
    static let formats = ["tcx", "kml"]

    static let files: [String] = {
        guard let corpus = Tools.corpus else { return [] }
        return formats.flatMap { format in
            ((try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent(format).path)) ?? [])
                .filter { $0.hasSuffix("." + format) }.sorted().map { "\(format)/\($0)" }
        }
    }()

    static let oracle = Tools.packageRoot.appendingPathComponent("Tests/oracle/xml_oracle.py")

    /// Files that hold something to report (exit 1), with the reason.
    static let expectedProblems: [String: String] = [
        "kml/opentracks__src__androidTest__res__raw__legacy_kml22_statistics_marker.kml":
            "a Point at latitude 100, out of range"
    ]

    @Test(
        "gpx2fix reads TCX and KML as xml.etree does, field by field",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(if: CorpusGPXTests.python != nil, Comment(rawValue: CorpusGPXTests.pythonMissing)),
        arguments: CorpusXMLFormatsTests.files, [false, true])
    func sameFixesAsOracle(file: String, waypoints: Bool) throws {
        let path = try #require(Tools.corpus).appendingPathComponent(file).path
        let python = try #require(CorpusGPXTests.python)
        let format = String(file.prefix(while: { $0 != "/" }))
        let options = waypoints ? ["--waypoints"] : []
        let tool = try Tools.run("gpx2fix", options + [path])
        let oracle = try Tools.runExecutable(python, [Self.oracle.path, format] + options + [path])
        try #require(oracle.status == 0 || oracle.status == 1, "the oracle failed on \(file): \(oracle.stderr)")
        #expect(tool.status == 0 || tool.status == 1, "gpx2fix \(file) ended with \(tool.status): \(tool.stderr)")
        #expect(
            tool.status == oracle.status,
            "\(file): gpx2fix exits \(tool.status), the oracle \(oracle.status): \(tool.stderr)")
        #expect(tool.status == (Self.expectedProblems[file] == nil ? 0 : 1), "\(file): \(tool.stderr.prefix(500))")
        for line in tool.stderr.split(separator: "\n") {
            #expect(
                CorpusGPXTests.problemLine(String(line), tool: "gpx2fix", path: path) != nil, "not FILE:LINE: \(line)")
        }

        let mine = try CorpusGPXTests.fixes(tool.out, who: "gpx2fix", file: file)
        let theirs = try CorpusGPXTests.fixes(oracle.out, who: "oracle", file: file)
        #expect(mine.count == theirs.count, "\(file): gpx2fix writes \(mine.count) fixes, the oracle \(theirs.count)")
        let differences = CorpusGPXTests.fieldDifferences(mine, theirs)
        #expect(
            differences.isEmpty,
            "\(file): \(differences.count) differences:\n  \(differences.prefix(10).joined(separator: "\n  "))")
    }

    @Test(
        "a gzipped TCX or KML file gives the same fixes, with the trace from the name without .gz",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        arguments: ["tcx/togeojson__test__data__sample.tcx", "kml/togeojson__test__data__gxtrack.kml"])
    func gzipped(file: String) throws {
        let source = try #require(Tools.corpus).appendingPathComponent(file)
        let dir = TestScratch.root.appendingPathComponent("fixkit-gz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let gz = dir.appendingPathComponent(source.lastPathComponent + ".gz")
        let zipped = try Tools.shell("gzip -c '\(source.path)' > '\(gz.path)'")
        try #require(zipped.status == 0, "gzip failed: \(zipped.stderr)")
        // Same base name in another folder, so that the trace taken from the name is the same.
        let plain = try Tools.run("gpx2fix", [source.path])
        let inflated = try Tools.run("gpx2fix", [gz.path])
        #expect(inflated.status == 0, "\(inflated.stderr)")
        #expect(inflated.out == plain.out)
        #expect(!plain.out.isEmpty)
    }
}
