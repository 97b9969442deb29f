import Foundation
import Testing

@testable import FixKit

/// Every fixfilter rule at and around its threshold, with and without the fields it reads.
struct FilterRulesTests {
    let t0 = Timestamp.parse("2026-01-01T09:00:00Z")!

    func at(_ seconds: Double) -> Timestamp { Timestamp(milliseconds: t0.milliseconds + Int64((seconds * 1000).rounded())) }

    func judge(_ rules: FilterRules, _ fixes: [Fix]) -> [Verdict] {
        var state = TraceFilterState()
        return fixes.map { rules.judge($0, state: &state) }
    }

    /// Moves of 1 km between fixes, so that the move rule never interferes.
    func walk(_ n: Int) -> [Fix] { (0..<n).map { Fix(lat: Double($0) * 0.01, lon: 0) } }

    @Test(arguments: [
        (nil as Double?, false, Verdict.pass(stripCourse: false)),
        (99.999, false, .pass(stripCourse: false)),
        (100, false, .reject(.hacc)),
        (100.001, false, .reject(.hacc)),
        (0, false, .pass(stripCourse: false)),
        (-1, false, .reject(.hacc)),
        (-0.000001, false, .reject(.hacc)),
        (nil, true, .reject(.hacc)),
        (5, true, .pass(stripCourse: false)),
    ])
    func hacc(_ hacc: Double?, _ require: Bool, _ expected: Verdict) {
        var rules = FilterRules()
        rules.requireHacc = require
        #expect(judge(rules, [Fix(lat: 0, lon: 0, hacc: hacc)]) == [expected])
    }

    /// fixfilter counts rejections in an array indexed by `RejectReason.index`: each reason
    /// has its own slot, in `allCases`' order (the order of `--stats`).
    @Test func reasonIndexes() {
        #expect(RejectReason.allCases.map(\.index) == Array(0..<RejectReason.allCases.count))
    }

    @Test func haccOff() {
        var rules = FilterRules()
        rules.maxHacc = nil
        #expect(judge(rules, [Fix(lat: 0, lon: 0, hacc: 5000)]) == [.pass(stripCourse: false)])
        rules.requireHacc = true
        #expect(judge(rules, [Fix(lat: 0, lon: 0)]) == [.reject(.hacc)])
    }

    @Test(arguments: [(14.999, true), (15, false), (15.001, false), (0, true)])
    func ageAgainstTheNewestTimeOnTheTrace(_ lag: Double, _ passes: Bool) {
        var fixes = walk(2)
        fixes[0].time = at(100)
        fixes[1].time = at(100 - lag)
        let v = judge(FilterRules(), fixes)
        #expect(v[1] == (passes ? .pass(stripCourse: false) : .reject(.age)))
    }

    /// The clock is the newest time of any fix seen, passed or not.
    @Test func clockMovesWithRejectedFixes() {
        var fixes = walk(3)
        fixes[0].time = at(0)
        fixes[1].time = at(60)
        fixes[1].hacc = 500  // rejected for hacc, but its time still sets the clock
        fixes[2].time = at(30)
        #expect(judge(FilterRules(), fixes) == [.pass(stripCourse: false), .reject(.hacc), .reject(.age)])
    }

    @Test(arguments: [(-15.0, false), (-14.999, true), (14.999, true), (15.0, false), (0, true)])
    func ageAgainstNow(_ offset: Double, _ passes: Bool) {
        var rules = FilterRules()
        rules.now = at(0)
        #expect(judge(rules, [Fix(time: at(offset), lat: 0, lon: 0)]) == [passes ? .pass(stripCourse: false) : .reject(.age)])
    }

    @Test func fixesWithoutTimePassTheAgeRule() {
        var rules = FilterRules()
        rules.now = at(0)
        #expect(judge(rules, [Fix(lat: 0, lon: 0)]) == [.pass(stripCourse: false)])
    }

    @Test(arguments: [(nil as Double?, true), (0, true), (80, true), (80.0001, false), (300, false)])
    func speed(_ speed: Double?, _ passes: Bool) {
        #expect(judge(FilterRules(), [Fix(lat: 0, lon: 0, speed: speed)]) == [passes ? .pass(stripCourse: false) : .reject(.speed)])
    }

    @Test(arguments: [
        (CourseMode.strip, nil as Double?, Verdict.pass(stripCourse: true)),
        (.strip, -1, .pass(stripCourse: true)),
        (.strip, 0, .pass(stripCourse: false)),
        (.strip, 15, .pass(stripCourse: false)),
        (.reject, nil, .reject(.course)),
        (.reject, -0.5, .reject(.course)),
        (.reject, 3, .pass(stripCourse: false)),
        (.keep, nil, .pass(stripCourse: false)),
    ])
    func course(_ mode: CourseMode, _ cacc: Double?, _ expected: Verdict) {
        var rules = FilterRules()
        rules.course = mode
        #expect(judge(rules, [Fix(lat: 0, lon: 0, course: 90, cacc: cacc)]) == [expected])
        // No course: nothing to judge.
        #expect(judge(rules, [Fix(lat: 0, lon: 0, cacc: cacc)]) == [.pass(stripCourse: false)])
    }

    /// Moves are measured from the last fix passed, not the last one seen, and a move of exactly
    /// the minimum passes ("less than M" is rejected).
    @Test func minMoveFromTheLastPassedFix() {
        // Two steps of 0.00005° (about 11 m): the distance from fix 0 to fix 2.
        let twoSteps = Geodesy.distance(lat1: 0, lon1: 0, lat2: 0.0001, lon2: 0)
        var rules = FilterRules()
        rules.minMove = twoSteps
        let fixes = (0..<5).map { Fix(lat: Double($0) * 0.00005, lon: 0) }
        #expect(judge(rules, fixes) == [.pass(stripCourse: false), .reject(.move), .pass(stripCourse: false), .reject(.move), .pass(stripCourse: false)])
        rules.minMove = twoSteps + 1e-6
        #expect(judge(rules, fixes)[2] == .reject(.move))
        rules.minMove = nil
        #expect(judge(rules, fixes).allSatisfy { $0 == .pass(stripCourse: false) })
    }

    /// When several rules reject a fix, the reason is the first in SPEC's order.
    @Test func reasonOrder() {
        var rules = FilterRules()
        rules.course = .reject
        rules.now = at(0)
        let bad = Fix(time: at(-100), lat: 0, lon: 0, hacc: 500, speed: 500, course: 10)
        #expect(judge(rules, [bad]) == [.reject(.hacc)])
        var b = bad
        b.hacc = 5
        #expect(judge(rules, [b]) == [.reject(.age)])
        b.time = at(0)
        #expect(judge(rules, [b]) == [.reject(.speed)])
        b.speed = 1
        #expect(judge(rules, [b]) == [.reject(.course)])
    }
}
