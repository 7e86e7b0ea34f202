// swift-tools-version: 6.1
import PackageDescription

// Measurements of Hoard, run next to the peers in ../shared/peers (see README.md here).
let package = Package(
    name: "HoardBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Hoard", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "HoardMeasure",
            dependencies: [.product(name: "Hoard", package: "Hoard")]
        )
    ]
)
