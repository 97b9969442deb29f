import Foundation
import Testing

/// `gpx2fix` over every FIT file of the shared corpus (`../shared/corpus/fit/`, 36 files from
/// Garmin Edge, Forerunner, fenix and VIRB, Wahoo, COROS, Hammerhead, Suunto, Sigma, Zwift,
/// Strava's app, Lezyne, SRM, Magellan, ...), checked two ways:
///
/// - (a) it reads every file without a crash, with the exit status and the message the file
///   calls for (`problems`; every other file exits 0), and writes only `gpx2fix: FILE: ...`
///   lines on standard error;
/// - (b) its fixes are the same, field by field, as those of `Tests/oracle/fit_oracle.py`,
///   which decodes with Garmin's FIT SDK for Python, or with fitdecode where the SDK reads
///   nothing (nick, strava-android, lezyne, empty-activities and compressed-speed-distance:
///   the SDK refuses a file whose header promises more bytes than it has, stops at the first
///   error with nothing, and does not support compressed timestamps), and maps the messages
///   to fixes by SPEC's rules, not from the Swift source.
///
/// Tolerances: time, trace and seg exactly; lat, lon, speed and hacc exactly (the same
/// formula rounds once in both: semicircles x 180 / 2^31, speed / 1000); alt to 1e-9 m,
/// since the SDK computes altitude / 5 - 500 (two roundings) and gpx2fix (altitude - 2500) / 5
/// (one), which differ in the last bit or two (188.79999999999995 against 188.8).
///
/// There are no other differences. Where the decoders stop, gpx2fix stops at the same byte
/// and has written the same fixes: nick.fit is cut inside its last record (fitdecode: "expected
/// 2 bytes, got 0 @ 403456"), strava-android uses an undefined local type at byte 7471 (both
/// decoders stop there), lezyne's data turns to garbage at byte 22225 (a definition with
/// architecture 229; fitdecode fails on it with "size", GPSBabel's 804 points are the same
/// 804), and empty-activities has a wrong file CRC and 86,002 bytes after its 12 bytes of FIT.
@Suite("Corpus FIT: gpx2fix against Garmin's FIT SDK and fitdecode")
struct CorpusFITTests {
    static let directory: URL? = Tools.corpus?.appendingPathComponent("fit")

    static let files: [String] = {
        guard let directory else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".fit") }.sorted()
    }()

    static let oracle = Tools.packageRoot.appendingPathComponent("Tests/oracle/fit_oracle.py")
    static let python = Tools.which("python3")
    /// Whether python3 has both decoders the oracle uses (asked once).
    static let oracleAvailable: Bool = {
        guard let python else { return false }
        return (try? Tools.runExecutable(python, ["-c", "import garmin_fit_sdk, fitdecode"]))?.status == 0
    }()
    static let oracleMissing =
        "python3 with garmin-fit-sdk and fitdecode is not available (pip install garmin-fit-sdk fitdecode): the comparison with Tests/oracle/fit_oracle.py is skipped"

    /// The files that must exit 1, with what their message must say.
    static let problems: [String: String] = [
        "fitparse__tests__files__nick.fit":
            "byte 403456: the input ends inside a record message (global 20) of 28 bytes that starts at byte 403437; the file is truncated",
        "fitparse__tests__files__strava-android-app-201.10-b1218918.fit":
            "byte 7471: a data message of local type 11, which no definition message has defined",
        "gpsbabel__reference__track__lezyne_super_gps-garmin_fit-sample-bad-endian.fit":
            "byte 22225: a definition message with architecture 229",
        "sports-lib__src__specs__fixtures__others__empty-activities.fit":
            "byte 14: 86002 bytes after the end of the FIT data",
    ]

    /// Notes (exit 0) that files must give: expected noise and what is not a fix.
    static let notes: [String: String] = [
        "fitparse__tests__files__coros-pace-2-cycling-misaligned-fields.fit":
            "5 definition messages give a field a size that does not fit its base type (event message (global 21) field 3 is 1 byte of uint32",
        "gpsbabel__reference__track__garmin-virb-ultra-30.fit":
            "145 fixes have a timestamp below 0x10000000, which counts seconds since the device started, not UTC",
        "fitparse__tests__files__sample-activity-indoor-trainer.fit": "none of its 2263 record messages has a position",
    ]

    @Test(
        "the corpus has the 36 FIT files the tests were written for",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func corpusIsComplete() {
        #expect(Self.files.count == 36, "fit/ has \(Self.files.count) files")
        for file in Array(Self.problems.keys) + Array(Self.notes.keys) {
            #expect(Self.files.contains(file), "\(file) is not in the corpus")
        }
    }

    @Test(
        "gpx2fix reads the file without a crash, with the status and messages it calls for",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)), arguments: CorpusFITTests.files)
    func readsWithoutCrash(file: String) throws {
        let path = try #require(Self.directory).appendingPathComponent(file).path
        let result = try Tools.run("gpx2fix", [path])
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr.prefix(2000))")
        #expect(
            result.status == (Self.problems[file] == nil ? 0 : 1),
            "\(file): status \(result.status): \(result.stderr.prefix(2000))")
        if let message = Self.problems[file] {
            #expect(result.stderr.contains("gpx2fix: \(path): \(message)"), "\(file): \(result.stderr)")
        }
        if let note = Self.notes[file] {
            #expect(result.stderr.contains("gpx2fix: \(path): \(note)"), "\(file): \(result.stderr)")
        }
        for line in result.stderr.split(separator: "\n") {
            #expect(line.hasPrefix("gpx2fix: \(path): "), "\(file): \(line)")
        }
        for fix in try FITGeneratedTests.objects(result.stdout) {
            guard let lat = fix["lat"] as? Double, let lon = fix["lon"] as? Double, abs(lat) <= 90, abs(lon) <= 180
            else {
                Issue.record("\(file): a fix without lat/lon in range: \(fix)")
                return
            }
            #expect(fix["trace"] as? String == file && fix["seg"] is Int)
        }
    }

    @Test(
        "gpx2fix's fixes are the FIT SDK's (or fitdecode's), field by field",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(if: CorpusFITTests.oracleAvailable, Comment(rawValue: CorpusFITTests.oracleMissing)),
        arguments: CorpusFITTests.files)
    func sameFixesAsOracle(file: String) throws {
        let path = try #require(Self.directory).appendingPathComponent(file).path
        let mine = try Tools.run("gpx2fix", [path])
        let theirs = try Tools.runExecutable(try #require(Self.python), [Self.oracle.path, path])
        #expect(theirs.status == 0, "\(theirs.stderr)")
        FITGeneratedTests.expectSame(
            try FITGeneratedTests.objects(mine.stdout), try FITGeneratedTests.objects(theirs.stdout), file,
            altTolerance: 1e-9)
    }
}
