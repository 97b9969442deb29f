/// Hands back the same `String` while the same bytes keep coming: a stream repeats its trace
/// (or gpsd its device) on every line, and decoding it anew would allocate once a record.
struct RepeatedString {
    private var bytes: [UInt8] = []
    private var string = ""

    mutating func string(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        if raw.count == bytes.count,
            bytes.withUnsafeBufferPointer({ held in
                guard let a = raw.baseAddress, let b = held.baseAddress else { return raw.count == 0 }
                return memcmpBytes(a, b, raw.count)
            })
        {
            return string
        }
        bytes = Array(raw)
        string = ByteText.decode(raw)
        return string
    }
}
