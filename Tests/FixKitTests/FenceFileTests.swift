import Foundation
import Testing

@testable import FixKit

/// The fences file of fencerule --fences: what it refuses (exit 2, a message that names the
/// fence, nothing on stdout), the two forms it reads, and a million fences.
struct FenceFileTests {
    /// A fix inside every fence below, so that a tool that did run would write something.
    static let fixInside = Data(#"{"time":"2026-01-01T09:00:00Z","lat":51.5,"lon":-0.12,"hacc":5}"#.utf8 + [0x0A])

    static func temporaryDirectory() throws -> URL {
        let dir = TestScratch.root.appendingPathComponent("fence-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func write(_ text: String, _ name: String = "f.json") throws -> URL {
        let url = try temporaryDirectory().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Runs fencerule on a fences file that must be refused; returns its message.
    static func refused(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        for input in [Self.fixInside, Data(Self.fixInside.prefix(Self.fixInside.count - 1))] {
            let r = try Tools.run("fencerule", ["--fences", path], stdin: input)
            #expect(r.status == 2, "exit \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
            #expect(r.stdout.isEmpty, "stdout: \(r.out)", sourceLocation: sourceLocation)
            #expect(r.stderr.hasPrefix("fencerule: "), "\(r.stderr)", sourceLocation: sourceLocation)
            #expect(
                r.stderr.contains(path), "the message should name the file: \(r.stderr)", sourceLocation: sourceLocation
            )
            #expect(r.stderr.split(separator: "\n").count <= 2, "\(r.stderr)", sourceLocation: sourceLocation)
        }
        return try Tools.run("fencerule", ["--fences", path], stdin: Self.fixInside).stderr
    }

    @Test func unreadablePath() throws {
        let missing = try Self.temporaryDirectory().appendingPathComponent("no-such-fences.json").path
        let message = try Self.refused(missing)
        #expect(message.contains("No such file"), "\(message)")
        // A directory cannot be read as a file either.
        let dir = try Self.temporaryDirectory().path
        _ = try Self.refused(dir)
        // Nor a file without read permission (unless the tests run as root, who reads all).
        let url = try Self.write(#"[{"id":"a","lat":51.5,"lon":-0.12,"radius":100}]"#)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: url.path)
        if !FileManager.default.isReadableFile(atPath: url.path) {
            _ = try Self.refused(url.path)
        }
    }

    @Test(arguments: [
        "", "[", "{\"type\":", "not json", "[{\"id\":\"a\",\"lat\":51.5,\"lon\":-0.12,\"radius\":100},]", "[]x",
    ])
    func notJSON(_ text: String) throws {
        let url = try Self.write(text)
        let message = try Self.refused(url.path)
        #expect(message.contains("not JSON") || message.contains("expected"), "\(message)")
    }

    @Test(arguments: ["{}", "42", "\"fences\"", "{\"type\":\"Feature\"}", "[1]", "[[51.5,-0.12,100]]"])
    func notFences(_ text: String) throws {
        let url = try Self.write(text)
        let message = try Self.refused(url.path)
        #expect(message.contains("expected") || message.contains("not an object"), "\(message)")
    }

    /// Each field missing from the second fence: the message names that fence (its place and,
    /// when it has one, its id) and the field.
    @Test(arguments: [
        (#"{"lat":51.5,"lon":-0.12,"radius":100}"#, "id"),
        (#"{"id":"shop-2","lon":-0.12,"radius":100}"#, "lat"),
        (#"{"id":"shop-2","lat":51.5,"radius":100}"#, "lon"),
        (#"{"id":"shop-2","lat":51.5,"lon":-0.12}"#, "radius"),
        (#"{"id":"shop-2","lat":51.5,"lon":-0.12,"radius":"100"}"#, "radius"),
        (#"{"id":"shop-2","lat":"51.5","lon":-0.12,"radius":100}"#, "lat"),
        (#"{"id":null,"lat":51.5,"lon":-0.12,"radius":100}"#, "id"),
        (#"{"id":"shop-2","lat":91,"lon":-0.12,"radius":100}"#, "range"),
        (#"{"id":"shop-2","lat":51.5,"lon":-180.5,"radius":100}"#, "range"),
    ])
    func missingOrBadField(_ second: String, _ field: String) throws {
        let url = try Self.write(#"[{"id":"shop-1","lat":51.5,"lon":-0.12,"radius":100},"# + second + "]")
        let message = try Self.refused(url.path)
        #expect(message.contains("fence 2"), "\(message)")
        #expect(message.contains(field), "\(message)")
        if second.contains("shop-2") { #expect(message.contains("shop-2"), "\(message)") }
        #expect(!message.contains("shop-1"), "blames the wrong fence: \(message)")
    }

    @Test func negativeRadius() throws {
        let url = try Self.write(
            #"[{"id":"shop-1","lat":51.5,"lon":-0.12,"radius":100},{"id":"kiosk","lat":51.5,"lon":-0.12,"radius":-0.5}]"#
        )
        let message = try Self.refused(url.path)
        #expect(message.contains("kiosk") && message.contains("-0.5") && message.contains("radius"), "\(message)")
        // Zero is a fence (a point that holds nobody), not an error.
        let zero = try Self.write(#"[{"id":"pin","lat":51.5,"lon":-0.12,"radius":0}]"#)
        let r = try Tools.run("fencerule", ["--fences", zero.path], stdin: Self.fixInside)
        #expect(r.status == 0 && r.stdout.isEmpty, "\(r.stderr)")
    }

    /// Ids in ascending order skip the duplicate check, so an id equal to the one before (not
    /// greater) or a later id out of order must bring it back.
    @Test func duplicatesAfterAscendingIds() throws {
        func fence(_ id: String) -> String { #"{"id":"\#(id)","lat":51.5,"lon":-0.12,"radius":10}"# }
        let ascending = (0..<200).map { fence(String(format: "f%04d", $0)) }
        let clean = try Self.write("[" + ascending.joined(separator: ",\n") + "]")
        #expect(try FenceFile.loadTable(path: clean.path).count == 200)
        for (extra, first) in [("f0199", 200), ("f0042", 43), ("f0000", 1)] {
            let url = try Self.write("[" + (ascending + [fence(extra)]).joined(separator: ",\n") + "]")
            let message = try Self.refused(url.path)
            #expect(message.contains("fence 201") && message.contains("of fence \(first):"), "\(message)")
        }
    }

    @Test func duplicateId() throws {
        let url = try Self.write(
            #"[{"id":"shop-1","lat":51.5,"lon":-0.12,"radius":100},{"id":"shop-2","lat":51.6,"lon":-0.12,"radius":100},{"id":"shop-1","lat":51.7,"lon":-0.12,"radius":50}]"#
        )
        let message = try Self.refused(url.path)
        #expect(message.contains("shop-1") && message.contains("fence 3") && message.contains("fence 1"), "\(message)")
        // A numeric id and the same id as a string are the same fence.
        let mixed = try Self.write(
            #"[{"id":7,"lat":51.5,"lon":-0.12,"radius":100},{"id":"7","lat":51.6,"lon":-0.12,"radius":100}]"#)
        let m = try Self.refused(mixed.path)
        #expect(m.contains("\"7\""), "\(m)")
        // GeoJSON: one id in the feature, the same in another's properties.
        let geo = try Self.write(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"x","geometry":{"type":"Point","coordinates":[-0.12,51.5]},"properties":{"radius":100}},{"type":"Feature","geometry":{"type":"Point","coordinates":[-0.12,51.6]},"properties":{"id":"x","radius":100}}]}"#
        )
        let g = try Self.refused(geo.path)
        #expect(g.contains("\"x\"") && g.contains("fence 2"), "\(g)")
    }

    @Test(arguments: [
        #"{"type":"LineString","coordinates":[[-0.12,51.5],[-0.11,51.5]]}"#,
        #"{"type":"Polygon","coordinates":[[[-0.12,51.5],[-0.11,51.5],[-0.11,51.6],[-0.12,51.5]]]}"#,
        #"{"type":"Point","coordinates":[-0.12]}"#,
        #"null"#,
    ])
    func geoJSONNotAPoint(_ geometry: String) throws {
        let url = try Self.write(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"ok","geometry":{"type":"Point","coordinates":[-0.12,51.5]},"properties":{"radius":100}},{"type":"Feature","id":"road","geometry":"#
                + geometry + #","properties":{"radius":100}}]}"#)
        let message = try Self.refused(url.path)
        #expect(message.contains("road") && message.contains("fence 2") && message.contains("Point"), "\(message)")
    }

    /// The same fences as a JSON array and as GeoJSON (ids in the feature and in the properties,
    /// coordinates [lon, lat], extra properties ignored) give the same events, byte for byte.
    @Test func geoJSONAndArrayAgree() throws {
        let frame = LocalFrame(lat: 51.5, lon: -0.12)
        let places: [(String, Double, Double, Double)] = [
            ("a", -150, 0, 60), ("b", 0, 20, 100), ("c", 160, -10, 40), ("d", 400, 400, 80),
        ]
        var array: [String] = []
        var features: [String] = []
        for (k, (id, e, n, r)) in places.enumerated() {
            let (lat, lon) = frame.degrees(east: e, north: n)
            array.append(#"{"id":"\#(id)","lat":\#(lat),"lon":\#(lon),"radius":\#(r)}"#)
            let where_ = k % 2 == 0 ? #""id":"\#(id)","# : ""
            let props = k % 2 == 0 ? #"{"radius":\#(r),"name":"shop"}"# : #"{"id":"\#(id)","radius":\#(r)}"#
            features.append(
                #"{"type":"Feature",\#(where_)"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":\#(props)}"#
            )
        }
        let arrayURL = try Self.write("[" + array.joined(separator: ",\n") + "]")
        let geoURL = try Self.write(
            #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",\n") + "]}", "f.geojson")
        let walk = try Tools.run("fixsim", ["--origin", "51.5,-0.12", "--route", "-400,0:400,0", "--traces", "5"])
        for rule in ["confident", "naive"] {
            let a = try Tools.run("fencerule", ["--fences", arrayURL.path, "--rule", rule], stdin: walk.stdout)
            let g = try Tools.run("fencerule", ["--fences", geoURL.path, "--rule", rule], stdin: walk.stdout)
            #expect(a.status == 0 && g.status == 0, "\(a.stderr) \(g.stderr)")
            #expect(!a.stdout.isEmpty)
            #expect(a.stdout == g.stdout, "\(rule): array and GeoJSON differ")
            let fences = Set(try Tools.objects(a.stdout).compactMap { $0["fence"] as? String })
            #expect(fences == ["a", "b", "c"], "\(fences)")
        }
        #expect(try FenceFile.load(path: arrayURL.path) == FenceFile.load(path: geoURL.path))
    }

    /// Numeric ids are read and written as their shortest decimal text.
    @Test func numericIds() throws {
        let url = try Self.write(
            #"[{"id":42,"lat":51.5,"lon":-0.12,"radius":100},{"id":3.5,"lat":51.5,"lon":-0.12,"radius":50},{"id":"shop","lat":51.5,"lon":-0.12,"radius":70}]"#
        )
        let fences = try FenceFile.load(path: url.path)
        #expect(fences.map(\.id) == ["42", "3.5", "shop"])
        let walk = try Tools.run("fixsim", ["--origin", "51.5,-0.12", "--route", "-300,0:300,0"])
        let r = try Tools.run("fencerule", ["--fences", url.path], stdin: walk.stdout)
        #expect(r.status == 0, "\(r.stderr)")
        let events = try Tools.objects(r.stdout)
        #expect(Set(events.compactMap { $0["fence"] as? String }) == ["42", "3.5", "shop"], "\(r.out)")
        #expect(r.out.contains(#""fence":"42""#))
    }

    /// An empty list is a valid (if dull) fences file.
    @Test func emptyFences() throws {
        for text in ["[]", #"{"type":"FeatureCollection","features":[]}"#] {
            let url = try Self.write(text)
            let r = try Tools.run("fencerule", ["--fences", url.path], stdin: Self.fixInside)
            #expect(r.status == 0 && r.stdout.isEmpty, "\(text): \(r.stderr)")
        }
    }

    /// A million fences (a 1°×1° block around the walk, about 130 a km², radius 20–200 m) load
    /// and run on a 1 km walk, and give exactly the events of the 0.3% of them near the walk:
    /// the spatial index loses nothing and finds nothing extra.
    ///
    /// The limit guards against a hang, not a slow run: a debug build writes the 70 MB file in
    /// about 2.5 minutes on a quiet 2-core machine, and much longer under load or ASan.
    /// The quick readers (the compact form's word compares, the member loop, and their
    /// eight-digits-at-a-time numbers) against strtod and the general JSON reader, on 20,000
    /// generated fences: numbers of 1 to 22 digits, with and without fractions, signs and
    /// exponents, leading zeros in the fraction, ids of 1 to 20 bytes, in the compact form,
    /// with spaces, and with the members in another order; each file ends at the fence, so
    /// the last ones are read within eight bytes of the end.
    @Test func quickReadersAgreeWithStrtod() throws {
        var random = SeededRandom(seed: 20261202)
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(random.next() % 10)) }) }
        func number(whole: Int, limit: Double) -> String {
            // Whole digits without a leading zero (or just "0"), then maybe a fraction and an exponent.
            var text = whole == 0 ? "0" : String(1 + random.next() % 9) + digits(whole - 1)
            if random.next() % 4 != 0 { text += "." + digits(1 + Int(random.next() % 21)) }
            if random.next() % 16 == 0 { text += "e-" + String(random.next() % 3) }
            return Double(text).map { $0 <= limit } == true ? text : "1." + digits(1 + Int(random.next() % 9))
        }
        var texts: [String] = []
        var expected: [(String, Double, Double, Double)] = []
        for k in 0..<20_000 {
            let lat = (random.next() % 2 == 0 ? "-" : "") + number(whole: Int(random.next() % 3), limit: 90)
            let lon = (random.next() % 2 == 0 ? "-" : "") + number(whole: Int(random.next() % 4), limit: 180)
            let radius = number(whole: Int(random.next() % 8), limit: 1e9)
            let id = "f\(k)-" + digits(Int(random.next() % 14))
            let text: String
            switch random.next() % 4 {
            case 0: text = #"{"id": "\#(id)", "lat": \#(lat), "lon": \#(lon), "radius": \#(radius)}"#
            case 1: text = #"{"radius":\#(radius),"lon":\#(lon),"id":"\#(id)","lat":\#(lat)}"#
            default: text = #"{"id":"\#(id)","lat":\#(lat),"lon":\#(lon),"radius":\#(radius)}"#
            }
            texts.append(text)
            expected.append((id, strtod(lat, nil), strtod(lon, nil), strtod(radius, nil)))
        }
        let whole = try FenceFile.parse(Array(("[" + texts.joined(separator: ",\n") + "]").utf8), name: "generated")
        #expect(whole.count == expected.count)
        var wrong = 0
        for (f, e) in zip(whole, expected) where f.id != e.0 || f.lat != e.1 || f.lon != e.2 || f.radius != e.3 {
            wrong += 1
            if wrong <= 5 { Issue.record("\(f) read; strtod: \(e)") }
        }
        #expect(wrong == 0, "\(wrong) of \(expected.count) fences read differently from strtod")
        // Near the end: each of the last 40 alone, as the file's last element, and through the
        // general reader (JSONValue), which the quick ones must agree with.
        for (text, e) in zip(texts, expected).suffix(40) {
            let one = try FenceFile.parse(Array("[\(text)]".utf8), name: "one")
            #expect(one.map { [$0.lat, $0.lon, $0.radius] } == [[e.1, e.2, e.3]], "\(text)")
            let value = try Array(text.utf8).withUnsafeBufferPointer { try JSONValue.parse($0) }
            let general = try FenceFile.fence(value, properties: value, at: 0, name: "one", geoJSON: false)
            #expect(one.first == general, "\(text)")
        }
    }

    @Test func compactKeysAreTheirBytes() {
        func word(_ s: String) -> UInt64 {
            s.utf8.enumerated().reduce(0) { $0 | UInt64($1.element) << UInt64(8 * $1.offset) }
        }
        #expect(FenceFile.QuickBytes.idKey == word(#"{"id":"#))
        #expect(FenceFile.QuickBytes.latKey == word(#","lat":"#))
        #expect(FenceFile.QuickBytes.lonKey == word(#","lon":"#))
        #expect(FenceFile.QuickBytes.radiusKey == word(#","radius"#))
        #expect(FenceFile.QuickBytes.radiusEnd == word(#"":"#))
    }

    @Test(.timeLimit(.minutes(15))) func aMillionFences() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var random = SeededRandom(seed: 2026)
        var all = "["
        all.reserveCapacity(70_000_000)
        var near = "["
        let frame = LocalFrame(lat: 51.5, lon: -0.12)
        for k in 0..<1_000_000 {
            let lat = 51 + random.uniform()
            let lon = -0.62 + random.uniform()
            let r = 20 + 180 * random.uniform()
            let text = #"{"id":"f\#(k)","lat":\#(lat),"lon":\#(lon),"radius":\#(r)}"#
            if k > 0 { all += ",\n" }
            all += text
            let (e, n) = frame.metres(lat: lat, lon: lon)
            if abs(n) < 700, abs(e) < 1200 {
                if near.count > 1 { near += ",\n" }
                near += text
            }
        }
        all += "]"
        near += "]"
        let allURL = dir.appendingPathComponent("million.json")
        let nearURL = dir.appendingPathComponent("near.json")
        try Data(all.utf8).write(to: allURL)
        try Data(near.utf8).write(to: nearURL)
        let walk = try Tools.run("fixsim", ["--origin", "51.5,-0.12", "--route", "-500,0:500,0"])
        let start = Date()
        let big = try Tools.run("fencerule", ["--fences", allURL.path], stdin: walk.stdout)
        let seconds = Date().timeIntervalSince(start)
        let small = try Tools.run("fencerule", ["--fences", nearURL.path], stdin: walk.stdout)
        print(
            "1,000,000 fences (\(all.utf8.count / 1_000_000) MB): load and \(try Tools.objects(walk.stdout).count) fixes in \(String(format: "%.1f", seconds)) s; \(try Tools.objects(big.stdout).count) events"
        )
        #expect(big.status == 0, "\(big.stderr)")
        #expect(!big.stdout.isEmpty)
        #expect(big.stdout == small.stdout, "a million fences and the ones near the walk disagree")
        // Debug builds load about 40k fences a second; release far faster.
        #expect(seconds < 120, "\(seconds) s")
        // And under a budget, the nearest 19 of a million.
        let limited = try Tools.run("fencerule", ["--fences", allURL.path, "--limit", "20"], stdin: walk.stdout)
        #expect(limited.status == 0)
        #expect(try Tools.objects(limited.stdout).contains { $0["event"] as? String == "reselect" })
    }
}
