/// What a JSON input is, told from its first bytes: the one look at the head that the JSON
/// formats' `recognize` share.
///
/// The root object's members are read in order until one names the format: `"type":
/// "FeatureCollection"` or `"Feature"`, or `"features"` (GeoJSON; GPSLogger puts `"type"`
/// last); `"timelineObjects"`, `"semanticSegments"`, `"rawSignals"` (Google location
/// history); `"_type"` (OwnTracks); `"class"` (gpsd). `"locations"` is both Overland's batch
/// and Records.json, so its first element decides: `type`, `geometry` or `properties` is a
/// GeoJSON Feature, `latitudeE7`, `longitudeE7`, `timestamp`, `timestampMs` or `accuracy` a
/// Records.json location. A root array is told by its first element the same way.
///
/// Monotone: the answer is given only once the bytes that decide it have been seen, so a
/// longer head gives the same answer.
enum JSONShape: Equatable {
    case geojson, takeout, owntracks, gpsd
    /// A JSON object none of those names: maybe fix records (the `fix` format decides).
    case plainObject
    /// JSON, but of no shape gpx2fix knows.
    case unknown
    /// Not JSON at all.
    case notJSON
    case needMore

    static func of(_ head: InputHead) -> JSONShape {
        guard let first = head.bytes.first else { return head.isComplete ? .notJSON : .needMore }
        guard first == JSONByte.openBrace || first == JSONByte.openBracket else { return .notJSON }
        // SAFETY: the head's array, lent to the scanner for the closure only.
        return head.bytes.withUnsafeBufferPointer { buf in
            var s = JSONScanner(buf)
            do throws(JSONSyntaxError) {
                let shape = first == JSONByte.openBrace ? try rootObject(&s) : try rootArray(&s)
                return shape
            } catch {
                // Running out of bytes is not knowing yet; anything else is broken JSON.
                if !head.isComplete && s.position + 8 >= buf.count { return .needMore }
                return .unknown
            }
        }
    }

    private static func rootObject(_ s: inout JSONScanner) throws(JSONSyntaxError) -> JSONShape {
        var verdict: JSONShape?
        try members(&s) { key, s throws(JSONSyntaxError) in
            switch key {
            case "type":
                if s.peek() == JSONByte.quote {
                    let (r, e) = try s.scanString()
                    let v = s.stringValue(r, escaped: e)
                    if v == "FeatureCollection" || v == "Feature" { verdict = .geojson }
                    return verdict != nil
                }
            case "features": verdict = .geojson
            case "timelineObjects", "semanticSegments", "rawSignals": verdict = .takeout
            case "_type": verdict = .owntracks
            case "class": verdict = .gpsd
            case "locations":
                guard s.peek() == JSONByte.openBracket else { break }
                s.position += 1
                s.skipSpace()
                guard s.peek() == JSONByte.openBrace else {
                    if s.peek() == JSONByte.closeBracket { verdict = .takeout }
                    guard s.peek() != nil else { throw s.error("more is needed") }
                    return verdict != nil
                }
                verdict =
                    try elementShape(
                        &s,
                        [
                            "type": .geojson, "geometry": .geojson, "properties": .geojson, "latitudeE7": .takeout,
                            "longitudeE7": .takeout, "timestamp": .takeout, "timestampMs": .takeout,
                            "accuracy": .takeout,
                        ]) ?? .takeout
                return true
            default: break
            }
            if verdict != nil { return true }
            try s.skipValue()
            return false
        }
        return verdict ?? .plainObject
    }

    private static func rootArray(_ s: inout JSONScanner) throws(JSONSyntaxError) -> JSONShape {
        s.position += 1
        s.skipSpace()
        guard let c = s.peek() else { throw s.error("more is needed") }
        guard c == JSONByte.openBrace else { return .unknown }
        return try elementShape(
            &s,
            [
                "_type": .owntracks, "startTime": .takeout, "endTime": .takeout, "visit": .takeout,
                "activity": .takeout,
                "timelinePath": .takeout, "type": .geojson, "geometry": .geojson,
            ]) ?? .unknown
    }

    /// Reads an object's members until one of `keys` names a shape.
    private static func elementShape(_ s: inout JSONScanner, _ keys: [String: JSONShape]) throws(JSONSyntaxError)
        -> JSONShape?
    {
        var verdict: JSONShape?
        try members(&s) { key, s throws(JSONSyntaxError) in
            if let v = keys[key] {
                verdict = v
                return true
            }
            try s.skipValue()
            return false
        }
        return verdict
    }

    /// Calls `body` with each member's name, the scanner at its value; `body` reads the value
    /// and returns true to stop.
    private static func members(
        _ s: inout JSONScanner, _ body: (String, inout JSONScanner) throws(JSONSyntaxError) -> Bool
    ) throws(JSONSyntaxError) {
        s.skipSpace()
        guard s.peek() == JSONByte.openBrace else { throw s.error("expected '{', found \(s.describeHere())") }
        try s.scanMembers(until: { s, name throws(JSONSyntaxError) in
            try body(s.stringValue(name.range, escaped: name.escaped), &s)
        })
    }
}
