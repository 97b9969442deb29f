import Foundation
import Testing

@testable import FixKit

/// The neighbourhood query that builds fencerule's lists (`FenceIndex.forEachNear`) against
/// every fence, and the geometry it prunes its probes by (`FenceIndex.SurfaceSlab`) against
/// points of the ellipsoid: near the poles, at the antimeridian, over a dense region, with
/// radii from 5 m to 2,000 km.
struct FenceIndexNearTests {
    typealias Random = FenceIndexBruteForceTests.Random

    /// Every fence whose centre is within chord reach(R) + ρ of the point is found, once, with
    /// its own slot and the slot's place; no other is.
    @Test(arguments: 0..<6)
    func forEachNearFindsEveryFenceInReach(seed: Int) {
        var r = Random(UInt64(31_337 + seed))
        var (fences, hubs) = FenceIndexBruteForceTests.fenceSet(&r)
        // A dense stretch as well: a fence every 100 m or so over 3 km, as on the bench.
        let dense = hubs[0]
        for _ in 0..<900 {
            let c = FenceIndexBruteForceTests.point(dense, east: r.range(-1_500, 1_500), north: r.range(-1_500, 1_500))
            fences.append(Fence(id: "d\(fences.count)", lat: c.0, lon: c.1, radius: r.range(50, 200)))
        }
        let index = FenceIndex(fences)
        let centres = fences.map { Geodesy.Point(lat: $0.lat, lon: $0.lon) }
        var queries = 0
        for q in 0..<120 {
            let hub = hubs[r.int(hubs.count)]
            let at: (Double, Double)
            switch q % 3 {
            case 0: at = FenceIndexBruteForceTests.point(hub, east: r.gauss() * 2_000, north: r.gauss() * 2_000)
            case 1:
                at = FenceIndexBruteForceTests.point(dense, east: r.range(-1_500, 1_500), north: r.range(-1_500, 1_500))
            default: at = (asin(r.range(-1, 1)) * 180 / .pi, r.range(-180, 180))
            }
            let point = Geodesy.Point(lat: at.0, lon: at.1)
            let rho = [0, 32, 256, 3_000, 40_000][r.int(5)]
            var found: [Int] = []
            index.forEachNear(point, within: Double(rho)) { slot, k, place in
                found.append(k)
                #expect(Int(index.originals[place]) == k)
                #expect(index.slots[place].x == slot.x && slot.radius == fences[k].radius)
            }
            let expected = fences.indices.filter { k in
                let c = centres[k]
                let limit = FenceIndex.reach(fences[k].radius) + Double(rho)
                return FenceIndex.chordSquared(point, c.x, c.y, c.z) <= limit * limit
            }
            #expect(found.sorted() == expected, "query \(q) at \(at), rho \(rho)")
            queries += expected.isEmpty ? 0 : 1
        }
        #expect(queries > 40, "most queries find fences")
    }

    /// A point of the ellipsoid within chord s of another lies in a cube the slab around the
    /// other lets through, for every cube size the index has: near points (s up to 20 km, from
    /// offsets along the surface) and far ones (anywhere on the globe, s up to the diameter);
    /// and the slab does prune: of the cubes within reach of a 256 m list's build, it passes
    /// about a third.
    @Test func surfaceSlabHoldsEveryNearbySurfacePoint() {
        var r = Random(2_718)
        let places = FenceIndexBruteForceTests.places + [(0, 0), (45, 90), (-60, -45), (89.9999, 0), (-90, 0)]
        for n in 0..<4_000 {
            let base = places[r.int(places.count)]
            let p0 = FenceIndexBruteForceTests.point(base, east: r.gauss() * 50_000, north: r.gauss() * 50_000)
            let p = Geodesy.Point(lat: p0.0, lon: p0.1)
            let slab = FenceIndex.SurfaceSlab(p)
            let q0: (Double, Double)
            if n % 4 == 3 {
                q0 = (asin(r.range(-1, 1)) * 180 / .pi, r.range(-180, 180))
            } else {
                let s = r.logRange(1, 20_000)
                let bearing = r.range(0, 2 * .pi)
                q0 = FenceIndexBruteForceTests.point(p0, east: s * sin(bearing), north: s * cos(bearing))
            }
            let q = Geodesy.Point(lat: q0.0, lon: q0.1)
            let chord = FenceIndex.chordSquared(p, q.x, q.y, q.z).squareRoot()
            for level in 0..<FenceIndex.levelCount {
                let cell = FenceIndex.cellSize(level)
                let (i, j, l) = (FenceIndex.cube(q.x, cell), FenceIndex.cube(q.y, cell), FenceIndex.cube(q.z, cell))
                let crosses = slab.slab(within: chord, cell: cell).crosses(i, j, l)
                #expect(crosses, "\(q0) at chord \(chord) m from \(p0), cell \(cell) m")
            }
        }
        // The pruning: cubes of 200 m within 359 m (ρ = 256 m and a level's reach of 102 m).
        var passed = 0
        var total = 0
        for _ in 0..<200 {
            let at = (asin(r.range(-1, 1)) * 180 / .pi, r.range(-180, 180))
            let p = Geodesy.Point(lat: at.0, lon: at.1)
            let within = 359.0
            let cell = 200.0
            let slab = FenceIndex.SurfaceSlab(p).slab(within: within, cell: cell)
            let (lo, hi) = FenceIndex.cubes(around: p, within: within, cell)
            for i in lo.x...hi.x {
                for j in lo.y...hi.y {
                    for l in lo.z...hi.z
                    where FenceIndex.blockGap(p, i, j, l, cell: cell, side: cell) <= within * within {
                        total += 1
                        if slab.crosses(i, j, l) { passed += 1 }
                    }
                }
            }
        }
        #expect(total > 0 && Double(passed) < 0.45 * Double(total), "\(passed) of \(total) cubes probed")
        #expect(Double(passed) > 0.15 * Double(total), "\(passed) of \(total) cubes probed")
    }

    /// The cubes a build probes, found column by column from the two tests solved for one axis
    /// (`Slab.keys`), are those the tests pass cube by cube over the whole box: every one,
    /// once, never more than the box holds, and hardly any more (each range is widened past
    /// its rounding), for points where each of the three axes is the normal's largest
    /// component, either way (the equator at 0°, 90° E and 90° W, near 180°, the mid latitudes
    /// and the poles), and boxes from a list's build to the largest a level probes, cubes of
    /// 50 m to 819 km.
    @Test func columnsHoldTheCubesTheTestsPass() {
        var r = Random(4_242)
        let places =
            FenceIndexBruteForceTests.places + [
                (0, 0), (0, 90), (0, -90), (0, -179.9), (45, 45), (-60, -45), (89.99, 10), (-89.99, -100),
            ]
        var cubes = 0
        var extra = 0
        var boxes = 0
        for n in 0..<4_000 {
            let base = places[n % places.count]
            let at = FenceIndexBruteForceTests.point(base, east: r.gauss() * 20_000, north: r.gauss() * 20_000)
            let point = Geodesy.Point(lat: at.0, lon: at.1)
            let level = n % 3 == 0 ? r.int(15) : r.int(6)
            let cell = FenceIndex.cellSize(level)
            let within = r.range(0, 3.2) * cell
            let (lo, hi) = FenceIndex.cubes(around: point, within: within, cell)
            let box = (Int(hi.x) - Int(lo.x) + 1) * (Int(hi.y) - Int(lo.y) + 1) * (Int(hi.z) - Int(lo.z) + 1)
            guard box <= FenceIndex.boxLimit else { continue }
            boxes += 1
            let slab = FenceIndex.SurfaceSlab(point).slab(within: within, cell: cell)
            var expected: Set<UInt64> = []
            for i in lo.x...hi.x {
                for j in lo.y...hi.y {
                    for l in lo.z...hi.z
                    where FenceIndex.blockGap(point, i, j, l, cell: cell, side: cell) <= within * within
                        && slab.crosses(i, j, l)
                    {
                        expected.insert(FenceIndex.morton(i, j, l))
                    }
                }
            }
            var keys = [UInt64](repeating: 0, count: FenceIndex.boxLimit)
            let count = keys.withUnsafeMutableBufferPointer { keys in
                slab.keys(around: point, lo: lo, hi: hi, within: within * within, into: keys)
            }
            let found = Set(keys[..<count])
            #expect(count <= box, "at \(at), cell \(cell) m: \(count) keys for a box of \(box)")
            #expect(found.count == count, "each cube once, at \(at), cell \(cell) m")
            #expect(expected.isSubset(of: found), "at \(at), cell \(cell) m, within \(within) m")
            cubes += expected.count
            extra += found.subtracting(expected).count
        }
        #expect(boxes > 3_000 && cubes > 20_000, "\(boxes) boxes, \(cubes) cubes")
        #expect(extra * 1_000 <= cubes, "\(extra) cubes more than the tests pass, of \(cubes)")
    }

    /// A column's run along its axis (`ballRun`) holds every cube the block gap test keeps,
    /// where the ball just grazes the column (the other axes' gaps sum to the squared reach, or
    /// a hair below it) and the point is a micrometre or less from a cube's face: there a gap
    /// whose square is below an ulp of the reach rounds away in the sum, and a run of the root
    /// of what is left, plus a micrometre, stopped a cube short (the case below, found by a
    /// review: x = 6,378,099.9999989 m, 1.1 µm below a face of 50 m cubes).
    @Test func ballRunHoldsWhatTheGapTestKeepsWhereTheBallGrazes() {
        let limit = 9_586.0
        let run = FenceIndex.ballRun(6_378_099.999_998_9, limit: limit, beyond: limit, cell: 50)
        #expect(run.last >= 255_562, "\(run)")
        var r = Random(7_331)
        var grazing = 0
        for _ in 0..<100_000 {
            let cell = FenceIndex.cellSize(r.int(15))
            let face = Double(r.int(200_000) + 10) * cell - FenceIndex.offset
            let c = face + [-1, 1][r.int(2)] * r.logRange(1e-9, 1e-3) * max(1, cell / 50)
            let limit = r.logRange(1, 1e12) * (cell / 50) * (cell / 50)
            let g = [limit, limit.nextDown, limit * (1 - 1e-15), limit * (1 - r.range(0, 1e-9))][r.int(4)]
            let run = FenceIndex.ballRun(c, limit: limit, beyond: g, cell: cell)
            let m0 = FenceIndex.cube(c, cell)
            for m in (m0 - min(m0, 3))...(m0 + 3) where g + FenceIndex.axisGap(c, m, cell: cell, side: cell) <= limit {
                #expect(
                    run.first <= m && m <= run.last,
                    "c \(c), cell \(cell), limit \(limit), g \(g): cube \(m) outside \(run)")
                if m != m0 { grazing += 1 }
            }
        }
        #expect(grazing > 1_000, "\(grazing) cubes kept beyond the point's own")
    }

    /// An index large enough that its blocks are `System.allocateLarge`'s own pages (its
    /// centres' block then handed back past the hash tables), over many levels: the build
    /// lends the slots' block to the keys and to each level's sort, and the centres' block to
    /// the hash tables, so every slot must still hold its own fence's centre and radius, every
    /// fence one slot, and the queries find what every fence's chord says.
    @Test func aLargeIndexOverManyLevelsKeepsEveryFence() {
        var r = Random(880_042)
        let hub = (46.2, 6.1)
        var fences: [Fence] = []
        for _ in 0..<190_000 {
            let c = FenceIndexBruteForceTests.point(
                hub, east: r.range(-15_000, 15_000), north: r.range(-15_000, 15_000))
            fences.append(Fence(id: "d\(fences.count)", lat: c.0, lon: c.1, radius: r.logRange(5, 3_000)))
        }
        for _ in 0..<10_000 {
            let lat = asin(r.range(-1, 1)) * 180 / .pi
            fences.append(
                Fence(id: "g\(fences.count)", lat: lat, lon: r.range(-180, 180), radius: r.logRange(5, 2_000_000)))
        }
        let index = FenceIndex(fences)
        #expect(index.levels.count >= 8, "\(index.levels.count) levels")
        let centres = fences.map { Geodesy.Point(lat: $0.lat, lon: $0.lon) }
        var wrong = 0
        for k in fences.indices {
            let place = index.place(of: k)
            let slot = index.slots[place]
            let c = centres[k]
            if Int(index.originals[place]) != k || slot.x != c.x || slot.y != c.y || slot.z != c.z
                || slot.radius != fences[k].radius
            {
                wrong += 1
            }
        }
        #expect(wrong == 0, "\(wrong) fences without their own slot")
        for q in 0..<40 {
            let at =
                q % 4 == 3
                ? (asin(r.range(-1, 1)) * 180 / .pi, r.range(-180, 180))
                : FenceIndexBruteForceTests.point(hub, east: r.range(-16_000, 16_000), north: r.range(-16_000, 16_000))
            let point = Geodesy.Point(lat: at.0, lon: at.1)
            let rho = [0.0, 256, 2_000][q % 3]
            var found: [Int] = []
            index.forEachNear(point, within: rho) { _, k, _ in found.append(k) }
            let expected = fences.indices.filter { k in
                let c = centres[k]
                let limit = FenceIndex.reach(fences[k].radius) + rho
                return FenceIndex.chordSquared(point, c.x, c.y, c.z) <= limit * limit
            }
            #expect(found.sorted() == expected, "query \(q) at \(at), rho \(rho)")
        }
    }

    /// `place(of:)` is the inverse of the slots' fence numbers.
    @Test func placeOfInvertsTheSlotsOrder() {
        var r = Random(606)
        let (fences, _) = FenceIndexBruteForceTests.fenceSet(&r)
        let index = FenceIndex(fences)
        for k in fences.indices {
            let place = index.place(of: k)
            #expect(Int(index.originals[place]) == k)
            #expect(index.slots[place].radius == fences[k].radius)
        }
    }
}
