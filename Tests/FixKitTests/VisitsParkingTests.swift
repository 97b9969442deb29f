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
        let dir = TestScratch.root.appendingPathComponent("fixkit-parking-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // One name for the input in every run, since messages carry it.
        let input = TestScratch.root.appendingPathComponent(
            "fixkit-parking-\(lines.count)-\(lines.first?.count ?? 0).ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let outPath = dir.appendingPathComponent("out").path
        let errPath = dir.appendingPathComponent("err").path
        let outFD = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let errFD = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(outFD)
            close(errFD)
        }
        let output = OutputSink(fd: outFD)
        let diagnostics = Diagnostics(tool: "visits", strict: false, fd: errFD)
        let context = ToolContext(output: output, diagnostics: diagnostics)
        let options = try ParsedOptions(arguments: arguments, table: VisitsTool.description.options)
        var tool = try VisitsTool(options: options)
        tool.parkAfter = parkAfter
        tool.parkAtBytes = parkAtBytes
        try tool.run(inputs: [InputName(input.path)], context: context)
        try output.flush()
        return (
            try Data(contentsOf: URL(fileURLWithPath: outPath)), try Data(contentsOf: URL(fileURLWithPath: errPath)),
            diagnostics.exitStatus, tool.parks
        )
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
        var lines: [String] = []
        var t = 1_772_352_000.0
        var g = FixGenerator(seed: 9)
        for day in 0..<4 {
            for hour in 0..<3 {
                for k in 0..<3600 where k % 2 == 0 || hour == 2 {
                    let d = k < 2400 ? 1.4 * Double(k < 1200 ? k : 2400 - k) : 0
                    let j = k >= 2400 ? 3 * (g.unit() - 0.5) : 0
                    let (lat, lon) = VisitsTests.offset(45.75, 4.85, east: d * 0.7 + j, north: d * 0.7 + j)
                    lines.append(VisitsTests.fix(t + Double(k), lat, lon, hacc: 8, trace: "day-\(day)"))
                }
                t += 3600
            }
        }
        let plain = try Self.run(lines, parkAfter: Int.max, parkAtBytes: 0)
        let parked = try Self.run(lines, parkAfter: 2000, parkAtBytes: 16_384)
        #expect(plain.parks == 0)
        #expect(parked.parks == 3, "every day but the last, once: \(parked.parks)")
        #expect(parked.out == plain.out && parked.err == plain.err)
    }
}
