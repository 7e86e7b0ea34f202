// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Hoard",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "Hoard", targets: ["Hoard"]),
        .executable(name: "hoard", targets: ["HoardCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        // System libraries: the package manager suggests these packages when a header is missing.
        .systemLibrary(
            name: "CHoardPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),
        .systemLibrary(
            name: "CHoardJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]
        ),
        // All of libpng and libjpeg (and every setjmp/longjmp) lives in this C target.
        .target(
            name: "CHoardCodecs",
            dependencies: ["CHoardPNG", "CHoardJPEG"]
        ),
        .target(
            name: "Hoard",
            dependencies: [
                "CHoardCodecs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "HoardCommand",
            dependencies: [
                "Hoard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A child process for the DiskCache tests: killed mid-write, and a second writer.
        .executableTarget(
            name: "HoardDiskStress",
            dependencies: ["Hoard", "HoardTestSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/HoardDiskStress"
        ),
        // What the test suite and its child processes share: self-verifying values and a log handler.
        .target(
            name: "HoardTestSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/HoardTestSupport"
        ),
        .testTarget(
            name: "HoardTests",
            dependencies: ["Hoard", "CHoardCodecs", "HoardTestSupport"]
        ),
        // End-to-end tests of the hoard tool: the built binary against an HTTP server on 127.0.0.1.
        .testTarget(
            name: "HoardCommandTests",
            dependencies: [
                "Hoard",
                "HoardTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
