// fencerule's --fences file: a JSON array or a GeoJSON FeatureCollection. What parses must be
// fences in range, and an index over them must answer.
@testable import FixKit

func fuzzTarget(_ data: UnsafeBufferPointer<UInt8>) {
    guard let fences = try? FenceFile.parse(Array(data), name: "fuzz") else { return }
    for f in fences {
        guard abs(f.lat) <= 90, abs(f.lon) <= 180, f.radius >= 0, f.radius.isFinite else {
            fuzzFailure("a fence out of range was accepted: \(f)")
        }
    }
    // Radii past 1,000 km are issue 11a's (the grid's memory); the index is built for the rest.
    guard !fences.isEmpty, fences.count <= 1000, fences.allSatisfy({ $0.radius <= 1e6 }) else { return }
    let index = FenceIndex(fences)
    for f in fences.prefix(8) {
        _ = index.edgeDistance(0, f.lat, f.lon)
    }
}
