import Foundation
import Hoard

/// Every public entry point that takes a limit, ratio, interval, URL, quality, size or expiry,
/// called with values it must refuse. Shared by the in-process test (which checks each error) and
/// the `HoardDiskStress bad-values` child (which shows that none of them traps).
public enum BadValueCases {
    /// One call with one bad value.
    public struct Case: Sendable, CustomStringConvertible {
        /// What is called, with what.
        public let name: String
        /// The field the error must name.
        public let field: String
        /// The bad value as the error must print it.
        public let value: String
        /// Makes the call in `folder` (a fresh, empty folder); returns what it threw, or `nil`.
        public let call: @Sendable (_ folder: URL) async -> (any Error)?

        public var description: String { name }
    }

    /// The cases.
    public static let all: [Case] = hoardConfiguration + diskCache + memoryCache + calls + images

    static let hoardConfiguration: [Case] = [
        hoard("diskSizeLimit", "0") { $0.diskSizeLimit = 0 },
        hoard("diskSizeLimit", "-1") { $0.diskSizeLimit = -1 },
        hoard("diskWriteLockTimeout", "nan") { $0.diskWriteLockTimeout = .nan },
        hoard("diskWriteLockTimeout", "-1.0") { $0.diskWriteLockTimeout = -1 },
        hoard("diskWriteLockTimeout", "7200.0") { $0.diskWriteLockTimeout = 7200 },
        hoard("memoryCountLimit", "-1") { $0.memoryCountLimit = -1 },
        hoard("memoryCostLimit", "\(Int.min)") { $0.memoryCostLimit = .min },
        hoard("jpegQuality", "0") { $0.jpegQuality = 0 },
        hoard("jpegQuality", "101") { $0.jpegQuality = 101 },
        hoard("expirationMarkRefreshInterval", "nan") { $0.expirationMarkRefreshInterval = .nan },
        hoard("expirationMarkRefreshInterval", "inf") { $0.expirationMarkRefreshInterval = .infinity },
        hoard("expirationMarkRefreshInterval", "-1.0") { $0.expirationMarkRefreshInterval = -1 },
        hoard("expirationMarkRefreshInterval", "1e+16") { $0.expirationMarkRefreshInterval = 1e16 },
        hoard("defaultExpiry", ".seconds(nan)") { $0.defaultExpiry = .seconds(.nan) },
        hoard("defaultExpiry", ".seconds(inf)") { $0.defaultExpiry = .seconds(.infinity) },
        hoard("expirationPolicy", ".olderThan(-1.0)") { $0.expirationPolicy = .olderThan(-1) },
        hoard("expirationPolicy", ".olderThan(nan)") { $0.expirationPolicy = .olderThan(.nan) },
        hoard("directory", "https://example.com/cache") { $0.directory = URL(string: "https://example.com/cache") },
    ]

    static let diskCache: [Case] = [
        disk("sizeLimit", "0") { $0.sizeLimit = 0 },
        disk("sizeLimit", "\(Int.min)") { $0.sizeLimit = .min },
        disk("lowWaterMarkRatio", "0.0") { $0.lowWaterMarkRatio = 0 },
        disk("lowWaterMarkRatio", "1.5") { $0.lowWaterMarkRatio = 1.5 },
        disk("lowWaterMarkRatio", "nan") { $0.lowWaterMarkRatio = .nan },
        disk("recencyUpdateInterval", "nan") { $0.recencyUpdateInterval = .nan },
        disk("rescanInterval", "inf") { $0.rescanInterval = .infinity },
        disk("abandonedTemporaryFileAge", "-inf") { $0.abandonedTemporaryFileAge = -.infinity },
        disk("writeLockTimeout", "inf") { $0.writeLockTimeout = .infinity },
        disk("writeLockTimeout", "3601.0") { $0.writeLockTimeout = 3601 },
        Case(name: "DiskCache(directory:) with an http URL", field: "file URL", value: "http://example.com/x") { _ in
            await caught { _ = try DiskCache(directory: URL(string: "http://example.com/x") ?? URL(filePath: "/")) }
        },
        Case(name: "DiskCache.store with .seconds(nan)", field: "expiry", value: ".seconds(nan)") { folder in
            await caught { try DiskCache(directory: folder).store(Data(), forKey: "k", expiry: .seconds(.nan)) }
        },
    ]

    static let memoryCache: [Case] = [
        Case(name: "MemoryCache countLimit -1", field: "countLimit", value: "-1") { _ in
            await caught { _ = try MemoryCache<String, Int>(configuration: .init(countLimit: -1)) }
        },
        Case(name: "MemoryCache costLimit -1", field: "costLimit", value: "-1") { _ in
            await caught { _ = try MemoryCache<String, Int>(configuration: .init(costLimit: -1)) }
        },
        Case(name: "MemoryCache defaultExpiry .seconds(inf)", field: "defaultExpiry", value: ".seconds(inf)") { _ in
            await caught { _ = try MemoryCache<String, Int>(configuration: .init(defaultExpiry: .seconds(.infinity))) }
        },
        Case(name: "MemoryCache.setValue cost -1", field: "cost", value: "-1") { _ in
            await caught { try MemoryCache<String, Int>().setValue(1, forKey: "k", cost: -1) }
        },
        Case(name: "MemoryCache.setValue cost function -5", field: "cost", value: "-5") { _ in
            await caught { try MemoryCache<String, Int>(configuration: .init(cost: { _ in -5 })).setValue(1, forKey: "k") }
        },
        Case(name: "MemoryCache.setValue expiry .seconds(nan)", field: "expiry", value: ".seconds(nan)") { _ in
            await caught { try MemoryCache<String, Int>().setValue(1, forKey: "k", expiry: .seconds(.nan)) }
        },
    ]

    static let calls: [Case] = [
        Case(name: "Hoard.store with .seconds(inf)", field: "expiry", value: ".seconds(inf)") { folder in
            await caught {
                try await Hoard(configuration: .init(name: "bad", directory: folder))
                    .store("v", forKey: "k", expiry: .seconds(.infinity))
            }
        },
        Case(name: "Hoard.value with .olderThan(nan)", field: "expirationPolicy", value: ".olderThan(nan)") { folder in
            await caught {
                _ = try await Hoard(configuration: .init(name: "bad", directory: folder))
                    .value(forKey: "k", expirationPolicy: .olderThan(.nan)) { "fetched" }
            }
        },
    ]

    static let images: [Case] = [
        Case(name: "Image.pngData compressionLevel 10", field: "compressionLevel", value: "10") { _ in
            await caught { _ = try pixel().pngData(compressionLevel: 10) }
        },
        Case(name: "Image.pngData compressionLevel -1", field: "compressionLevel", value: "-1") { _ in
            await caught { _ = try pixel().pngData(compressionLevel: -1) }
        },
        Case(name: "Image.jpegData quality 0", field: "quality", value: "0") { _ in
            await caught { _ = try pixel().jpegData(quality: 0) }
        },
        Case(name: "Image.jpegData quality 101", field: "quality", value: "101") { _ in
            await caught { _ = try pixel().jpegData(quality: 101) }
        },
        Case(name: "Image.webpData quality 0", field: "quality", value: "0") { _ in
            await caught { _ = try pixel().webpData(quality: 0) }
        },
        Case(name: "Image.webpData quality 101 lossless", field: "quality", value: "101") { _ in
            await caught { _ = try pixel().webpData(quality: 101, lossless: true) }
        },
        Case(name: "Image.resized(toFit: 0)", field: "box", value: "0") { _ in
            await caught { _ = try pixel().resized(toFit: 0) }
        },
        Case(name: "Image.resized(toFit: -1)", field: "box", value: "-1") { _ in
            await caught { _ = try pixel().resized(toFit: -1) }
        },
        Case(name: "Image.resized(width: 0, height: 5)", field: "width", value: "0") { _ in
            await caught { _ = try pixel().resized(width: 0, height: 5) }
        },
        Case(name: "Image.thumbnail(fittingIn: 0)", field: "box", value: "0") { _ in
            await caught { _ = try Image.thumbnail(from: try pixel().pngData(), fittingIn: 0) }
        },
        Case(name: "ThumbnailKey size 0", field: "size", value: "0") { _ in
            await caught { _ = try ThumbnailKey(source: "https://example.com/a.jpg", size: 0) }
        },
        Case(name: "ThumbnailKey quality 101", field: "quality", value: "101") { _ in
            await caught { _ = try ThumbnailKey(source: "https://example.com/a.jpg", size: 64, quality: 101) }
        },
    ]

    // MARK: - Helpers

    private static func hoard(
        _ field: String, _ value: String, _ change: @escaping @Sendable (inout Hoard.Configuration) -> Void
    ) -> Case {
        Case(name: "Hoard.Configuration.\(field) = \(value)", field: "Hoard.Configuration.\(field)", value: value) {
            folder in
            var configuration = Hoard.Configuration(name: "bad", directory: folder)
            change(&configuration)
            return await caught { _ = try Hoard(configuration: configuration) }
        }
    }

    private static func disk(
        _ field: String, _ value: String, _ change: @escaping @Sendable (inout DiskCache.Configuration) -> Void
    ) -> Case {
        Case(name: "DiskCache.Configuration.\(field) = \(value)", field: "DiskCache.Configuration.\(field)", value: value)
        { folder in
            var configuration = DiskCache.Configuration()
            change(&configuration)
            return await caught { _ = try DiskCache(directory: folder, configuration: configuration) }
        }
    }

    private static func pixel() throws -> Image {
        try Image(width: 1, height: 1, format: .rgb8, pixels: [0, 0, 0])
    }

    private static func caught(_ body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }
}
