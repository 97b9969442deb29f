import Foundation
import Testing

@testable import FixKit

/// gpx2fix's `--format` and `--trace-name`, as gpx2fix(1) describes them.
@Suite("gpx2fix --format and --trace-name")
struct Gpx2FixFormatOptionTests {
    static let gpx = """
        <?xml version="1.0"?>
        <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Ride</name><trkseg>
        <trkpt lat="51.5" lon="-0.12"><time>2026-01-01T09:00:00Z</time></trkpt>
        <trkpt lat="51.6" lon="-0.13"><time>2026-01-01T09:00:01Z</time></trkpt>
        </trkseg></trk></gpx>

        """

    @Test func helpListsEveryFormatOnceAndExitsZero() throws {
        let r = try Tools.run("gpx2fix", ["--format", "help"])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty)
        let names = r.out.split(separator: "\n").dropFirst().map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(names == InputFormats.all.map { $0.name })
    }

    @Test func anUnknownFormatIsAUsageErrorWithNothingWritten() throws {
        let r = try Tools.run("gpx2fix", ["--format", "shp"], stdin: Data(Self.gpx.utf8))
        #expect(r.status == 2)
        #expect(r.out.isEmpty)
        #expect(r.stderr.contains("--format 'shp' is not a format gpx2fix reads"))
    }

    @Test func aForcedFormatIsUsedWhateverTheContent() throws {
        // GPX read as NMEA: no sentence in it, so nothing is recognised and it is reported.
        let r = try Tools.run("gpx2fix", ["--format", "nmea"], stdin: Data(Self.gpx.utf8))
        #expect(r.status == 1)
        #expect(r.out.isEmpty)
        #expect(r.stderr.contains("not a format gpx2fix reads"))
        // Named in any case; the same fixes as when recognised.
        let forced = try Tools.run("gpx2fix", ["--format", "GPX"], stdin: Data(Self.gpx.utf8))
        let recognised = try Tools.run("gpx2fix", [], stdin: Data(Self.gpx.utf8))
        #expect(forced.status == 0)
        #expect(forced.out == recognised.out)
        #expect(try Tools.objects(Data(forced.out.utf8)).count == 2)
    }

    @Test func traceNameGivesEveryFixOneTrace() throws {
        let r = try Tools.run("gpx2fix", ["--trace-name", "Morning ride"], stdin: Data(Self.gpx.utf8))
        #expect(r.status == 0)
        let fixes = try Tools.objects(Data(r.out.utf8))
        #expect(fixes.count == 2)
        #expect(fixes.allSatisfy { $0["trace"] as? String == "Morning ride" })
        let empty = try Tools.run("gpx2fix", ["--trace-name", ""], stdin: Data(Self.gpx.utf8))
        #expect(empty.status == 2)
        #expect(empty.out.isEmpty)
    }
}
