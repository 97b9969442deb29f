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
        var bytes: [UInt8]
        do {
            bytes = try readWholeFile(path)
        } catch {
            throw OptionFileError("cannot read --fences \(shownPath(path)): \(String(cString: strerror(error.errno)))")
        }
        // A byte order mark at the start, as Windows editors write, is not part of the JSON.
        if bytes.starts(with: utf8ByteOrderMark) { bytes.removeFirst(utf8ByteOrderMark.count) }
        return try parse(bytes, name: shownPath(path))
    }

    /// Parses the file's bytes. The array (or the FeatureCollection's `features`) is read one
    /// element at a time, so a million fences never sit in memory as JSON values.
    public static func parse(_ bytes: [UInt8], name: String) throws(OptionFileError) -> [Fence] {
        var fences: [Fence] = []
        fences.reserveCapacity(bytes.count / 48)  // a plain fence takes about 60 bytes
        // Each element becomes a fence or an error; parsing stops at the first error. Duplicate
        // ids are looked for once, at the end, whichever reader read the fences.
        func add(_ item: JSONValue, _ k: Int, geoJSON: Bool) -> OptionFileError? {
            do throws(OptionFileError) {
                let properties = geoJSON ? (item["properties"] ?? .object([])) : item
                fences.append(try fence(item, properties: properties, at: k, name: name, geoJSON: geoJSON))
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
        let failure: OptionFileError? = bytes.withUnsafeBufferPointer { buffer in
            var s = JSONScanner(buffer, endName: "the end")
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
                        if let f = quickFence(&s) {
                            fences.append(f)
                            continue
                        }
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
        }
        if let failure { throw failure }
        if let (first, second) = firstDuplicate(fences) {
            throw OptionFileError(
                "--fences \(name): fence \(second + 1) has the id \(fences[second].id.debugDescription) of fence \(first + 1): ids must be unique"
            )
        }
        return fences
    }

    /// `{"id":"…","lat":…,"lon":…,"radius":…}` with the members in any order, string id, no
    /// escapes, valid values: the common case, read without building JSON values. Nil for
    /// anything else, which the general reader then reads and, if wrong, explains.
    static func quickFence(_ s: inout JSONScanner) -> Fence? {
        s.skipSpace()
        guard s.peek() == JSONByte.openBrace else { return nil }
        var id: String?
        var lat = Double.nan
        var lon = Double.nan
        var radius = Double.nan
        do throws(JSONSyntaxError) {
            var walk = JSONWalk()
            while let key = try s.nextMember(&walk) {
                guard !key.escaped else { return nil }
                let k = UnsafeBufferPointer(rebasing: s.bytes[key.range])
                @inline(__always) func named(_ word: StaticString) -> Bool {
                    guard k.count == word.utf8CodeUnitCount, let b = k.baseAddress else { return false }
                    return memcmpBytes(b, word.utf8Start, k.count)
                }
                if named("id") {
                    guard s.peek() == JSONByte.quote, id == nil else { return nil }
                    let (r, e) = try s.scanString()
                    guard !e else { return nil }
                    id = String(decoding: UnsafeBufferPointer(rebasing: s.bytes[r]), as: UTF8.self)
                } else if named("lat") || named("lon") || named("radius") {
                    guard let c = s.peek(), c == JSONByte.minus || c &- 48 < 10,
                        let v = DecimalNumber.parse(try s.scanNumber())
                    else { return nil }
                    if k.count == 6 { radius = v } else if k[1] == UInt8(ascii: "a") { lat = v } else { lon = v }
                } else {
                    try s.skipValue()
                }
            }
        } catch {
            return nil
        }
        guard let id, lat >= -90, lat <= 90, lon >= -180, lon <= 180, radius >= 0 else { return nil }
        return Fence(id: id, lat: lat, lon: lon, radius: radius)
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
