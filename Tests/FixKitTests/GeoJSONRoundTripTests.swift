import Foundation
import Testing

@testable import FixKit

/// `gpx2fix | fix2gpx --geojson | gpx2fix` loses nothing, and what fix2gpx writes is GeoJSON
/// as RFC 7946 draws it (checked with Python's json module).
@Suite("fix2gpx --geojson round trip")
struct GeoJSONRoundTripTests {
    /// Generated fixes (every field, edge values, unknown members, traces and segments changing
    /// at random, so runs of one fix become Points) come back byte for byte.
    @Test(arguments: [1 as UInt64, 2, 3, 4])
    func generatedFixesSurvive(seed: UInt64) throws {
        let fixes = RoundTripTests.generated(count: 3000, seed: seed)
        let geojson = try Tools.run("fix2gpx", ["--geojson"], stdin: fixes)
        #expect(geojson.status == 0)
        #expect(geojson.stderr.isEmpty)
        let back = try Tools.run("gpx2fix", [], stdin: geojson.stdout)
        #expect(back.status == 0, "\(back.stderr.prefix(500))")
        // Grouped by trace, as fix2gpx writes each trace's features together.
        let expected = RoundTripTests.groupedByTrace(String(decoding: fixes, as: UTF8.self).split(separator: "\n"))
        let got = back.out.split(separator: "\n")
        #expect(got.count == expected.count)
        for (a, b) in zip(expected, got) where a != b {
            Issue.record("lost in the round trip:\n  \(a)\n  \(b)")
            break
        }
    }

    /// Long runs of one trace and seg: one LineString each, split after 50,000 fixes, the
    /// fields each fix lacks written as null.
    @Test func longSegmentsAndNulls() throws {
        var out: [UInt8] = []
        for i in 0..<120_000 {
            var f = Fix(time: Timestamp(milliseconds: Int64(i) * 1000), lat: 10 + Double(i) * 1e-6, lon: 20, trace: "ride", seg: i / 100_000)
            if i % 3 == 0 { f.hacc = 5 }
            if i == 7 { f.extra = Array(#""hr":150"#.utf8) }
            FixEncoder.encode(f, into: &out)
        }
        let geojson = try Tools.run("fix2gpx", ["--geojson"], stdin: Data(out))
        let text = geojson.out
        // 100,000 fixes of seg 0 in two features (50,000 each), 20,000 of seg 1 in one.
        #expect(text.components(separatedBy: #"{"type":"Feature""#).count - 1 == 3)
        #expect(text.contains(#""hacc":[5,null,null,5"#))
        #expect(text.contains(#""hr":[null,null,null,null,null,null,null,150,null"#))
        let back = try Tools.run("gpx2fix", [], stdin: geojson.stdout)
        #expect(back.out == String(decoding: out, as: UTF8.self))
    }

    /// Interleaved traces: a feature per run, in input order; they come back in that order.
    @Test func interleavedTraces() throws {
        let lines = (0..<6).map { i in #"{"time":"2026-01-01T00:00:0\#(i)Z","lat":1,"lon":\#(i),"trace":"\#(i % 2 == 0 ? "a" : "b")"}"# }
        let input = lines.joined(separator: "\n") + "\n"
        let geojson = try Tools.run("fix2gpx", ["--geojson"], stdin: Data(input.utf8))
        // One LineString per trace, as SPEC says: the traces' fixes are gathered, in the order
        // the traces first appear.
        #expect(geojson.out.components(separatedBy: #""type":"LineString""#).count - 1 == 2)
        #expect(
            geojson.out.split(separator: "\n")[1]
                == #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,1],[2,1],[4,1]]},"properties":{"trace":"a","coordTimes":["2026-01-01T00:00:00Z","2026-01-01T00:00:02Z","2026-01-01T00:00:04Z"]}},"#)
        let back = try Tools.run("gpx2fix", [], stdin: geojson.stdout)
        let grouped = [0, 2, 4, 1, 3, 5].map { lines[$0] }.joined(separator: "\n") + "\n"
        #expect(back.out == grouped)
    }

    @Test func emptyInputIsAnEmptyCollection() throws {
        let r = try Tools.run("fix2gpx", ["--geojson"], stdin: Data())
        #expect(r.out == #"{"type":"FeatureCollection","generator":"fix2gpx (FixKit) \#(fixKitVersion)","features":[]}"# + "\n")
        let usage = try Tools.run("fix2gpx", ["--geojson", "--xcode"], stdin: Data())
        #expect(usage.status == 2)
        #expect(usage.out.isEmpty)
    }

    /// Every GPX file of the corpus: gpx2fix's fixes survive a trip through GeoJSON.
    @Test(
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        arguments: CorpusGPXTests.files)
    func corpusGPX(file: String) throws {
        let path = try #require(CorpusGPXTests.directory).appendingPathComponent(file).path
        let fixes = try Tools.run("gpx2fix", ["--waypoints", path])
        let geojson = try Tools.run("fix2gpx", ["--geojson"], stdin: fixes.stdout)
        #expect(geojson.status == 0, "\(file): \(geojson.stderr)")
        let back = try Tools.run("gpx2fix", ["--waypoints"], stdin: geojson.stdout)
        #expect(back.status == 0, "\(file): \(back.stderr.prefix(300))")
        #expect(back.out == fixes.out, "\(file): the fixes differ after fix2gpx --geojson | gpx2fix")
    }

    /// The output parses as JSON, and each feature is a LineString of two or more positions
    /// or a Point, with as many values in each per-position array as positions.
    @Test(.enabled(if: CorpusGPXTests.python != nil, Comment(rawValue: CorpusGPXTests.pythonMissing)))
    func shapeIsGeoJSON() throws {
        let geojson = try Tools.run("fix2gpx", ["--geojson"], stdin: RoundTripTests.generated(count: 2000, seed: 9))
        let check = """
            import json, sys
            d = json.load(sys.stdin)
            assert d["type"] == "FeatureCollection"
            for f in d["features"]:
                g, p = f["geometry"], f["properties"]
                assert f["type"] == "Feature"
                if g["type"] == "Point":
                    assert all(not isinstance(v, list) or k not in ("coordTimes",) for k, v in p.items())
                else:
                    assert g["type"] == "LineString" and len(g["coordinates"]) >= 2
                    n = len(g["coordinates"])
                    for k, v in p.items():
                        if k not in ("trace", "seg"):
                            assert isinstance(v, list) and len(v) == n, k
                for c in ([g["coordinates"]] if g["type"] == "Point" else g["coordinates"]):
                    assert -180 <= c[0] <= 180 and -90 <= c[1] <= 90 and len(c) in (2, 3)
            print(len(d["features"]))
            """
        let dir = TestScratch.root.appendingPathComponent("fixkit-gj-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("out.geojson")
        try geojson.stdout.write(to: file)
        let r = try Tools.shell("python3 -c \(shellQuote(check)) < \(shellQuote(file.path))")
        #expect(r.status == 0, "\(r.stderr)")
        #expect((Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 100)
    }
}
