@testable import FixKit

/// Seeded random fixes covering every field, edge values (poles, antimeridian, zero, whole
/// numbers, long fractions) and unknown members, for property tests.
struct FixGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func nextUInt() -> UInt64 {
        // xorshift64*: small, seeded, reproducible across platforms.
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    mutating func unit() -> Double { Double(nextUInt() >> 11) / Double(1 << 53) }
    mutating func chance(_ p: Double) -> Bool { unit() < p }
    mutating func pick<T>(_ xs: [T]) -> T { xs[Int(nextUInt() % UInt64(xs.count))] }

    mutating func coordinate(_ limit: Double) -> Double {
        switch nextUInt() % 6 {
        case 0: return pick([-limit, limit, 0, -0.0, 1e-7, -1e-9])
        case 1: return ((unit() * 2 - 1) * limit * 1e7).rounded() / 1e7
        default: return (unit() * 2 - 1) * limit
        }
    }

    mutating func text() -> String {
        let parts = ["a", "Ride", " ", "é", "😀", "\"", "\\", "<", ">", "&", "\t", "/", "x y", "Zürich", "東京", "\r\n", "]]>"]
        var s = ""
        for _ in 0..<(1 + Int(nextUInt() % 5)) { s += pick(parts) }
        return s
    }

    mutating func next() -> Fix {
        var f = Fix(lat: coordinate(90), lon: coordinate(180))
        if chance(0.8) { f.time = Timestamp(milliseconds: Int64(unit() * 4e12) - 1_000_000_000_000 + (chance(0.5) ? 0 : Int64(nextUInt() % 1000))) }
        if chance(0.7) { f.alt = pick([0, -12.5, 8848.86, (unit() * 2000 - 100)]) }
        if chance(0.7) { f.hacc = pick([-1, 0, 5, 65, unit() * 200]) }
        if chance(0.5) { f.vacc = unit() * 50 }
        if chance(0.6) { f.speed = pick([0, 1.4, 15, unit() * 80]) }
        if chance(0.6) { f.course = pick([0, 359.9, unit() * 360]) }
        if chance(0.4) { f.cacc = pick([-1, 180, unit() * 45]) }
        if chance(0.4) { f.hdop = (unit() * 100).rounded() / 10 }
        if chance(0.3) { f.vdop = (unit() * 100).rounded() / 10 }
        if chance(0.3) { f.pdop = (unit() * 100).rounded() / 10 }
        if chance(0.4) { f.sat = Int(nextUInt() % 40) }
        if chance(0.3) { f.name = text() }
        if chance(0.9) { f.trace = text() }
        if chance(0.7) { f.seg = Int(nextUInt() % 4) }
        if chance(0.3) {
            let members = [#""hr":120"#, #""note":"x \"y\" \u00e9""#, #""deep":{"a":[1,{"b":null}]}"#, #""flag":true"#, #""n":-1.5e3"#]
            for m in members where chance(0.5) {
                f.extra.append(contentsOf: (f.extra.isEmpty ? "" : ",").utf8)
                f.extra.append(contentsOf: m.utf8)
            }
        }
        return f
    }
}
