// RFC 3339 times: whatever parses must be writable and read back as the same instant.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    guard let t = Timestamp.parse(data) else { return }
    guard t.isWritable else { fuzzFailure("parsed a time RFC 3339 cannot write: \(t.milliseconds) ms") }
    var out: [UInt8] = []
    t.write(into: &out)
    guard let back = out.withUnsafeBufferPointer({ Timestamp.parse($0) }), back == t else {
        fuzzFailure("\(String(decoding: out, as: UTF8.self)) does not read back as \(t.milliseconds) ms")
    }
    // The NMEA reader's time of day takes the same kind of bytes.
    _ = t.adding(seconds: Double(data.count) * 1e15)
}
