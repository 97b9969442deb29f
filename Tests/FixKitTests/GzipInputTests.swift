import Foundation
import Testing

/// gzip input, against `gzip(1)`'s own reading of the same bytes: concatenated members, a cut
/// at every kind of place, corruption, zero padding, and standard input.
@Suite("gpx2fix reads gzip")
struct GzipInputTests {
    /// An NMEA log of `count` epochs a second apart (checksums computed), as text.
    static func log(_ count: Int, date: String = "010126") -> String {
        func checksum(_ body: String) -> String {
            String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 })
        }
        var text = ""
        for k in 0..<count {
            let t = String(format: "%02d%02d%02d.00", 9 + k / 3600, (k / 60) % 60, k % 60)
            let body = "GPRMC,\(t),A,4807.\(String(format: "%03d", k % 1000)),N,01131.000,E,0.0,0.0,\(date),,,A"
            text += "$\(body)*\(checksum(body))\r\n"
        }
        return text
    }

    struct Scratch {
        let dir: URL
        init() throws {
            dir = TestScratch.root.appendingPathComponent("fixkit-gzip-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        func remove() { try? FileManager.default.removeItem(at: dir) }
        func gzip(_ text: String, as name: String) throws -> URL {
            let plain = dir.appendingPathComponent(name + ".plain")
            try Data(text.utf8).write(to: plain)
            let url = dir.appendingPathComponent(name)
            let r = try Tools.shell("gzip -9 -n -c '\(plain.path)' > '\(url.path)'")
            try #require(r.status == 0, "gzip: \(r.stderr)")
            return url
        }
    }

    static let gzipMissing = "gzip is not on PATH: the gzip tests are skipped"

    @Test(
        "concatenated members read as one stream; the trace drops .gz",
        .enabled(if: Tools.which("gzip") != nil, Comment(rawValue: gzipMissing)))
    func members() throws {
        let s = try Scratch()
        defer { s.remove() }
        let a = try s.gzip(Self.log(300), as: "a.gz")
        let b = try s.gzip(Self.log(300, date: "020126"), as: "b.gz")
        let both = s.dir.appendingPathComponent("day.nmea.gz")
        try (try Data(contentsOf: a) + Data(contentsOf: b)).write(to: both)
        let r = try Tools.run("gpx2fix", [both.path])
        #expect(r.status == 0, "\(r.stderr)")
        let fixes = try Tools.objects(Data(r.out.utf8))
        #expect(fixes.count == 600)
        #expect(fixes.allSatisfy { $0["trace"] as? String == "day.nmea" })
        // Standard input has no name: no trace from it, the same fixes otherwise.
        let piped = try Tools.run("gpx2fix", [], stdin: try Data(contentsOf: both))
        #expect(try Tools.objects(Data(piped.out.utf8)).count == 600)
    }

    @Test(
        "a cut gives every fix gzip -d can give, then an error; never a crash",
        .enabled(if: Tools.which("gzip") != nil, Comment(rawValue: gzipMissing)))
    func truncated() throws {
        let s = try Scratch()
        defer { s.remove() }
        let text = Self.log(2000)
        let full = try Data(contentsOf: try s.gzip(text, as: "full.gz"))
        for cut in [10, 11, 30, full.count / 3, full.count / 2, full.count - 9, full.count - 1] {
            let url = s.dir.appendingPathComponent("cut.nmea.gz")
            try full.prefix(cut).write(to: url)
            // What gzip itself recovers from the same bytes: whole lines before the cut.
            let reference = try Tools.shell(
                "gzip -dc < '\(url.path)' 2>/dev/null | tr -d '\\r' | grep -c 'A\\*' || true")
            let r = try Tools.run("gpx2fix", [url.path])
            #expect(r.status == 1, "cut at \(cut): \(r.stderr)")
            #expect(r.stderr.contains("cut.nmea.gz: the gzip data ends early"), "cut at \(cut): \(r.stderr)")
            let got = try Tools.objects(Data(r.out.utf8)).count
            let whole = Int(reference.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            // gzip -dc may emit a last partial line that gpx2fix also reads as a line.
            #expect(
                got >= whole - 1 && got <= whole, "cut at \(cut): gpx2fix \(got) fixes, gzip gives \(whole) whole lines"
            )
        }
    }

    @Test(
        "corrupt data is an error after what came before; zero padding after the last member is ignored",
        .enabled(if: Tools.which("gzip") != nil, Comment(rawValue: gzipMissing)))
    func corruptAndPadded() throws {
        let s = try Scratch()
        defer { s.remove() }
        var bytes = try Data(contentsOf: try s.gzip(Self.log(500), as: "x.gz"))
        let padded = s.dir.appendingPathComponent("padded.gz")
        try (bytes + Data(count: 4096)).write(to: padded)
        let p = try Tools.run("gpx2fix", [padded.path])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(try Tools.objects(Data(p.out.utf8)).count == 500)
        // Flip bits in the trailer's CRC-32: the data inflates, and the check fails at the end.
        bytes[bytes.count - 6] ^= 0xFF
        let bad = s.dir.appendingPathComponent("bad.gz")
        try bytes.write(to: bad)
        let r = try Tools.run("gpx2fix", [bad.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.gz: the gzip data is corrupt"), "\(r.stderr)")
        #expect(try Tools.objects(Data(r.out.utf8)).count == 500)
    }
}
