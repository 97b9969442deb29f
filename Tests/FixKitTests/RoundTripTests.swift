import Foundation
import Testing

@testable import FixKit

/// `gpx2fix | fix2gpx | gpx2fix` loses nothing, and what fix2gpx writes is valid GPX 1.1.
struct RoundTripTests {
    static let schema: URL? = {
        let inCorpus = Tools.corpus?.appendingPathComponent("xsd/gpx-ideas__docs__xmlschemas__topografix__gpx__1__1__gpx.xsd")
        let local = Tools.fixtures.appendingPathComponent("xsd/gpx-1.1.xsd")
        for url in [inCorpus, local].compactMap({ $0 }) where FileManager.default.fileExists(atPath: url.path) {
            return url
        }
        return nil
    }()

    static func generated(count: Int, seed: UInt64) -> Data {
        var g = FixGenerator(seed: seed)
        var out: [UInt8] = []
        for _ in 0..<count { FixEncoder.encode(g.next(), into: &out) }
        return Data(out)
    }

    /// The fixes as fix2gpx orders them: one track per trace, traces in the order they first
    /// appear, each trace's fixes in input order (a stable grouping).
    static func groupedByTrace(_ lines: [Substring]) -> [Substring] {
        var order: [String?] = []
        var groups: [String?: [Substring]] = [:]
        for line in lines {
            var decoder = FixDecoder()
            let trace = Array(line.utf8).withUnsafeBufferPointer { try? decoder.decode($0) }?.trace
            if groups[trace] == nil { order.append(trace) }
            groups[trace, default: []].append(line)
        }
        return order.flatMap { groups[$0] ?? [] }
    }

    /// Thousands of generated fixes, every field and unknown members included, come back byte
    /// for byte, grouped by trace. gpx2fix reads standard input, so a track without a name
    /// stays without trace.
    @Test(arguments: [1 as UInt64, 2, 3])
    func generatedFixesSurvive(seed: UInt64) throws {
        let fixes = RoundTripTests.generated(count: 3000, seed: seed)
        let gpx = try Tools.run("fix2gpx", [], stdin: fixes)
        #expect(gpx.status == 0)
        #expect(gpx.stderr.isEmpty)
        let back = try Tools.run("gpx2fix", [], stdin: gpx.stdout)
        #expect(back.status == 0, "\(back.stderr)")
        let expected = RoundTripTests.groupedByTrace(String(decoding: fixes, as: UTF8.self).split(separator: "\n"))
        let got = back.out.split(separator: "\n")
        #expect(got.count == expected.count)
        for (a, b) in zip(expected, got) where a != b {
            Issue.record("lost in the round trip:\n  \(a)\n  \(b)")
            break
        }
    }

    @Test(.enabled(if: Tools.which("xmllint") != nil && RoundTripTests.schema != nil, "needs xmllint and the GPX 1.1 schema"))
    func outputIsValidGPX11() throws {
        let fixes = RoundTripTests.generated(count: 2000, seed: 7)
        for args in [[], ["--xcode", "--pace", "1.4"]] {
            let gpx = try Tools.run("fix2gpx", args, stdin: fixes)
            let file = TestScratch.root.appendingPathComponent("fixkit-\(UUID().uuidString).gpx")
            defer { try? FileManager.default.removeItem(at: file) }
            try gpx.stdout.write(to: file)
            let lint = try Tools.runExecutable(
                Tools.which("xmllint")!, ["--noout", "--nonet", "--schema", RoundTripTests.schema!.path, file.path])
            #expect(lint.status == 0, "\(args): \(lint.stderr.prefix(2000))")
        }
    }
}
