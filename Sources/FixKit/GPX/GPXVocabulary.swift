/// The names gpx2fix reads in a GPX document, matched on bytes as libxml2 hands them over.
///
/// Elements are told apart by namespace URI, never by prefix: GPX 1.0, GPX 1.1 and no namespace
/// at all are GPX; so is the namespace of a root `<gpx>` in any other URI (GPSResults writes
/// its own), since such a file means GPX. Everything else (ExpertGPS re-declares the default
/// namespace for its style elements) is not GPX, however it is spelled.
enum GPXNamespace {
    case gpx
    /// Our own extension namespace: what fix2gpx writes for fields GPX has no element for.
    case fixKit
    case other

    static let gpx10 = "http://www.topografix.com/GPX/1/0"
    static let gpx11 = "http://www.topografix.com/GPX/1/1"
    static let fixKitURI = "urn:x-fixkit:gpx:1"
    static let garminTPXv2 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
}

/// An element of interest, by local name.
enum GPXName: Equatable {
    case gpx, trk, trkseg, rte, trkpt, rtept, wpt, name, ele, time, hdop, vdop, pdop, sat, speed, course, cog
    case extensions
    /// Accuracy names used inside `<extensions>`: Apple Health's `hAcc`/`vAcc`, OpenTracks'
    /// `accuracy_horizontal`/`accuracy_vertical`, Logiqx TPX's and our `hacc`/`vacc`/`cacc`.
    case hacc, vacc, cacc
    /// fix2gpx's members that no GPX element holds, as a JSON object.
    case json
    /// fix2gpx's mark on a `<trk>` whose fixes had no `seg`.
    case unsegmented
    /// fix2gpx's mark on a `<trk>` that goes on with the trace of the one before it (its `seg`
    /// went back): the same recording, not a second one of the same name.
    case continued
    /// fix2gpx's longitude of 180, which GPX's `lon` attribute cannot hold.
    case lon
    /// fix2gpx's exact track name, when white space at its ends would be trimmed from `<name>`.
    case trace
    case unknown

    // SAFETY: `p` is libxml2's NUL-terminated local name, valid for the callback; each comparison
    // reads at most the candidate's length plus one byte, stopping at the first difference (at the
    // latest at `p`'s NUL).
    static func of(_ p: UnsafePointer<UInt8>) -> GPXName {
        @inline(__always) func eq(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            let w = s.utf8Start
            for k in 0..<n where p[k] != w[k] { return false }
            return p[n] == 0
        }
        switch p[0] {
        case UInt8(ascii: "t"):
            if eq("trkpt") { return .trkpt }
            if eq("time") { return .time }
            if eq("trkseg") { return .trkseg }
            if eq("trk") { return .trk }
            if eq("trace") { return .trace }
        case UInt8(ascii: "e"):
            if eq("ele") { return .ele }
            if eq("extensions") { return .extensions }
        case UInt8(ascii: "u"): if eq("unsegmented") { return .unsegmented }
        case UInt8(ascii: "r"):
            if eq("rtept") { return .rtept }
            if eq("rte") { return .rte }
        case UInt8(ascii: "w"): if eq("wpt") { return .wpt }
        case UInt8(ascii: "n"): if eq("name") { return .name }
        case UInt8(ascii: "h"):
            if eq("hdop") { return .hdop }
            if eq("hAcc") || eq("hacc") { return .hacc }
        case UInt8(ascii: "v"):
            if eq("vdop") { return .vdop }
            if eq("vAcc") || eq("vacc") { return .vacc }
        case UInt8(ascii: "p"): if eq("pdop") { return .pdop }
        case UInt8(ascii: "s"):
            if eq("speed") { return .speed }
            if eq("sat") { return .sat }
        case UInt8(ascii: "c"):
            if eq("course") { return .course }
            if eq("cacc") { return .cacc }
            if eq("cog") { return .cog }
            if eq("continued") { return .continued }
        case UInt8(ascii: "a"):
            if eq("accuracy_horizontal") { return .hacc }
            if eq("accuracy_vertical") { return .vacc }
        case UInt8(ascii: "g"): if eq("gpx") { return .gpx }
        case UInt8(ascii: "j"): if eq("json") { return .json }
        case UInt8(ascii: "l"): if eq("lon") { return .lon }
        default: break
        }
        return .unknown
    }
}

/// Compares a NUL-terminated C string with a Swift string's UTF-8.
// SAFETY: `p` must be NUL-terminated and valid for the call: reading stops at the first difference,
// which a shorter `p` has at its NUL.
@inline(__always)
func cStringEquals(_ p: UnsafePointer<UInt8>, _ s: String) -> Bool {
    var i = 0
    for b in s.utf8 {
        if p[i] != b { return false }
        i += 1
    }
    return p[i] == 0
}
