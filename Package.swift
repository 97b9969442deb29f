// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "FixKit",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "FixKit", targets: ["FixKit"]),
        .executable(name: "gpx2fix", targets: ["gpx2fix"]),
        .executable(name: "fix2gpx", targets: ["fix2gpx"]),
        .executable(name: "fixfilter", targets: ["fixfilter"]),
        .executable(name: "fencerule", targets: ["fencerule"]),
        .executable(name: "fixsim", targets: ["fixsim"]),
        .executable(name: "visits", targets: ["visits"]),
        .executable(name: "fixplot", targets: ["fixplot"]),
        .executable(name: "fixstats", targets: ["fixstats"]),
    ],
    targets: [
        // libxml2 behind a module name of our own: `libxml2` clashes with the macOS SDK's module.
        .systemLibrary(
            name: "CFixXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // zlib for gzip input (libxml2 links it too); in the macOS SDK.
        .systemLibrary(
            name: "CFixZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // sincos where the C library has it (a header, no library of its own: libm is linked).
        .systemLibrary(name: "CFixMath"),
        .target(name: "FixKit", dependencies: ["CFixXML2", "CFixZlib", "CFixMath"]),
        .executableTarget(name: "gpx2fix", dependencies: ["FixKit"]),
        .executableTarget(name: "fix2gpx", dependencies: ["FixKit"]),
        .executableTarget(name: "fixfilter", dependencies: ["FixKit"]),
        .executableTarget(name: "fencerule", dependencies: ["FixKit"]),
        .executableTarget(name: "fixsim", dependencies: ["FixKit"]),
        .executableTarget(name: "visits", dependencies: ["FixKit"]),
        .executableTarget(name: "fixplot", dependencies: ["FixKit"]),
        .executableTarget(name: "fixstats", dependencies: ["FixKit"]),
        .testTarget(
            name: "FixKitTests",
            dependencies: [
                "FixKit", "gpx2fix", "fix2gpx", "fixfilter", "fencerule", "fixsim", "visits", "fixplot", "fixstats",
            ],
            resources: []
        ),
    ]
)
