import Testing

@testable import FixKit

/// The word-at-a-time checks of JSON strings' bytes against the byte-at-a-time definitions:
/// every special byte (quote, backslash, each control byte, and 0xF4 for the writer) at every
/// place of strings from 0 to 40 bytes, next to bytes that tempt a borrow (0x00, 0x01, 0x80,
/// 0xFF) and ordinary text.
struct JSONBytePlainTests {
    static func writesPlainByDefinition(_ b: [UInt8]) -> Bool {
        !b.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xF4 }
    }

    static func plainRunEndByDefinition(_ b: [UInt8]) -> Int {
        b.firstIndex { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } ?? b.count
    }

    @Test func agreeWithTheDefinitions() {
        var g = FixGenerator(seed: 99)
        let specials: [UInt8] = [0x22, 0x5C, 0xF4] + Array(0..<0x20)
        let fillers: [UInt8] = [
            0x61, 0x7A, 0x30, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x80, 0xC3, 0xA9, 0xF3, 0xF5, 0xFF, 0x7F,
        ]
        var checked = 0
        for n in 0...40 {
            for _ in 0..<300 {
                var b = (0..<n).map { _ in fillers[Int(g.nextUInt() % UInt64(fillers.count))] }
                // None, one or two special bytes, anywhere.
                for _ in 0..<Int(g.nextUInt() % 3) where n > 0 {
                    b[Int(g.nextUInt() % UInt64(n))] = specials[Int(g.nextUInt() % UInt64(specials.count))]
                }
                b.withUnsafeBufferPointer { p in
                    let base = p.baseAddress ?? UnsafePointer(bitPattern: 1)!
                    #expect(JSONByte.writesPlain(base, count: n) == Self.writesPlainByDefinition(b), "\(b)")
                    #expect(JSONByte.plainRunEnd(base, from: 0, end: n) == Self.plainRunEndByDefinition(b), "\(b)")
                }
                checked += 1
            }
        }
        #expect(checked == 41 * 300)
    }
}
