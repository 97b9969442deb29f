/// What one input line is, for drawing. Every record the kit writes has `lat` and `lon`, so
/// each line is first decoded as a fix (`FixDecoder`); the members a fix does not have, kept
/// verbatim in `Fix.extra`, then tell the records apart:
///
/// | member | record | from |
/// |---|---|---|
/// | `event` | a geofence event: `fence`, `p`, `distance`, `duration`; `reselect`: `fences`, `radius` | fencerule |
/// | `arrival` or `departure` | a visit: `hacc`, `fixes` | visits |
/// | `reason` | a rejected fix | fixfilter --rejects |
/// | `fences` (an object) | a fix with each fence's `p`, `distance`, `inside` | fencerule --trace |
/// | none of these | a fix | every tool |
public enum PlotRecord {
    case fix(Fix)
    case reject(Fix, reason: String)
    case traced(Fix, fences: [FenceSample])
    case event(PlotEvent)
    case visit(PlotVisit)
}

/// One fence's entry in a `fencerule --trace` record.
public struct FenceSample: Equatable, Sendable {
    public var fence: String
    public var p: Double
    public var distance: Double?
    public var inside: Bool
}

public struct PlotEvent: Equatable, Sendable {
    /// enter, exit, missed or reselect (or another word, drawn as a plain mark).
    public var kind: String
    public var fence: String?
    /// reselect: the fences now watched, and the refresh circle's radius in metres.
    public var fences: [String] = []
    public var radius: Double?
    public var time: Timestamp?
    public var lat: Double
    public var lon: Double
    public var p: Double?
    public var distance: Double?
    public var duration: Double?
    public var trace: String?
}

public struct PlotVisit: Equatable, Sendable {
    public var lat: Double
    public var lon: Double
    public var hacc: Double
    public var arrival: Timestamp?
    public var departure: Timestamp?
    public var fixes: Int?
    public var trace: String?
}

/// A record that decodes as a fix but cannot be drawn as what it says it is.
public struct PlotRecordError: Error, Sendable {
    public var message: String
}

extension PlotRecord {
    /// Classifies a decoded line. A plain fix (no unknown members) costs nothing more.
    public static func classify(_ fix: Fix) throws(PlotRecordError) -> PlotRecord {
        if fix.extra.isEmpty { return .fix(fix) }
        let members = try ExtraMembers(fix.extra)
        if let kind = members.value("event") {
            guard let k = kind.string else { throw PlotRecordError(message: "\"event\" must be a string") }
            var e = PlotEvent(kind: k, time: fix.time, lat: fix.lat, lon: fix.lon, trace: fix.trace)
            e.fence = try members.optionalString("fence")
            e.p = try members.optionalNumber("p")
            e.distance = try members.optionalNumber("distance")
            e.duration = try members.optionalNumber("duration")
            e.radius = try members.optionalNumber("radius")
            if let list = members.value("fences") {
                guard case .array(let items) = list else {
                    throw PlotRecordError(message: "a reselect event's \"fences\" must be an array of fence ids")
                }
                e.fences = items.compactMap { $0.string ?? $0.number.map(DecimalNumber.text) }
            }
            if k != "reselect", e.fence == nil {
                throw PlotRecordError(message: "an \(k) event needs a \"fence\"")
            }
            return .event(e)
        }
        let arrival = members.value("arrival")
        let departure = members.value("departure")
        if arrival != nil || departure != nil {
            func time(_ v: JSONValue?, _ name: String) throws(PlotRecordError) -> Timestamp? {
                guard let v, v != .null else { return nil }
                guard let text = v.string, let t = Timestamp.parse(text) else {
                    throw PlotRecordError(
                        message: "a visit's \"\(name)\" must be an RFC 3339 time such as 2026-01-01T09:00:00Z or null")
                }
                return t
            }
            var v = PlotVisit(lat: fix.lat, lon: fix.lon, hacc: max(fix.hacc ?? 0, 0), trace: fix.trace)
            v.arrival = try time(arrival, "arrival")
            v.departure = try time(departure, "departure")
            if let n = try members.optionalNumber("fixes") { v.fixes = Int(exactly: n.rounded()) }
            return .visit(v)
        }
        if let reason = members.value("reason") {
            guard let r = reason.string else { throw PlotRecordError(message: "\"reason\" must be a string") }
            return .reject(fix, reason: r)
        }
        if let fences = members.value("fences") {
            guard case .object(let items) = fences else {
                throw PlotRecordError(message: "\"fences\" of a fencerule --trace record must be an object")
            }
            var samples: [FenceSample] = []
            samples.reserveCapacity(items.count)
            for (id, entry) in items {
                guard let p = entry["p"]?.number, p >= 0, p <= 1 else {
                    throw PlotRecordError(message: "fence \(id.debugDescription) needs a \"p\" from 0 to 1")
                }
                let inside: Bool
                if case .bool(let b) = entry["inside"] { inside = b } else { inside = false }
                samples.append(FenceSample(fence: id, p: p, distance: entry["distance"]?.number, inside: inside))
            }
            return .traced(fix, fences: samples)
        }
        return .fix(fix)
    }
}

/// The members a fix does not know (`Fix.extra`: `"key":value` items joined by commas), read
/// as values. Only lines that have some pay for this.
struct ExtraMembers {
    var members: [(String, JSONValue)] = []

    init(_ extra: [UInt8]) throws(PlotRecordError) {
        var wrapped: [UInt8] = [UInt8(ascii: "{")]
        wrapped.reserveCapacity(extra.count + 2)
        wrapped.append(contentsOf: extra)
        wrapped.append(UInt8(ascii: "}"))
        let parsed: JSONValue
        do throws(JSONSyntaxError) {
            // SAFETY: the local array, lent to the parser for the closure only; the value copies
            // what it keeps.
            parsed = try wrapped.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try JSONValue.parse(buffer)
            }
        } catch {
            // The decoder checked the line's grammar already; this is not expected.
            throw PlotRecordError(message: "not JSON: \(error.message)")
        }
        if case .object(let m) = parsed { members = m }
    }

    func value(_ key: String) -> JSONValue? {
        members.first { $0.0 == key }?.1
    }

    func optionalNumber(_ key: String) throws(PlotRecordError) -> Double? {
        guard let v = value(key), v != .null else { return nil }
        guard let n = v.number else { throw PlotRecordError(message: "\"\(key)\" must be a number") }
        return n
    }

    func optionalString(_ key: String) throws(PlotRecordError) -> String? {
        guard let v = value(key), v != .null else { return nil }
        if let n = v.number { return DecimalNumber.text(n) }  // an id may be a number, as in the fences file
        guard let s = v.string else { throw PlotRecordError(message: "\"\(key)\" must be a string") }
        return s
    }
}
