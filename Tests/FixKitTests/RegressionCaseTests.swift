import Foundation
import Testing

/// The cases in Tests/Fixtures/regress (see its README.md): each a command, its inputs, and
/// the output, messages and exit status a user must get. Crashes and fuzzing findings live
/// there with their minimized inputs.
struct RegressionCaseTests {
    static let root = Tools.fixtures.appendingPathComponent("regress")

    static let cases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: root.appendingPathComponent("\($0)/cmd").path) }.sorted()
    }()

    @Test func thereAreCases() {
        #expect(Self.cases.count >= 5, "Tests/Fixtures/regress has no cases")
    }

    @Test(arguments: RegressionCaseTests.cases)
    func regression(_ name: String) throws {
        let dir = Self.root.appendingPathComponent(name)
        let temp = TestScratch.root.appendingPathComponent("fixkit-regress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let script = "export T='\(temp.path)'; cd '\(dir.path)' && . ./cmd"
        let r = try Tools.shell(script)
        let expectedOut = try Data(contentsOf: dir.appendingPathComponent("out"))
        let errURL = dir.appendingPathComponent("err")
        let statusURL = dir.appendingPathComponent("status")
        let status =
            FileManager.default.fileExists(atPath: statusURL.path)
            ? Int32(try String(contentsOf: statusURL, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            : 0
        #expect(r.stdout == expectedOut, "\(name): standard output differs:\n\(r.out)")
        if FileManager.default.fileExists(atPath: errURL.path) {
            #expect(r.stderr == (try String(contentsOf: errURL, encoding: .utf8)), "\(name): standard error differs:\n\(r.stderr)")
        } else {
            #expect(r.stderr.isEmpty, "\(name): unexpected messages:\n\(r.stderr)")
        }
        #expect(r.status == status, "\(name): exit status \(r.status), expected \(status)")
    }
}
