import Foundation
import Testing

/// README "Many rides at once": the GNU parallel recipes, run as written there (taken from
/// README.md itself, so the two cannot drift) over a folder of generated rides, some named
/// alike, against one single-process run of the same pipeline.
struct BulkRecipesTests {
    static let parallelMissing =
        "GNU parallel is not installed (apt-get install parallel): the README's parallel recipes are not run"
    static let python3Missing = "python3 is not installed: bench/gen_rides.py cannot write the rides"

    /// The commands (`$ ` lines, continuation lines joined) of the section's console blocks.
    static func readmeRecipes() throws -> [String] {
        let readme = try String(contentsOf: Tools.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "## Many rides at once\n") else {
            throw TestFailure("README.md has no 'Many rides at once' section")
        }
        let rest = readme[section.upperBound...]
        let body = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var commands: [String] = []
        var pending: String?
        var inBlock = false
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = line == "```console"
                continue
            }
            guard inBlock else { continue }
            if let p = pending {
                pending = p + line
            } else if line.hasPrefix("$ ") {
                pending = String(line.dropFirst(2))
            } else {
                continue
            }
            if let p = pending {
                if p.hasSuffix("\\") {
                    pending = p.dropLast() + " "
                } else {
                    commands.append(p)
                    pending = nil
                }
            }
        }
        return commands
    }

    /// The ride files' track names, in the order a glob lists them.
    static func names(in rides: URL) throws -> [(file: String, name: String)] {
        try FileManager.default.contentsOfDirectory(atPath: rides.path).sorted().map { file in
            let text = try String(contentsOf: rides.appendingPathComponent(file), encoding: .utf8)
            guard let a = text.range(of: "<name>"),
                let b = text.range(of: "</name>", range: a.upperBound..<text.endIndex)
            else {
                throw TestFailure("\(file) has no <name>")
            }
            return (file, String(text[a.upperBound..<b.lowerBound]))
        }
    }

    @Test(
        .enabled(if: Tools.which("parallel") != nil, Comment(rawValue: BulkRecipesTests.parallelMissing)),
        .enabled(if: Tools.which("python3") != nil, Comment(rawValue: BulkRecipesTests.python3Missing)))
    func parallelRecipesMatchOneRun() throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-bulk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rides = dir.appendingPathComponent("rides")
        let gen = try Tools.shell(
            "python3 \(Tools.packageRoot.appendingPathComponent("bench/gen_rides.py").path) --points 300 --seed 7 36 \(rides.path)"
        )
        try #require(gen.status == 0, "gen_rides.py: \(gen.stderr)")
        let names = try Self.names(in: rides)
        try #require(names.count == 36)

        // One process over every file: gpx2fix keeps rides named alike apart by appending the
        // file's name to every later one (SPEC, gpx2fix), so the traces are all different.
        let one = try Tools.shell("cd \(dir.path) && gpx2fix rides/* | fixfilter | fixstats")
        try #require(one.status == 0, "\(one.stderr)")
        var seen = Set<String>()
        var plain: [String: String] = [:]  // the single run's trace -> the track's own name
        for (file, name) in names {
            plain[seen.insert(name).inserted ? name : "\(name) (\(file))"] = name
        }
        #expect(plain.count == names.count)
        #expect(Set(names.map(\.name)).count < names.count, "no two rides share a name: the renaming is not tested")
        let oneRecords = try one.lines.map { line -> String in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let trace = try #require(object["trace"] as? String)
            let name = try #require(plain[trace], "unexpected trace \(trace) in the single run")
            // A per-file run sees one ride, so it keeps the track's own name: undo the renaming.
            return line.replacingOccurrences(of: #"{"trace":"\#(trace)","#, with: #"{"trace":"\#(name)","#)
        }
        #expect(oneRecords.count == names.count)

        let recipes = try Self.readmeRecipes()
        try #require(recipes.count == 2, "README's recipes: \(recipes)")
        #expect(recipes[0].contains("parallel -j") && recipes[0].contains("::: rides/*"))
        #expect(recipes[1].contains("--sshlogin :,"))
        for recipe in recipes {
            // The hosts after ":" are examples; ":" alone is this machine, run without ssh.
            // The records go to standard output here, not to the file the first one names.
            let command = recipe.replacingOccurrences(
                of: #"--sshlogin :[^ ]*"#, with: "--sshlogin :", options: .regularExpression
            ).replacingOccurrences(of: " > stats.ndjson", with: "")
            let r = try Tools.shell("cd \(dir.path) && HOME=\(dir.path) \(command)")
            #expect(r.status == 0, "\(command): \(r.stderr)")
            // Jobs finish in any order and parallel prints each job's output when it ends, so
            // the records are compared as sorted lists: the same records, each ride once.
            #expect(r.lines.sorted() == oneRecords.sorted(), "\(command)")
            #expect(r.lines.count == names.count)
            // --cleanup removes only files it copied to another host: the rides are all here.
            #expect(try FileManager.default.contentsOfDirectory(atPath: rides.path).count == names.count)
        }
    }
}
