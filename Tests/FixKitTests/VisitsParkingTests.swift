import Foundation
import Testing

@testable import FixKit

/// visits parks the stays of quiet traces in a temporary file (`StaySpool`) so that memory does
/// not grow with the number of traces. Parking must change nothing: the same streams, run in
/// this process once parking as late as the tool does by default and once at every change of
/// trace, give the same bytes on standard output and standard error.
struct VisitsParkingTests {
    static func run(_ lines: [String], parkAfter: Int, parkAtBytes: Int, arguments: [String] = []) throws -> (
        out: Data, err: Data, status: Int32, parks: Int
    ) {
        // One name for the input in every run, since messages carry it.
        let input = TestScratch.root.appendingPathComponent(
            "fixkit-parking-\(lines.count)-\(lines.first?.count ?? 0).ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        var parks = 0
        let r = try InProcess.run("visits") { context in
            let options = try ParsedOptions(arguments: arguments, table: VisitsTool.description.options)
            var tool = try VisitsTool(options: options)
            tool.parkAfter = parkAfter
            tool.parkAtBytes = parkAtBytes
            defer { parks = tool.parks }
            try tool.run(inputs: [InputName(input.path)], context: context)
        }
        return (r.out, r.err, r.status, parks)
    }

    static func check(_ lines: [String], _ label: String, arguments: [String] = []) throws {
        let late = try run(lines, parkAfter: 65_536, parkAtBytes: 16_384, arguments: arguments)
        let always = try run(lines, parkAfter: 1, parkAtBytes: 0, arguments: arguments)
        #expect(always.parks > 20, "\(label): \(always.parks) parks, too few to prove anything")
        #expect(!late.out.isEmpty, "\(label): no visits, nothing compared")
        #expect(always.out == late.out, "\(label): visits differ when parked at every change of trace")
        #expect(always.err == late.err && always.status == late.status, "\(label)")
    }

    @Test("Generated walks interleaved: parking at every change of trace changes no byte")
    func generated() throws {
        let groups = try PartitionTests.generated()
        try Self.check(PartitionTests.interleave(groups, seed: 1), "generated")
        try Self.check(
            PartitionTests.interleave(groups, seed: 2), "generated, short stays",
            arguments: ["--radius", "30", "--min-stay", "120"])
    }

    @Test(
        "Corpus files interleaved, out of step in time: parking at every change of trace changes no byte",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func corpus() throws {
        let groups = try PartitionTests.corpus()
        try Self.check(PartitionTests.interleave(groups, seed: 3), "corpus")
    }

    @Test("Days one after another (the soak's shape): each day is parked once the next is under way")
    func daysInTurn() throws {
        let lines = VisitsTests.daysInTurn(days: 4, hours: 3, every: 2).flatMap { $0 }
        let plain = try Self.run(lines, parkAfter: Int.max, parkAtBytes: 0)
        let parked = try Self.run(lines, parkAfter: 2000, parkAtBytes: 16_384)
        #expect(plain.parks == 0)
        #expect(parked.parks == 3, "every day but the last, once: \(parked.parks)")
        #expect(parked.out == plain.out && parked.err == plain.err)
    }
}
