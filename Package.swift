// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Hoard",
    // Linux is built and tested in CI; macOS should work with Homebrew's libpng, jpeg-turbo, webp,
    // giflib and libavif but is not tested here. iOS, tvOS and watchOS are not supported: their
    // SDKs have no pkg-config image libraries (see the README's Platforms section).
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Hoard", targets: ["Hoard"]),
        // The cache alone, for a program that stores no images: it links no image library.
        .library(name: "HoardCore", targets: ["HoardCore"]),
        // The shared Redis tier, a product of its own: an app that does not use Redis links
        // neither it nor SwiftNIO.
        .library(name: "HoardRedis", targets: ["HoardRedis"]),
        // The image server's routes, for a Hummingbird 2 application to mount.
        .library(name: "HoardServer", targets: ["HoardServer"]),
        .executable(name: "hoard", targets: ["HoardCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
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
        .systemLibrary(
            name: "CHoardWebP",
            pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]
        ),
        .systemLibrary(
            name: "CHoardGIF",
            pkgConfig: "libgif",
            providers: [.apt(["libgif-dev"]), .brew(["giflib"])]
        ),
        .systemLibrary(
            name: "CHoardAVIF",
            pkgConfig: "libavif",
            providers: [.apt(["libavif-dev"]), .brew(["libavif"])]
        ),
        // Little CMS 2: colour profiles (checking them, converting pixels to sRGB).
        .systemLibrary(
            name: "CHoardLCMS",
            pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]
        ),
        // SHA-256 for the disk cache's file names: OpenSSL's libcrypto on Linux (Apple platforms use
        // CommonCrypto, part of the OS). A system library rather than swift-crypto, whose own copy
        // of BoringSSL would double the C a first build compiles (the tool's TLS brings one already).
        .systemLibrary(
            name: "CHoardCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // The disk cache's index (SQLite in WAL mode), through the system's libsqlite3.
        .systemLibrary(
            name: "CHoardSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The C that needs no image library: CRC-32C, SHA-256 (libcrypto), a copy routine, `dirent`
        // fields and ThreadSanitizer annotations. What HoardSystem, the Redis client and the cache
        // core link.
        .target(
            name: "CHoardSupport",
            dependencies: [.target(name: "CHoardCrypto", condition: .when(platforms: [.linux]))]
        ),
        // All of libpng, libjpeg, libwebp, giflib, libavif and Little CMS (and every setjmp/longjmp)
        // lives in this C target, and nothing else; zlib inflates a PNG's profile, libwebpmux adds
        // one to a WebP.
        .target(
            name: "CHoardCodecs",
            dependencies: ["CHoardPNG", "CHoardJPEG", "CHoardWebP", "CHoardGIF", "CHoardAVIF", "CHoardLCMS"],
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("webpmux")]
        ),
        // What the library and the tool share: system calls that retry EINTR and name the failing
        // call, files and folders, the lock, SHA-256 and zero padding. Internal to the package.
        .target(
            name: "HoardSystem",
            dependencies: ["CHoardSupport", .product(name: "DequeModule", package: "swift-collections")]
        ),
        // The cache core: `Cachable`, the memory, disk and tier contract, the manager. It links no
        // image library.
        .target(
            name: "HoardCore",
            dependencies: [
                "CHoardSupport",
                "CHoardSQLite",
                "HoardSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // Images above the core: `Image`, its codecs, resampling, thumbnails and `ThumbnailKey`,
        // `Image: Cachable`, and the image-only encoding options.
        .target(
            name: "HoardImage",
            dependencies: ["HoardCore", "CHoardCodecs", "HoardSystem"]
        ),
        // `import Hoard`: the core and the image module together.
        .target(
            name: "Hoard",
            dependencies: ["HoardCore", "HoardImage"]
        ),
        // Downloaded originals kept fresh as HTTP says (RFC 9111): the downloader, the freshness
        // rules and the originals' cache that `hoard thumbnails` and `hoard serve` share.
        .target(
            name: "HoardOriginals",
            dependencies: [
                "Hoard",
                "HoardSystem",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The image server: the URL scheme, signatures, source policy and format negotiation, the
        // routes, and the HTTP/1.1 server with its connection limits (DESIGN.md, "The server").
        .target(
            name: "HoardServer",
            dependencies: [
                "Hoard",
                "HoardOriginals",
                "HoardSystem",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "HoardCommand",
            dependencies: [
                "Hoard",
                "HoardOriginals",
                "HoardServer",
                "HoardSystem",
                "HoardRedis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // A child process for the DiskCache tests: killed mid-write, and a second writer.
        .executableTarget(
            name: "HoardDiskStress",
            dependencies: ["Hoard", "HoardSystem", "HoardTestSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/HoardDiskStress"
        ),
        // What the test suite and its child processes share: self-verifying values, a log handler,
        // folder snapshots and the table of bad values every entry point must refuse.
        .target(
            name: "HoardTestSupport",
            dependencies: ["Hoard", "HoardSystem", .product(name: "Logging", package: "swift-log")],
            path: "Tests/HoardTestSupport"
        ),
        .testTarget(
            name: "HoardTests",
            dependencies: [
                "Hoard", "CHoardCodecs", "CHoardSQLite", "CHoardSupport", "HoardSystem", "HoardTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // The image server's parts, its routes and its connections.
        .testTarget(
            name: "HoardServerTests",
            dependencies: [
                "Hoard", "HoardOriginals", "HoardServer", "HoardSystem", "HoardTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The server as a user mounts it: public API only, in an application of its own.
        .testTarget(
            name: "HoardServerMountTests",
            dependencies: [
                "Hoard", "HoardServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // HoardSystem on its own: system calls, folders, the lock, SHA-256, the work queue.
        .testTarget(
            name: "HoardSystemTests",
            dependencies: ["HoardSystem", "HoardTestSupport"]
        ),
        // End-to-end tests of the hoard tool: the built binary against an HTTP server on 127.0.0.1; and
        // unit tests of its HTTP freshness rules.
        .testTarget(
            name: "HoardCommandTests",
            dependencies: [
                "Hoard",
                "HoardCommand",
                // @testable, for unit tests of the HTTP freshness rules.
                "HoardOriginals",
                "HoardServer",
                "HoardSystem",
                "HoardTestSupport",
                "RedisTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // A small RESP2 (Redis) client on SwiftNIO, for the Redis cache tier. Protocol/ imports only the
        // standard library and HoardSystem's InvalidValueError (the RESP fuzz harness compiles it with
        // that one file); Client/ takes ThreadSanitizer's annotation from HoardSystem.
        .target(
            name: "HoardRESP",
            dependencies: [
                "HoardSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/HoardRESP"
        ),
        // The Redis tier: a CacheTier on the RESP client.
        .target(
            name: "HoardRedis",
            dependencies: [
                "HoardCore", "HoardRESP", "HoardSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // A redis-server on a free loopback port per test (stopped by its PID), a fake server that
        // answers nonsense, and a self-signed certificate: for every suite that needs Redis.
        .target(
            name: "RedisTestSupport",
            dependencies: [
                "HoardRESP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/RedisTestSupport"
        ),
        // Against a real redis-server that each test starts on a loopback port (skipped without one,
        // unless HOARD_REQUIRE_REDIS=1).
        .testTarget(
            name: "HoardRESPTests",
            dependencies: [
                "HoardRESP",
                "RedisTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/HoardRESPTests"
        ),
        // The Redis tier, alone and behind a Hoard, against real servers: the tier contract,
        // leases, marks, sharding, and faults (killed, paused, full, garbage, nonsense, auth, TLS).
        .testTarget(
            name: "HoardRedisTests",
            dependencies: [
                "Hoard", "HoardRedis", "HoardRESP", "HoardSystem", "HoardTestSupport", "RedisTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)

// `scripts/sanitize address` sets HOARD_SANITIZE=address: the code under test (every target but the
// test targets) is compiled and linked with AddressSanitizer in the ordinary build folder. The
// dependencies keep the objects `swift build` made, and so do the test targets, whose flags do not
// change: `--sanitize=address` would compile both again (about 10 minutes of CI) to check code
// that is not Hoard's or is only the tests' own. ThreadSanitizer must see every lock and atomic, so
// `scripts/sanitize thread` uses `--sanitize=thread` in a folder of its own.
if Context.environment["HOARD_SANITIZE"] == "address" {
    for target in package.targets where target.type != .system && target.type != .test {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=address"])]
        target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-fsanitize=address"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=address"])]
    }
}
