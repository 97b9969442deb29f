/// Hands back the same `String` while the same bytes keep coming: a stream repeats its trace
/// (or gpsd its device) on every line, and decoding it anew would allocate once a record.
struct RepeatedString {
    private var bytes: [UInt8] = []
    private var string = ""

    // SAFETY: `raw` is the caller's, valid for the call; it is compared with, and copied into,
    // arrays of this value.
    mutating func string(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        if raw.count == bytes.count,
            // SAFETY: both buffers hold `raw.count` bytes (the counts were just compared equal, and
            // neither is empty when memcmp runs), each valid for the closure.
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
