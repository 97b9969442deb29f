import Foundation
import Testing

@testable import FixKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The output seam (Output/RecordWriter.swift): a document is whole however its writing ends,
/// and no tool writes around it.
@Suite struct OutputSeamTests {
    struct Stop: Error {}

    /// Runs `body` on an `OutputSink` over a scratch file and returns what reached the file.
    func written(_ body: (OutputSink) throws -> Void) throws -> Data {
        let path = TestScratch.root.appendingPathComponent("output-seam-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        let sink = OutputSink(fd: fd)
        do { try body(sink) } catch is Stop {}
        try sink.flush()
        close(fd)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func fixes(_ n: Int) -> [Fix] {
        (0..<n).map { k in
            Fix(
                time: Timestamp.parse("2026-01-01T09:00:\(10 + k)Z"), lat: 51.5 + Double(k) / 1000, lon: -0.12,
                hacc: 5, trace: "walk")
        }
    }

    /// A GeoJSON document stopped after some fixes (as `--strict` stops a run) is a complete
    /// collection holding those fixes, as Foundation's JSON parser reads it; so is one with
    /// none.
    @Test(arguments: [0, 1, 3])
    func geoJSONClosedWhenStopped(count: Int) throws {
        let data = try written { sink in
            try sink.document(TraceDocument(geojson: true, mode: .track)) { document in
                for fix in fixes(count) { try document.write(fix) }
                throw Stop()
            }
        }
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let features = try #require(object["features"] as? [[String: Any]])
        let positions = features.flatMap { feature -> [[Double]] in
            let geometry = feature["geometry"] as? [String: Any]
            if geometry?["type"] as? String == "Point" { return [geometry?["coordinates"] as? [Double] ?? []] }
            return geometry?["coordinates"] as? [[Double]] ?? []
        }
        #expect(positions == fixes(count).map { [$0.lon, $0.lat] })
    }

    /// The same for GPX, as Foundation's XML parser reads it: well formed, every point there.
    @Test(arguments: [false, true], [0, 2])
    func gpxClosedWhenStopped(xcode: Bool, count: Int) throws {
        let data = try written { sink in
            try sink.document(TraceDocument(geojson: false, mode: xcode ? .xcode : .track)) { document in
                for fix in fixes(count) { try document.write(fix) }
                throw Stop()
            }
        }
        final class Points: NSObject, XMLParserDelegate {
            var lats: [Double] = []
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String]
            ) {
                if name == "trkpt" || name == "wpt", let lat = attributes["lat"].flatMap(Double.init) {
                    lats.append(lat)
                }
            }
        }
        let parser = XMLParser(data: data)
        let points = Points()
        parser.delegate = points
        #expect(parser.parse(), "\(String(decoding: data, as: UTF8.self))")
        #expect(points.lats == fixes(count).map(\.lat))
    }

    /// visits' GeoJSON: opened once, closed once, even when closed early and again at the end.
    @Test func visitsClosedOnce() throws {
        let visit = Visit(lat: 1, lon: 2, hacc: 3, arrival: nil, departure: nil, fixes: 4, trace: nil)
        let data = try written { sink in
            var document = sink.open(VisitWriter(geoJSON: true))
            defer { document.close() }
            try document.write(visit)
            try document.write(visit)
            document.close()
        }
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"type":"FeatureCollection","features":["# + "\n"
                + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"hacc":3,"arrival":null,"departure":null,"duration":null,"fixes":4}},"#
                + "\n"
                + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"hacc":3,"arrival":null,"departure":null,"duration":null,"fixes":4}}"#
                + "\n]}\n")
    }

    /// fixfilter's edits of raw lines: the course member out (counted), a member in, and the
    /// line as it was, each ending in a newline.
    @Test func rawLines() throws {
        let text = #"{"lat":1,"course":90,"lon":2}"#
        var decoder = FixDecoder()
        let line = Array(text.utf8)
        var removed = -1
        let data = try written { sink in
            try line.withUnsafeBufferPointer { line in
                _ = try decoder.decode(line)
                try sink.document(RawLines()) { document in
                    try document.write(.removing("course", decoder.course, from: line))
                    try document.write(.appending(Array(#""reason":"move""#.utf8), to: line))
                    try document.write(.unchanged(line))
                    removed = document.writer.removed
                }
            }
        }
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"lat":1,"lon":2}"# + "\n" + #"{"lat":1,"course":90,"lon":2,"reason":"move"}"# + "\n" + text + "\n"
        )
        #expect(removed == 1)
    }

    /// No tool, and not gpx2fix's sink, writes around the seam: the sink's buffer and its
    /// `didAppend` are the record writers' alone.
    @Test func toolsWriteThroughWriters() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/FixKit")
        let tools = try FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent("Tools").path)
            .map { "Tools/\($0)" }
        #expect(tools.count >= 8)
        for file in tools + ["Input/FixSink.swift"] {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for forbidden in [".buffer", "didAppend", "output.write("] {
                #expect(!text.contains(forbidden), "\(file) uses \(forbidden): write through a RecordWriter")
            }
        }
    }
}
