// swift-tools-version: 6.1
import PackageDescription

// Measurements of Hoard: the package-benchmark suites in Benchmarks/<Area>/ (`swift package benchmark`),
// and HoardMeasure, which Benchmarks/compare runs beside the peers in peers/ (see README.md here).

// One suite per area, each an executable target that the benchmark plugin runs.
let suites: [Target] = ["Memory", "Disk", "Codecs", "Pipeline"].map { area in
    .executableTarget(
        name: area,
        dependencies: [
            "HoardBenchmarkSupport",
            .product(name: "Hoard", package: "Hoard"),
            .product(name: "Benchmark", package: "benchmark"),
        ],
        path: "Benchmarks/\(area)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "HoardBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Hoard", path: ".."),
        // The MallocInterposer trait (on by default) gives the malloc metrics on Swift 6.3 without jemalloc.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        .executableTarget(
            name: "HoardMeasure",
            dependencies: [
                .product(name: "Hoard", package: "Hoard"),
                // redis-tier: the shared Redis tier against redis-benchmark.
                .product(name: "HoardRedis", package: "Hoard"),
            ]
        ),
        // The fastest a Redis client on SwiftNIO can go here: a floor for the redis-tier rows.
        .executableTarget(
            name: "NIOFloor",
            dependencies: [
                // --tasks: HoardRESP's EventLoopTaskExecutor, as the tier's callers use it.
                .product(name: "HoardRedis", package: "Hoard"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // What the suites share: photos, scratch folders, seeded randomness, custom metrics.
        .target(
            name: "HoardBenchmarkSupport",
            dependencies: [
                .product(name: "Hoard", package: "Hoard"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Support"
        ),
    ] + suites
)
