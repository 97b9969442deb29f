// swift-tools-version:6.0
// P(inside) evaluations per second: InsideProbability.p against the Simpson-400 reference
// (InsideProbability.simpson400), both from FixKit, over the same grids of cases.
//
//   swift build -c release --package-path bench/pbench --scratch-path /tmp/pbench-build
//   /tmp/pbench-build/release/pbench
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory (lowercased), not after its manifest's
// name: "main" for a checkout in main/, "fixkit" in FixKit/. Work it out, so that any does.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL
let rootIdentity = root.lastPathComponent.lowercased()

let package = Package(
    name: "pbench",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "pbench",
            dependencies: [.product(name: "FixKit", package: rootIdentity)]
        )
    ]
)
