import Foundation
import Testing

@testable import FixKit

/// Inputs padded as real files are (issue 11b): an NMEA log with megabytes of NUL bytes
/// between and after its sentences, runs of blank lines, leading white space and one line of
/// more than 1 MiB with sentences in it gives the fixes of the same log without the padding,
/// reports the long line once with its number, and keeps the numbers of the lines after it;
/// NDJSON with a 2 MiB line is reported and the rest read, by fixfilter and fix2gpx.
struct PaddedInputTests {
    typealias Log = NMEAGeneratedTests

    /// The sentences of one epoch (RMC, GGA, GST), without line ends.
    static func sentences(_ e: NMEAGeneratedTests.Epoch) -> [String] {
        var o = NMEAGeneratedTests.Options()
        o.lineEnd = "\n"
        return Log.write([e], o).split(separator: "\n").dropFirst().map(String.init)
    }

    static func lineCount(_ bytes: [UInt8]) -> Int { bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }

    @Test func nmeaPaddingChangesNoFix() throws {
        let epochs = Log.epochs(count: 40, start: "2026-05-01T08:00:00Z", seed: 21)
        let lost = 20..<25  // the epochs after the long line's unbroken megabyte, in the same line
        var clean = Array("# a log\n".utf8)
        for (i, e) in epochs.enumerated() where !lost.contains(i) {
            for s in Self.sentences(e) { clean += Array((s + "\n").utf8) }
        }

        var padded: [UInt8] = []
        // Leading white space: 2 MiB of spaces, tabs, LF and CR LF.
        let blanks: [[UInt8]] = [[0x20], [0x09], [0x0A], [0x0D, 0x0A]]
        var g = FixGenerator(seed: 3)
        while padded.count < 2 << 20 { padded += g.pick(blanks) }
        padded += Array("# a log\n".utf8)
        for (i, e) in epochs[0..<10].enumerated() {
            for (j, s) in Self.sentences(e).enumerated() {
                padded += Array(s.utf8)
                switch (i + j) % 4 {
                case 0: padded += [0x0A] + [UInt8](repeating: 0, count: 300_000)  // NULs after a line end
                case 1: padded += [UInt8](repeating: 0, count: 200_001)  // NULs instead of a line end
                case 2: padded += [UInt8](repeating: 0x0A, count: 50_000)  // a run of blank lines
                default: padded += [0x0A]
                }
            }
        }
        let longLine = Self.lineCount(padded) + 1
        for e in epochs[10..<20] { padded += Array(Self.sentences(e).joined().utf8) }
        padded += Array("$".utf8) + [UInt8](repeating: UInt8(ascii: "A"), count: (1 << 20) + 200_000)
        for e in epochs[lost] { padded += Array(Self.sentences(e).joined().utf8) }
        padded += [0x0A]
        padded += Array("{bad\n".utf8)  // a line reported with its number, after the long line
        let badLine = longLine + 1
        for e in epochs[25...] {
            for s in Self.sentences(e) { padded += Array((s + "\r\n").utf8) }
        }
        padded += Array("{bad\n".utf8)
        let lastBad = Self.lineCount(padded)
        padded += [UInt8](repeating: 0, count: 3 << 20)  // an SD card's unwritten tail

        let want = try Tools.run("gpx2fix", [], stdin: Data(clean))
        #expect(want.status == 0, "\(want.stderr)")
        #expect(want.lines.count == epochs.count - lost.count)
        let got = try Tools.run("gpx2fix", [], stdin: Data(padded))
        #expect(got.status == 1)
        #expect(got.out == want.out)
        let problems = got.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("gpx2fix: -:") }
        let long = problems.filter { $0.contains("1 MiB") }
        #expect(
            long == [
                "gpx2fix: -:\(longLine): more than 1048576 bytes (1 MiB) without a line end or a sentence start ('$'): skipped up to the end of the line"
            ], "\(got.stderr)")
        #expect(
            problems.filter { $0.contains("gpsd JSON report") }.map { $0.split(separator: ":")[2] }
                == ["\(badLine)", "\(lastBad)"][...].map { Substring($0) }, "\(got.stderr)")
    }

    /// A 2 MiB line of NDJSON among fixes: fixfilter, fix2gpx and gpx2fix's fix records say so
    /// once with its number (fix(5)'s limit and message), give the output of the input without
    /// it, and number the later lines right.
    @Test(arguments: [["fixfilter"], ["fixfilter", "--course", "keep"], ["fix2gpx"], ["gpx2fix", "--format", "fix"]])
    func ndjsonLineOverOneMiB(_ command: [String]) throws {
        var g = FixGenerator(seed: 9)
        var lines: [String] = []
        for i in 0..<30 {
            var f = Fix(lat: 51 + g.unit(), lon: g.unit())
            f.time = Timestamp(milliseconds: 1_767_258_000_000 + Int64(i) * 1000)
            f.hacc = 5
            lines.append(FixEncoder.line(f).trimmingCharacters(in: .newlines))
        }
        let huge = #"{"lat":1,"lon":2,"name":""# + String(repeating: "x", count: 2 << 20) + #""}"#
        var with = lines
        with.insert(huge, at: 10)
        with.insert("not json", at: 20)
        var without = lines
        without.insert("not json", at: 19)
        let tool = command[0]
        let args = Array(command.dropFirst())
        let want = try Tools.run(tool, args, stdin: Data((without.joined(separator: "\n") + "\n").utf8))
        let got = try Tools.run(tool, args, stdin: Data((with.joined(separator: "\n") + "\n").utf8))
        #expect(got.stdout == want.stdout)
        #expect(got.status == 1)
        let problems = got.stderr.split(separator: "\n").map(String.init)
        #expect(
            problems == [
                "\(tool): -:11: longer than 1048576 bytes (1 MiB): no fix is that long; line skipped",
                "\(tool): -:21: a fix is a JSON object, but the line starts with 'n' (at byte 1); line skipped",
            ], "\(got.stderr)")
    }

    /// `LeadingSpace`, which skips the white space before an input's first byte of data (line
    /// feeds a word at a time), counts its lines and bytes as a byte-by-byte reading does: LF,
    /// CR LF, CR CR LF and a lone CR each end one line. On 2,000 random mixes of white space
    /// (long runs of line feeds among them) and a byte of data, handed over in random pieces,
    /// as reads deliver them.
    @Test func leadingSpaceCountsAsAByteAtATime() {
        var g = FixGenerator(seed: 17)
        let pieces: [[UInt8]] = [
            [0x0A], [0x0D], [0x0D, 0x0A], [0x0D, 0x0D, 0x0A], [0x20], [0x09],
            Array(repeating: 0x0A, count: 9), Array(repeating: 0x0A, count: 70),
        ]
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(g.nextUInt() % 30) { bytes += g.pick(pieces) }
            let data = g.chance(0.8)
            if data { bytes.append(UInt8(ascii: "x")) }
            // The reference: a byte at a time.
            var line = 1
            var pendingCR = false
            var first: Int?
            for (i, b) in bytes.enumerated() {
                if b == 0x0A {
                    line += 1
                    pendingCR = false
                } else if b == 0x0D {
                    pendingCR = true
                } else {
                    if pendingCR { line += 1 }
                    pendingCR = false
                    if b != 0x20, b != 0x09 {
                        first = i
                        break
                    }
                }
            }
            var skipper = LeadingSpace()
            var at = 0
            var found: Int?
            while at < bytes.count, found == nil {
                let n = 1 + Int(g.nextUInt() % 40)
                let piece = Array(bytes[at..<min(bytes.count, at + n)])
                if let k = skipper.skip(piece) { found = at + k }
                at += piece.count
            }
            #expect(found == first, "\(bytes)")
            if found != nil {
                #expect(skipper.line == line, "\(bytes)")
                #expect(skipper.offset == first)
                #expect(!skipper.skipping)
            } else {
                #expect(skipper.offset == bytes.count)
            }
        }
    }
}
