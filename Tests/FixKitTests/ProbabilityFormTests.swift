import Foundation
import Testing

@testable import FixKit

/// fencerule writes `p` as fencerule(1) and fix(5) say (issue 15, defect 6): in plain digits
/// from 1e-7 up, in Swift's shortest exponent form below it, and either way the text reads
/// back as the same double.
@Suite("fencerule's p: plain from 1e-7, an exponent below, always the same double")
struct ProbabilityFormTests {
    @Test("writeCompact over probabilities from 1e-300 to 1")
    func compactForm() throws {
        var g = FixGenerator(seed: 6)
        var values: [Double] = [1e-7, 1e-7.nextDown, 1e-7.nextUp, 0, 1, 0.5, .leastNonzeroMagnitude]
        for _ in 0..<20000 {
            let e = -Double(g.nextUInt() % 300) - Double(g.nextUInt() % 1000) / 1000
            values.append(pow(10, e))
        }
        // Where --trace's p mostly are, 1e-12 to 1e-7 (written from Schubfach's digits down to
        // 1e-11): any bits there, and around its powers of ten and of two, where the rounding
        // interval and the exponent change.
        let (low, high) = ((1e-12).bitPattern, (1e-7).bitPattern)
        for k in 0..<200_000 {
            let v = Double(bitPattern: low + g.nextUInt() % (high - low))
            values.append(k % 4 == 0 ? -v : v)
        }
        values += [1e-11.nextDown, 1e-11.nextUp, -1e-11, -(1e-7.nextDown)]
        for e in -12 ... -7 {
            let t = pow(10, Double(e))
            values += [t, t.nextUp, t.nextDown]
        }
        for e in -40 ... -23 {
            let t = Double(sign: .plus, exponent: e, significand: 1)
            values += [t, t.nextUp, t.nextDown, t * 1.5]
        }
        for v in values + values.prefix(1000).map({ -$0 }) {
            var out: [UInt8] = []
            DecimalNumber.writeCompact(v, into: &out)
            let text = String(decoding: out, as: UTF8.self)
            #expect(text.contains("e") == (v != 0 && abs(v) < 1e-7), "\(v): \(text)")
            if v != 0 && abs(v) < 1e-7 { #expect(text == v.description, "\(v.bitPattern)") }
            #expect(Double(text) == v, "\(text) reads back as \(Double(text) ?? .nan), not \(v)")
            #expect(DecimalNumber.parse(text) == v, "\(text)")
            if v >= 1e-7 { #expect(text == DecimalNumber.text(v)) }
            // The event writer's form: the same bytes, within the width it reserves.
            let width = DecimalNumber.maxCompactWidth(v)
            let written = [UInt8](unsafeUninitializedCapacity: width) { b, n in
                n = DecimalNumber.writeCompact(v, to: b.baseAddress!)
            }
            #expect(written == out, "\(v): \(String(decoding: written, as: UTF8.self))")
            #expect(written.count <= width)
        }
    }

    @Test("fencerule --trace and events: every p follows the rule")
    func inTheOutput() throws {
        let fences = Data(#"[{"id":"a","lat":51.5,"lon":-0.12,"radius":30}]"#.utf8)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixkit-p-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try fences.write(to: dir.appendingPathComponent("f.json"))
        let r = try Tools.shell(
            "cd '\(dir.path)' && fixsim --origin 51.5,-0.12 --route 0,0:400,0:0,0 --noise 3 --seed 9 | fencerule --fences f.json --trace"
        )
        #expect(r.status == 0, "\(r.stderr)")
        let texts = r.out.matches(of: /"p":([0-9.e+-]+)/).map { String($0.1) }
        #expect(texts.count > 50)
        #expect(texts.contains { $0.contains("e") }, "the walk should reach p below 1e-7")
        for t in texts {
            let v = try #require(Double(t))
            #expect(t.contains("e") == (v != 0 && v < 1e-7), "\(t)")
        }
    }
}
