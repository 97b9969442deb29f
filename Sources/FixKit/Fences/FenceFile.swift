#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the fences file of `fencerule --fences`: a JSON array of
/// `{"id":"shop-1","lat":51.5007,"lon":-0.1146,"radius":100}`, or a GeoJSON FeatureCollection
/// of Point features (coordinates `[lon, lat]`) with `radius` in metres among the properties
/// and `id` in the feature or its properties. An `id` may be a string or a number.
///
/// Everything wrong is refused with a message that names the fence (its place in the file and
/// its id): a missing or non-numeric field, coordinates out of range, a negative radius, a
/// duplicate id, a geometry that is not a Point.
public enum FenceFile {
    public static func load(path: String) throws(OptionFileError) -> [Fence] {
        try loadTable(path: path).fences
    }

    /// The same as columns (`FenceTable`): what fencerule keeps of a million fences.
    public static func loadTable(path: String) throws(OptionFileError) -> FenceTable {
        // A regular file is mapped rather than read: a million fences are 67 MB, which a read
        // first zeroes and then copies, page fault by page fault.
        if path != "-", let file = MappedFile(path: path) {
            defer { file.unmap() }
            return try parse(buffer: file.bytes, name: shownPath(path))
        }
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(path)
        } catch {
            throw OptionFileError("cannot read --fences \(shownPath(path)): \(String(cString: strerror(error.errno)))")
        }
        // SAFETY: `bytes`' storage, lent for the call, which keeps no pointer to it.
        return try bytes.withUnsafeBufferPointer { buffer throws(OptionFileError) in
            try parse(buffer: buffer, name: shownPath(path))
        }
    }

    /// Parses the file's bytes (after a byte order mark, if any). The array (or the
    /// FeatureCollection's `features`) is read one element at a time, so a million fences never
    /// sit in memory as JSON values.
    public static func parse(_ bytes: [UInt8], name: String) throws(OptionFileError) -> [Fence] {
        // SAFETY: `bytes`' storage, lent for the call, which keeps no pointer to it.
        try bytes.withUnsafeBufferPointer { buffer throws(OptionFileError) in try parse(buffer: buffer, name: name) }
            .fences
    }

    static func parse(buffer file: UnsafeBufferPointer<UInt8>, name: String) throws(OptionFileError) -> FenceTable {
        // A byte order mark at the start, as Windows editors write, is not part of the JSON.
        let bom = utf8ByteOrderMark.count
        let bytes = file.starts(with: utf8ByteOrderMark) ? UnsafeBufferPointer(rebasing: file.dropFirst(bom)) : file
        // A plain fence takes about 60 bytes, its id about 10; pages reserved and never
        // written cost nothing. The builder is a class, which the reading closures share (a
        // captured struct paid a run-time exclusivity check on each append, about 190
        // instructions a fence).
        let read = FenceTable.Builder(capacity: bytes.count / 48, idBytes: bytes.count / 5)
        // Each element becomes a fence or an error; parsing stops at the first error. Duplicate
        // ids are looked for once, at the end, whichever reader read the fences.
        func add(_ item: JSONValue, _ k: Int, geoJSON: Bool) -> OptionFileError? {
            do throws(OptionFileError) {
                let properties = geoJSON ? (item["properties"] ?? .object([])) : item
                let f = try fence(item, properties: properties, at: k, name: name, geoJSON: geoJSON)
                read.append(f)
                return nil
            } catch {
                return error
            }
        }
        func syntax(_ error: JSONSyntaxError) -> OptionFileError {
            let line = bytes.prefix(error.offset ?? 0).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            return OptionFileError("--fences \(name):\(line): not JSON: \(error.message)")
        }
        let notFences = OptionFileError(
            "--fences \(name): expected a JSON array of fences or a GeoJSON FeatureCollection")
        let failure: OptionFileError? = { () -> OptionFileError? in
            var s = JSONScanner(bytes, endName: "the end")
            do throws(JSONSyntaxError) {
                s.skipSpace()
                var refused: OptionFileError?
                switch s.peek() {
                case JSONByte.openBracket:
                    // The plain form, read member by member without building values; an element
                    // the quick reader does not expect goes through the general one.
                    var walk = JSONWalk()
                    while let k = try s.nextElement(&walk) {
                        let at = s.position
                        if quickFence(&s, into: read) { continue }
                        s.position = at
                        if let e = add(try JSONValue.value(&s, depth: 1), k, geoJSON: false) { return e }
                    }
                case JSONByte.openBrace:
                    // A FeatureCollection: its "features", and a "type" that says so.
                    var foundFeatures = false
                    var isCollection = false
                    try s.scanMembers(until: { s, name throws(JSONSyntaxError) in
                        let key = s.stringValue(name.range, escaped: name.escaped)
                        if key == "features", s.peek() == JSONByte.openBracket {
                            foundFeatures = true
                            try s.scanElements(until: { s, k throws(JSONSyntaxError) in
                                refused = add(try JSONValue.value(&s, depth: 1), k, geoJSON: true)
                                return refused != nil
                            })
                        } else if key == "type" {
                            isCollection = try JSONValue.value(&s, depth: 1).string == "FeatureCollection"
                        } else {
                            try s.skipValue()
                        }
                        return refused != nil
                    })
                    if let refused { return refused }
                    guard foundFeatures, isCollection else { return notFences }
                default:
                    return notFences
                }
                s.skipSpace()
                guard s.atEnd else { throw s.error("expected the end of the document, found \(s.describeHere())") }
                return nil
            } catch {
                return syntax(error)
            }
        }()
        if let failure { throw failure }
        // Ids in strictly ascending byte order (as programs number their fences) cannot repeat;
        // others are hashed and sorted (`firstDuplicate`).
        let idsAscending = read.idsAscending
        let table = read.finish()
        if !idsAscending, let (first, second) = firstDuplicate(table) {
            throw OptionFileError(
                "--fences \(name): fence \(second + 1) has the id \(table.id(second).debugDescription) of fence \(first + 1): ids must be unique"
            )
        }
        return table
    }

    /// `{"id":"…","lat":…,"lon":…,"radius":…}` with the members in any order, string id, no
    /// escapes, valid values: the common case, read byte by byte without building JSON values
    /// or going through the scanner's general calls, and added to `read`. False for anything
    /// else, which the general reader then reads and, if wrong,
    /// explains. On success the scanner is after the object.
    static func quickFence(_ s: inout JSONScanner, into read: FenceTable.Builder) -> Bool {
        guard let base = s.bytes.baseAddress else { return false }
        var b = QuickBytes(base: base, count: s.bytes.count, at: s.position)
        b.skipSpace()
        let start = b.i
        if compactFence(&b, into: read) {
            s.position = b.i
            return true
        }
        b.i = start
        guard b.take(UInt8(ascii: "{")) else { return false }
        var id: UnsafeBufferPointer<UInt8>?
        var lat = Double.nan
        var lon = Double.nan
        var radius = Double.nan
        while true {
            b.skipSpace()
            guard let k = b.plainString() else { return false }
            b.skipSpace()
            guard b.take(UInt8(ascii: ":")) else { return false }
            b.skipSpace()
            let c0 = k.count > 0 ? k[0] : 0
            if k.count == 2, c0 == UInt8(ascii: "i"), k[1] == UInt8(ascii: "d") {
                guard id == nil, let text = b.plainString() else { return false }
                id = text
            } else if k.count == 3, c0 == UInt8(ascii: "l"), k[1] == UInt8(ascii: "a"), k[2] == UInt8(ascii: "t") {
                guard let v = b.number() else { return false }
                lat = v
            } else if k.count == 3, c0 == UInt8(ascii: "l"), k[1] == UInt8(ascii: "o"), k[2] == UInt8(ascii: "n") {
                guard let v = b.number() else { return false }
                lon = v
            } else if k.count == 6, let kb = k.baseAddress, memcmpBytes(kb, ("radius" as StaticString).utf8Start, 6) {
                guard let v = b.number() else { return false }
                radius = v
            } else {
                s.position = b.i
                do throws(JSONSyntaxError) {
                    try s.skipValue()
                } catch {
                    return false
                }
                b.i = s.position
            }
            b.skipSpace()
            if b.take(UInt8(ascii: "}")) { break }
            guard b.take(UInt8(ascii: ",")) else { return false }
        }
        guard let id, lat >= -90, lat <= 90, lon >= -180, lon <= 180, radius >= 0 else { return false }
        s.position = b.i
        add(id: id, lat: lat, lon: lon, radius: radius, to: read)
        return true
    }

    /// `{"id":"…","lat":…,"lon":…,"radius":…}` exactly so, with no white space: the form
    /// programs write (and `bench/gen_fences.py`), read with a word compare per key instead of
    /// `quickFence`'s member loop. False for anything else, and `quickFence` reads it as before.
    @inline(__always)
    static func compactFence(_ b: inout QuickBytes, into read: FenceTable.Builder) -> Bool {
        // The keys' bytes as little-endian words: `{"id":`, `,"lat":`, `,"lon":`, `,"radius` and
        // `":` (`FenceFileTests` checks them against the strings).
        guard b.take(word: QuickBytes.idKey, length: 6), let id = b.plainString(),
            b.take(word: QuickBytes.latKey, length: 7), let lat = b.number(),
            b.take(word: QuickBytes.lonKey, length: 7), let lon = b.number(),
            b.take(word: QuickBytes.radiusKey, length: 8), b.take(word: QuickBytes.radiusEnd, length: 2),
            let radius = b.number(), b.take(UInt8(ascii: "}")),
            lat >= -90, lat <= 90, lon >= -180, lon <= 180, radius >= 0
        else { return false }
        add(id: id, lat: lat, lon: lon, radius: radius, to: read)
        return true
    }

    /// Adds a fence whose id is these bytes (no escapes) to `read`: the bytes themselves where
    /// they are ASCII, else the UTF-8 of the string they decode to (invalid sequences repaired,
    /// as every other string of the file is).
    @inline(__always)
    static func add(
        id text: UnsafeBufferPointer<UInt8>, lat: Double, lon: Double, radius: Double, to read: FenceTable.Builder
    ) {
        if JSONByte.isASCII(text) {
            read.append(id: text, lat: lat, lon: lon, radius: radius)
        } else {
            read.append(Fence(id: String(decoding: text, as: UTF8.self), lat: lat, lon: lon, radius: radius))
        }
    }

    /// The cursor of `quickFence`: the file's bytes and a position, read without the
    /// scanner's errors (a nil sends the element to the general reader).
    struct QuickBytes {
        let base: UnsafePointer<UInt8>
        let count: Int
        var i: Int

        init(base: UnsafePointer<UInt8>, count: Int, at i: Int) {
            self.base = base
            self.count = count
            self.i = i
        }

        @inline(__always)
        mutating func skipSpace() {
            while i < count {
                let c = base[i]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
                i += 1
            }
        }

        @inline(__always)
        mutating func take(_ c: UInt8) -> Bool {
            guard i < count, base[i] == c else { return false }
            i += 1
            return true
        }

        @inline(__always)
        func digitHere() -> Bool { i < count && base[i] &- 48 < 10 }

        static let idKey: UInt64 = 0x3A22_6469_227B  // {"id":
        static let latKey: UInt64 = 0x3A_2274_616C_222C  // ,"lat":
        static let lonKey: UInt64 = 0x3A_226E_6F6C_222C  // ,"lon":
        static let radiusKey: UInt64 = 0x7375_6964_6172_222C  // ,"radius
        static let radiusEnd: UInt64 = 0x3A22  // ":

        /// Whether the next `length` (1 to 8) bytes are those of `word`, first byte lowest; after
        /// them if so. False within 8 bytes of the end, where `quickFence` reads byte by byte.
        @inline(__always)
        mutating func take(word: UInt64, length: Int) -> Bool {
            guard i + 8 <= count else { return false }
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self).littleEndian
            let mask: UInt64 = length >= 8 ? ~0 : (1 << UInt64(length << 3)) &- 1
            guard w & mask == word else { return false }
            i += length
            return true
        }

        /// The bytes of a string without escapes or control characters; after its quote.
        @inline(__always)
        mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = i
            i = JSONByte.plainRunEnd(base, from: i, end: count)
            // Not a quote: an escape, a control byte or the end, which the general reader reads.
            guard i < count, base[i] == JSONByte.quote else { return nil }
            i += 1
            return UnsafeBufferPointer(start: base + start, count: i - 1 - start)
        }

        /// A JSON number's value (the grammar checked as `JSONScanner.scanNumber` checks it),
        /// after it; nil if the grammar or the value is not one: `DecimalNumber.plainJSON` where
        /// the number is plain, else its grammar checked here and `DecimalNumber.parse` on its
        /// bytes. The rarer forms are out of line (`longerNumber`): with them in, every call
        /// (three a fence; the compiler keeps this one a call) saved and restored seven
        /// registers, now four, and the function is half as long.
        @inline(__always)
        mutating func number() -> Double? {
            if let v = DecimalNumber.shortPlain(base, at: &i, end: count) { return v }
            return longerNumber()
        }

        /// `number` for any form but the short plain one.
        @inline(never)
        mutating func longerNumber() -> Double? {
            if let v = DecimalNumber.plainJSON(base, at: &i, end: count) { return v }
            let start = i
            _ = take(UInt8(ascii: "-"))
            guard digitHere() else { return nil }
            if base[i] == UInt8(ascii: "0") {
                i += 1
            } else {
                while digitHere() { i += 1 }
            }
            if take(UInt8(ascii: ".")) {
                guard digitHere() else { return nil }
                while digitHere() { i += 1 }
            }
            if i < count, base[i] | 0x20 == UInt8(ascii: "e") {
                i += 1
                if i < count, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
                guard digitHere() else { return nil }
                while digitHere() { i += 1 }
            }
            return DecimalNumber.parse(UnsafeBufferPointer(start: base + start, count: i - start))
        }
    }

    /// Parses the array at `s` one element at a time; stops at the first element `body`
    /// refuses, and returns its error.
    static func forEachElement(_ s: inout JSONScanner, _ body: (JSONValue, Int) -> OptionFileError?)
        throws(JSONSyntaxError)
        -> OptionFileError?
    {
        s.position += 1  // '['
        s.skipSpace()
        if s.peek() == UInt8(ascii: "]") {
            s.position += 1
            return nil
        }
        var k = 0
        while true {
            if let e = body(try JSONValue.value(&s, depth: 1), k) { return e }
            k += 1
            s.skipSpace()
            guard let c = s.peek() else { throw s.error("expected ',' or ']', found the end") }
            s.position += 1
            if c == UInt8(ascii: "]") { return nil }
            guard c == UInt8(ascii: ",") else {
                s.position -= 1
                throw s.error("expected ',' or ']', found \(s.describeHere())")
            }
        }
    }

    static func fence(_ item: JSONValue, properties: JSONValue, at k: Int, name: String, geoJSON: Bool)
        throws(OptionFileError) -> Fence
    {
        guard case .object = item else {
            throw OptionFileError("--fences \(name): fence \(k + 1) is not an object")
        }
        let idValue = item["id"] ?? properties["id"]
        let id: String
        switch idValue {
        case .string(let s)?: id = s
        case .number(let v)?: id = DecimalNumber.text(v)
        default: throw OptionFileError("--fences \(name): fence \(k + 1) has no id (a string or a number)")
        }
        var what: String { "fence \(k + 1) (id \(id.debugDescription))" }
        var lat: Double?
        var lon: Double?
        if geoJSON {
            guard let geometry = item["geometry"], geometry["type"]?.string == "Point",
                case .array(let c)? = geometry["coordinates"], c.count >= 2
            else {
                throw OptionFileError("--fences \(name): \(what) needs a Point geometry with coordinates [lon, lat]")
            }
            lon = c[0].number
            lat = c[1].number
        } else {
            lat = item["lat"]?.number
            lon = item["lon"]?.number
        }
        guard let lat, let lon else {
            throw OptionFileError("--fences \(name): \(what) has no numeric lat and lon (WGS 84 degrees)")
        }
        guard lat >= -90, lat <= 90, lon >= -180, lon <= 180 else {
            throw OptionFileError(
                "--fences \(name): \(what) is at lat \(DecimalNumber.text(lat)), lon \(DecimalNumber.text(lon)): out of range"
            )
        }
        guard let radius = (properties["radius"] ?? item["radius"])?.number else {
            throw OptionFileError("--fences \(name): \(what) has no numeric radius (metres)")
        }
        guard radius >= 0 else {
            throw OptionFileError(
                "--fences \(name): \(what) has the radius \(DecimalNumber.text(radius)): expected metres >= 0")
        }
        return Fence(id: id, lat: lat, lon: lon, radius: radius)
    }
}
