// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ServeFloor",
    dependencies: [.package(url: "https://github.com/apple/swift-nio", from: "2.81.0")],
    targets: [
        .executableTarget(
            name: "ServeFloor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ])
    ]
)
