@testable import FixKit

// Numbers: DecimalNumber.parse against the C library's strtod (an independent reader), and
// the shortest writing read back as the same double.
#if canImport(Glibc)
    import Glibc
#endif

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    guard let v = DecimalNumber.parse(data) else { return }
    guard v.isFinite else { fuzzFailure("parse gave \(v)") }
    let text = String(decoding: data, as: UTF8.self)
    var end: UnsafeMutablePointer<CChar>?
    let c = text.withCString { p -> (Double, Int) in
        let d = strtod(p, &end)
        return (d, end.map { p.distance(to: $0) } ?? 0)
    }
    if c.1 == data.count, c.0 != v, !(c.0 == 0 && v == 0) {
        fuzzFailure("\(text.debugDescription): DecimalNumber \(v), strtod \(c.0)")
    }
    let writers: [(Double, inout [UInt8]) -> Void] = [DecimalNumber.write(_:into:), DecimalNumber.writeCompact(_:into:)]
    for write in writers {
        var out: [UInt8] = []
        write(v, &out)
        guard let back = out.withUnsafeBufferPointer({ DecimalNumber.parse($0) }), back == v else {
            fuzzFailure("\(v) is written \(String(decoding: out, as: UTF8.self)), which does not read back")
        }
    }
    // fencerule's event writer: writeCompact into its reserved width, the same bytes.
    var compact: [UInt8] = []
    DecimalNumber.writeCompact(v, into: &compact)
    let width = DecimalNumber.maxCompactWidth(v)
    let direct = [UInt8](unsafeUninitializedCapacity: width) { b, n in
        n = DecimalNumber.writeCompact(v, to: b.baseAddress!)
    }
    if direct != compact { fuzzFailure("\(v): writeCompact(to:) wrote \(direct), not \(compact)") }
}
