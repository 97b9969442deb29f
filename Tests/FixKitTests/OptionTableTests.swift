import Foundation
import Testing

@testable import FixKit

/// Every tool's option values are checked from its table (`OptionKind`) when the arguments are
/// parsed: for each number, whole number, time and choice option of each tool, values at the
/// edges of the table's range are taken and read back typed, values past them and words that
/// are not numbers give the usage error that names the option, whatever the tool.
struct OptionTableTests {
    static let specs: [(tool: String, spec: OptionSpec)] = DocumentationTests.tools.flatMap { tool in
        tool.options.map { (tool.name, $0) }
    }

    static func parse(_ spec: OptionSpec, _ value: String, in tool: String) throws(UsageError) -> ParsedOptions {
        guard let table = DocumentationTests.tools.first(where: { $0.name == tool })?.options else {
            throw UsageError("no tool \(tool)")
        }
        return try ParsedOptions(arguments: ["--\(spec.name)=\(value)"], table: table)
    }

    /// The message a bad value gives, or nil when it was taken.
    static func refusal(_ spec: OptionSpec, _ value: String, in tool: String) -> String? {
        do throws(UsageError) {
            _ = try parse(spec, value, in: tool)
            return nil
        } catch {
            return error.message
        }
    }

    /// How a range's end is written in the message.
    static func shown(_ x: Double) -> String { DecimalNumber.text(x) }

    @Test("the tables hold typed options: numbers, whole numbers, times and choices")
    func tablesAreTyped() {
        var kinds: [String: Int] = [:]
        for (_, spec) in Self.specs {
            switch spec.kind {
            case .flag: kinds["flag", default: 0] += 1
            case .text: kinds["text", default: 0] += 1
            case .number: kinds["number", default: 0] += 1
            case .integer: kinds["integer", default: 0] += 1
            case .time: kinds["time", default: 0] += 1
            case .choice: kinds["choice", default: 0] += 1
            }
            // A flag takes no value, everything else does.
            #expect((spec.kind == .flag) == (spec.value == nil), "--\(spec.name)")
        }
        // fencerule (6), fixfilter (4), fixplot (4), fixsim (10), fixstats (3), gpx2fix, visits
        // (4) and fix2gpx have 33 number options, fencerule and fixsim 4 whole numbers, fixfilter, fixsim and fix2gpx
        // a time each, fencerule, fixfilter and fixplot 4 choices.
        #expect(kinds["number"] == 33)
        #expect(kinds["integer"] == 4)
        #expect(kinds["time"] == 3)
        #expect(kinds["choice"] == 4)
    }

    @Test("number options: the range's ends taken and read back, past them and not numbers refused")
    func numbers() throws {
        for (tool, spec) in Self.specs {
            guard case .number(let range, let orOff) = spec.kind else { continue }
            let name = "\(tool) --\(spec.name)"
            for edge in [range.lowerBound, range.upperBound] where edge < 1e300 {
                let text = DecimalNumber.text(edge)
                #expect(try Self.parse(spec, text, in: tool).double(spec.name) == edge, "\(name) \(text)")
                #expect(try Self.parse(spec, text, in: tool).double(spec.name, default: -7) == edge, "\(name)")
            }
            let upper =
                range.upperBound == .greatestFiniteMagnitude ? "any larger number" : Self.shown(range.upperBound)
            let below = range.lowerBound == 0 ? -1 : range.lowerBound / 2
            #expect(
                Self.refusal(spec, DecimalNumber.text(below), in: tool)
                    == "--\(spec.name) \(DecimalNumber.text(below)) is out of range: expected \(Self.shown(range.lowerBound)) to \(upper)",
                "\(name)")
            if range.upperBound < 1e300 {
                let above = DecimalNumber.text(range.upperBound * 2)
                #expect(
                    Self.refusal(spec, above, in: tool)
                        == "--\(spec.name) \(above) is out of range: expected \(Self.shown(range.lowerBound)) to \(upper)",
                    "\(name)")
            }
            #expect(
                Self.refusal(spec, "fast", in: tool)
                    == "--\(spec.name) 'fast' is not a number\(orOff ? " or 'off'" : "")", "\(name)")
            if orOff {
                let off = try Self.parse(spec, "off", in: tool)
                #expect(off.double(spec.name, default: Optional(5.0)) == nil, "\(name) off")
            } else {
                #expect(Self.refusal(spec, "off", in: tool) != nil, "\(name) off")
            }
            // Not given: the default the tool passes.
            let none = try ParsedOptions(arguments: [], table: spec.kindTable)
            #expect(none.double(spec.name) == nil && none.double(spec.name, default: 3.5) == 3.5)
        }
    }

    @Test("whole-number options: whole values in range taken, fractions and values past the range refused")
    func integers() throws {
        for (tool, spec) in Self.specs {
            guard case .integer(let range) = spec.kind else { continue }
            let name = "\(tool) --\(spec.name)"
            for (text, value) in [
                ("\(range.lowerBound)", range.lowerBound), ("\(range.upperBound)", range.upperBound),
                ("\(range.lowerBound).0", range.lowerBound), ("\(range.lowerBound + 1)e0", range.lowerBound + 1),
            ] {
                #expect(try Self.parse(spec, text, in: tool).integer(spec.name) == value, "\(name) \(text)")
            }
            #expect(
                Self.refusal(spec, "\(range.lowerBound).5", in: tool)
                    == "--\(spec.name) '\(range.lowerBound).5' is not a whole number", "\(name)")
            let expected = "expected \(Self.shown(Double(range.lowerBound))) to \(Self.shown(Double(range.upperBound)))"
            #expect(
                Self.refusal(spec, "\(range.lowerBound - 1)", in: tool)
                    == "--\(spec.name) \(range.lowerBound - 1) is out of range: \(expected)", "\(name)")
            // Out of range says so even when it is not whole.
            #expect(
                Self.refusal(spec, "\(range.lowerBound - 1).5", in: tool)
                    == "--\(spec.name) \(range.lowerBound - 1).5 is out of range: \(expected)", "\(name)")
            #expect(Self.refusal(spec, "many", in: tool) == "--\(spec.name) 'many' is not a number", "\(name)")
        }
    }

    @Test("time and choice options: their values taken, anything else refused with what was expected")
    func timesAndChoices() throws {
        for (tool, spec) in Self.specs {
            let name = "\(tool) --\(spec.name)"
            switch spec.kind {
            case .time:
                let t = try Self.parse(spec, "2026-03-01T12:00:00.5+01:00", in: tool).time(spec.name)
                #expect(t == Timestamp.parse("2026-03-01T11:00:00.500Z"), "\(name)")
                #expect(
                    Self.refusal(spec, "noon", in: tool)
                        == "--\(spec.name) 'noon' is not an RFC 3339 time such as 2026-01-01T09:00:00Z", "\(name)")
            case .choice(let what, let expected):
                #expect(!spec.choices.isEmpty, "\(name)")
                for word in spec.choices { #expect(Self.refusal(spec, word, in: tool) == nil, "\(name) \(word)") }
                #expect(
                    Self.refusal(spec, "sideways", in: tool)
                        == "--\(spec.name) 'sideways' is not \(what): expected \(expected)", "\(name)")
            default:
                continue
            }
        }
        // The words read back as the type's cases, aliases included.
        let table = FixFilter.description.options
        #expect(
            try ParsedOptions(arguments: ["--course", "off"], table: table).choice("course", CourseMode.self) == .keep)
        #expect(
            try ParsedOptions(arguments: ["--course=reject"], table: table).choice("course", CourseMode.self) == .reject
        )
        #expect(try ParsedOptions(arguments: [], table: table).choice("course", CourseMode.self) == nil)
    }

    @Test("--help and --version win over a bad value; the last of a repeated option is the one checked")
    func helpWins() throws {
        let table = VisitsTool.description.options
        #expect(try ParsedOptions(arguments: ["--radius", "far", "--help"], table: table).has("help"))
        #expect(try ParsedOptions(arguments: ["--version", "--radius=-3"], table: table).has("version"))
        #expect(
            try ParsedOptions(arguments: ["--radius", "far", "--radius", "20"], table: table).double("radius") == 20)
        #expect(throws: UsageError.self) {
            try ParsedOptions(arguments: ["--radius", "20", "--radius", "far"], table: table)
        }
    }
}

extension OptionSpec {
    /// A table of this option alone.
    fileprivate var kindTable: [OptionSpec] { [self] }
}
