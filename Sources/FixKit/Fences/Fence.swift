#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A circular geofence.
public struct Fence: Equatable, Sendable {
    public var id: String
    /// WGS 84 degrees.
    public var lat: Double
    public var lon: Double
    /// Metres, >= 0.
    public var radius: Double

    public init(id: String, lat: Double, lon: Double, radius: Double) {
        self.id = id
        self.lat = lat
        self.lon = lon
        self.radius = radius
    }
}

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
            throw OptionFileError("cannot read --fences \(path): \(String(cString: strerror(error.errno)))")
        }
        return try parse(bytes, name: path)
    }

    public static func parse(_ bytes: [UInt8], name: String) throws(OptionFileError) -> [Fence] {
        let document: JSONValue
        do throws(JSONSyntaxError) {
            document = try bytes.withUnsafeBufferPointer { p throws(JSONSyntaxError) in try JSONValue.parse(p) }
        } catch {
            let line = bytes.prefix(max(0, error.offset)).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw OptionFileError("--fences \(name):\(line): not JSON: \(error.message)")
        }
        var fences: [Fence] = []
        var seen: [String: Int] = [:]
        func add(_ f: Fence, at k: Int) throws(OptionFileError) {
            if let first = seen[f.id] {
                throw OptionFileError("--fences \(name): fence \(k + 1) has the id \(f.id.debugDescription) of fence \(first + 1): ids must be unique")
            }
            seen[f.id] = k
            fences.append(f)
        }
        switch document {
        case .array(let items):
            fences.reserveCapacity(items.count)
            for (k, item) in items.enumerated() {
                try add(fence(item, properties: item, at: k, name: name, geoJSON: false), at: k)
            }
        case .object:
            guard document["type"]?.string == "FeatureCollection", case .array(let features)? = document["features"] else {
                throw OptionFileError(
                    "--fences \(name): expected a JSON array of fences or a GeoJSON FeatureCollection")
            }
            fences.reserveCapacity(features.count)
            for (k, feature) in features.enumerated() {
                try add(fence(feature, properties: feature["properties"] ?? .object([]), at: k, name: name, geoJSON: true), at: k)
            }
        default:
            throw OptionFileError("--fences \(name): expected a JSON array of fences or a GeoJSON FeatureCollection")
        }
        return fences
    }

    static func fence(_ item: JSONValue, properties: JSONValue, at k: Int, name: String, geoJSON: Bool) throws(OptionFileError) -> Fence {
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
        let what = "fence \(k + 1) (id \(id.debugDescription))"
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
            throw OptionFileError("--fences \(name): \(what) is at lat \(DecimalNumber.text(lat)), lon \(DecimalNumber.text(lon)): out of range")
        }
        guard let radius = (properties["radius"] ?? item["radius"])?.number else {
            throw OptionFileError("--fences \(name): \(what) has no numeric radius (metres)")
        }
        guard radius >= 0 else {
            throw OptionFileError("--fences \(name): \(what) has the radius \(DecimalNumber.text(radius)): expected metres >= 0")
        }
        return Fence(id: id, lat: lat, lon: lon, radius: radius)
    }
}

struct FileReadError: Error {
    var errno: Int32
}

/// The whole contents of a file.
func readWholeFile(_ path: String) throws(FileReadError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileReadError(errno: errno) }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw FileReadError(errno: errno)
        }
        if n == 0 { break }
        out.append(contentsOf: chunk[..<n])
    }
    return out
}
