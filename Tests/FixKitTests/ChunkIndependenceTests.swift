import Foundation
import Testing

@testable import FixKit

/// gpx2fix's output and messages do not depend on how its input arrives: every corpus file,
/// of every format, read whole and read in random pieces (the first ones of one to three
/// bytes, so that a byte order mark, a magic number or a CR LF is split), gives the same
/// bytes on standard output and standard error.
@Suite("gpx2fix reads the same whatever the read sizes")
struct ChunkIndependenceTests {
    static let files: [String] = {
        guard let corpus = Tools.corpus else { return [] }
        let folders = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? [])
            .filter { !["LICENSES", "xsd"].contains($0) }
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent(folder).path)) ?? [])
                .map { "\(folder)/\($0)" }
        }.sorted()
    }()

    /// Runs gpx2fix in this process on `path`, with each read capped by `sizes`; returns what
    /// it wrote to standard output and standard error, and its exit status.
    static func run(_ path: String, arguments: [String] = [], sizes: ((Int) -> Int)?) throws -> (
        out: Data, err: Data, status: Int32
    ) {
        try InProcess.run("gpx2fix") { context in
            let options = try ParsedOptions(arguments: arguments + [path], table: Gpx2Fix.description.options)
            let tool = try Gpx2Fix(options: options)
            let input = try InputReader(
                name: InputName(path), decompressing: true, beforeRead: { try context.output.flush() })
            input.readSizeLimit = sizes
            try tool.read(input, into: tool.sink(context), context: context)
        }
    }

    @Test(
        "whole and in random pieces: the same output and messages",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        arguments: ChunkIndependenceTests.files)
    func sameOutput(file: String) throws {
        let path = try #require(Tools.corpus).appendingPathComponent(file).path
        let whole = try Self.run(path, sizes: nil)
        var generator = FixGenerator(
            seed: file.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 })
        let pieces = try Self.run(
            path,
            sizes: { n in n <= 8 ? 1 + Int(generator.nextUInt() % 3) : 1 + Int(generator.nextUInt() % 9000) })
        #expect(pieces.status == whole.status, "\(file)")
        #expect(
            pieces.err == whole.err,
            "\(file): messages differ:\n\(String(decoding: whole.err, as: UTF8.self))\n---\n\(String(decoding: pieces.err, as: UTF8.self))"
        )
        #expect(pieces.out == whole.out, "\(file): output differs (\(whole.out.count) and \(pieces.out.count) bytes)")
    }

    /// Inputs the fuzz targets found read differently whole and cut (fuzz/README.md), in
    /// Tests/Fixtures/chunks/FORMAT/, minimized: each read with `--format FORMAT`, whole,
    /// a byte a read, and in the pieces the fuzzer cut it in, must give the same bytes.
    static let fuzzFindings: [String] = {
        let root = Tools.fixtures.appendingPathComponent("chunks")
        let formats = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return formats.flatMap { format in
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(format).path)) ?? [])
                .map { "\(format)/\($0)" }
        }.sorted()
    }()

    /// The read sizes fuzz/Harness/Harness.swift (`Fuzz.chunkSizes`) cuts an input in, drawn
    /// from its hash: the same as the fuzzer used, so that each finding reproduces as found.
    static func fuzzCut(_ input: [UInt8]) -> [Int] {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in input { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        var random = SeededRandom(seed: h)
        return (0..<16).map { _ in
            let r = random.next()
            return r % 4 == 0 ? Int((r >> 8) % 4096) + 1 : Int((r >> 8) % 7) + 1
        }
    }

    @Test func thereAreFuzzFindings() {
        #expect(Self.fuzzFindings.count >= 2, "Tests/Fixtures/chunks has no cases")
    }

    @Test(
        "fuzz findings: whole, a byte a read and cut as found give the same",
        arguments: ChunkIndependenceTests.fuzzFindings)
    func fuzzFinding(_ name: String) throws {
        let path = Tools.fixtures.appendingPathComponent("chunks/\(name)").path
        let arguments = ["--format", String(name.prefix(while: { $0 != "/" })), "--waypoints"]
        let whole = try Self.run(path, arguments: arguments, sizes: nil)
        let found = Self.fuzzCut(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
        for (what, sizes) in [
            ("a byte a read", { (_: Int) in 1 }), ("cut as found", { (n: Int) in found[(n - 1) % found.count] }),
        ] {
            let cut = try Self.run(path, arguments: arguments, sizes: sizes)
            #expect(cut.status == whole.status, "\(name), \(what)")
            #expect(
                cut.err == whole.err,
                "\(name), \(what): messages differ:\n\(String(decoding: whole.err, as: UTF8.self))\n---\n\(String(decoding: cut.err, as: UTF8.self))"
            )
            #expect(cut.out == whole.out, "\(name), \(what): output differs")
        }
        // Not an empty case: the finding reports a problem.
        #expect(!whole.err.isEmpty, "\(name): no message")
    }
}
