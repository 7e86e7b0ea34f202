import Foundation
import Hoard
import HoardOriginals
import HoardServer
import HoardSystem

/// Runs the pipeline over every input: cache lookup, download or read, decode with decode-time
/// downscaling, resize, encode, store, write.
///
/// Both the thumbnail and the downloaded original go through the cache's fetching API
/// (``Hoard/encodedEntry(_:forKey:expiry:fetch:)``), so each is made or downloaded once per key:
/// inputs of one run share it, and so do machines sharing a remote tier. A URL's original is
/// checked first, as HTTP caching says (see ``OriginalCache``): a thumbnail made from an original
/// that has since changed is made again.
struct ThumbnailBatch: Sendable {
    let hoard: Hoard
    /// Where downloaded originals are kept.
    let originalStore: OriginalStore
    let downloader: Downloader
    let settings: ThumbnailSettings
    let downloadConcurrency: Int
    let decodeConcurrency: Int
    /// When cached originals are revalidated (`--revalidate`).
    let revalidation: RevalidationPolicy
    /// The most pixels a decode may allocate (`--max-pixels`).
    let maximumPixelCount: Int
    /// Whether results carry each thumbnail's width and height (`--json`), read from its header:
    /// a warm run otherwise opens no decoder.
    var reportsSizes = false
    /// The output names this run has written, and for which input.
    let claims = OutputClaims()

    private var originals: OriginalCache {
        OriginalCache(hoard: hoard, store: originalStore, downloader: downloader, policy: revalidation)
    }

    func run(_ inputs: [InputSource.Expanded], progress: Progress?) async
        -> BatchSummary
    {
        let start = DispatchTime.now().uptimeNanoseconds
        let decodeQueue = WorkQueue(concurrency: decodeConcurrency)
        var results = [InputResult?](repeating: nil, count: inputs.count)
        await withTaskGroup(of: (Int, InputResult).self) { group in
            var next = 0
            func addNext() {
                guard next < inputs.count else { return }
                let index = next
                let (input, source, folderPath) = inputs[index]
                group.addTask {
                    (index, await process(input: input, source: source, folderPath: folderPath, decodeQueue: decodeQueue))
                }
                next += 1
            }
            for _ in 0..<min(downloadConcurrency, inputs.count) { addNext() }
            var done = 0, failed = 0
            while let (index, result) = await group.next() {
                results[index] = result
                done += 1
                if case .failed = result.status { failed += 1 }
                progress?.update(done: done, failed: failed, total: inputs.count, elapsed: Self.seconds(since: start))
                addNext()
            }
        }
        progress?.finish()
        return BatchSummary(results: results.compactMap { $0 }, elapsed: Self.seconds(since: start))
    }

    private func process(
        input: String, source: Result<InputSource, InputError>, folderPath: String?, decodeQueue: WorkQueue
    ) async -> InputResult {
        var result = InputResult(input: input)
        let work = InputWork()
        do {
            let source = try source.get()
            let identifier = try source.identifier()
            let variant = try settings.variant(of: try settings.thumbnailKey(for: source, identifier: identifier))
            let original = try await checkOriginal(of: source, identifier: identifier, key: variant.cacheKey, work: work)
            // A warm run decodes nothing: the stored JPEG or PNG is written out as it is. A miss runs
            // the fetch once per key, for every input of this run that needs it and, with a shared
            // tier, for every machine: the others wait for its thumbnail. Stored as an Image (the
            // bytes as encoded), so code reads it with retrieve(Image.self, ...).
            let thumbnail: (value: Data, source: CacheEntry<Data>.Source)
            do {
                let entry = try await hoard.encodedEntry(Image.self, forKey: variant.cacheKey) { [self] in
                    try await makeThumbnail(
                        variant, of: source, identifier: identifier, original: original, decodeQueue: decodeQueue,
                        work: work)
                }
                // A cache that cannot be written fails the input: the warm rerun it promises would not come.
                if let storeError = entry.storeError { throw RunFailure("\(storeError)") }
                thumbnail = (entry.value, entry.source)
            } catch let uncached as UncachedThumbnail {
                thumbnail = (uncached.bytes, .fetch)
            }
            let format = ImageFormat(sniffing: thumbnail.value)
            let size = reportsSizes || settings.naming.needsSize ? Image.uprightSize(of: thumbnail.value) : nil
            let fields = try source.outputFields(
                identifier: identifier, folderPath: folderPath, box: settings.spelledBox,
                size: size.map { ($0.width, $0.height) }, extension: format?.fileExtension ?? "bin")
            guard let name = settings.naming.name(fields) else {
                throw RunFailure("--name \(settings.naming.template) makes no file name for this thumbnail")
            }
            try claims.claim(name, for: input)
            result.output = try write(thumbnail.value, name: name)
            result.thumbnail = (variant.cacheKey, size?.width, size?.height, format?.description, thumbnail.value.count)
            result.status = thumbnail.source == .fetch ? .made : .fromCache
            if Self.isShared(thumbnail.source) { result.remoteHits += 1 }
        } catch {
            // An error may quote the URL, or the password alone: never print either.
            let secrets = (try? source.get().secrets) ?? []
            result.status = .failed(URLCredentials.redacting(Self.reason(error), secrets: secrets))
            // An output an earlier run wrote is not this input's thumbnail any more.
            if let source = try? source.get() { result.removedOutputs = removeOutputs(of: source, input: input, folderPath: folderPath) }
        }
        let done = work.counts
        result.warnings = work.warnings
        result.bytesDownloaded = done.bytesDownloaded
        result.remoteHits += done.sharedOriginals
        result.revalidations = done.revalidations
        result.notModified = done.notModified
        result.changedOriginals = done.changedOriginals
        return result
    }

    /// Checks a URL's cached original (see ``OriginalCache/check(_:identifier:thumbnailKey:work:)``)
    /// and removes its thumbnail when that was made from an original that has changed since.
    ///
    /// - Returns: The original when the check downloaded it; `nil` for a local file.
    private func checkOriginal(of source: InputSource, identifier: String, key: String, work: InputWork)
        async throws -> OriginalCache.Original?
    {
        guard case .remote(let url) = source else { return nil }
        let check = try await originals.check(url, identifier: identifier, thumbnailKey: key, work: work)
        if !check.thumbnailIsCurrent { try await hoard.remove(forKey: key) }
        return check.original
    }

    /// The thumbnail of `source`: its original downloaded (or taken from the cache), or read,
    /// then decoded with decode-time downscaling, resized and encoded.
    ///
    /// A downloaded original is stored too (unless its response said `no-store`), so that another
    /// `--size` downloads nothing; it is fetched once per URL across machines as the thumbnail is.
    /// Only a whole, decodable original is ever stored: its thumbnail is made before the
    /// download's fetch returns. The thumbnail of a URL is recorded with the digest of the original
    /// it was made from (see ``OriginalCache``). A local original is not stored, and must be a
    /// regular file no larger than `--max-download-bytes`, the limit for downloads (see
    /// ``LocalFile/read(_:maximumByteCount:)``).
    ///
    /// - Parameter original: A URL's original when checking it has just downloaded it.
    private func makeThumbnail(
        _ variant: Variant, of source: InputSource, identifier: String, original: OriginalCache.Original?,
        decodeQueue: WorkQueue, work: InputWork
    ) async throws -> Data {
        switch source {
        case .file(let path):
            let original: Data
            do throws(LocalFile.ReadError) {
                original = try LocalFile.read(path, maximumByteCount: downloader.maximumBytes)
            } catch {
                let option = if case .tooLarge = error.reason { " (--max-download-bytes)" } else { "" }
                throw RunFailure("cannot read \(path): \(error)\(option)")
            }
            let thumbnail = try await decodeQueue.run { try encodedThumbnail(variant, from: original, work: work) }
            if work.originalIsTruncated { throw UncachedThumbnail(bytes: thumbnail) }
            return thumbnail
        case .remote(let url):
            let make: @Sendable (Data) async throws -> Data = { [self] data in
                try await decodeQueue.run { try encodedThumbnail(variant, from: data, work: work) }
            }
            let used =
                if let original { original } else {
                    try await originals.original(url, identifier: identifier, work: work, makeThumbnail: make)
                }
            let thumbnail = if let made = work.thumbnail { made } else { try await make(used.bytes) }
            if work.originalIsTruncated { throw UncachedThumbnail(bytes: thumbnail) }
            try await originals.recordThumbnail(variant.cacheKey, madeFrom: used)
            return thumbnail
        }
    }

    /// The thumbnail's bytes, made from `original`; the decoder's warnings go to `work`.
    private func encodedThumbnail(_ variant: Variant, from original: Data, work: InputWork) throws -> Data {
        let (image, warnings) = try variant.rendering(from: original, maximumPixels: maximumPixelCount)
        work.addWarnings(warnings)
        return try variant.thumbnailKey.encoded(image)
    }

    /// Removes the outputs an earlier run wrote for `source`, in any format: when its thumbnail
    /// cannot be made, they would pass for current ones. Only with names of its own (a `--name`
    /// with `{hash}`), and never a name another input of this run wrote.
    ///
    /// - Returns: The paths removed.
    private func removeOutputs(of source: InputSource, input: String, folderPath: String?) -> [String] {
        guard settings.naming.isPerInput, let identifier = try? source.identifier() else { return [] }
        return ImageFormat.allCases.compactMap { format -> String? in
            guard
                let fields = try? source.outputFields(
                    identifier: identifier, folderPath: folderPath, box: settings.spelledBox, size: nil,
                    extension: format.fileExtension),
                let name = settings.naming.name(fields), !claims.isClaimed(name, byOtherThan: input)
            else { return nil }
            let path = outputPath(name)
            return OutputFile.removeStale(at: path) ? path : nil
        }
    }

    /// Writes a thumbnail into the output folder (see ``OutputFile``).
    private func write(_ data: Data, name: String) throws -> String {
        let destination = outputPath(name)
        _ = try OutputFile.write(data, to: destination)
        return destination
    }

    /// The path of the output file `name`; joined as strings: URL work per output was a tenth of
    /// a warm run.
    private func outputPath(_ name: String) -> String {
        let folder = settings.outputPath
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// A thumbnail made from a damaged original, carried past the cache, which must not keep it.
    private struct UncachedThumbnail: Error {
        let bytes: Data
    }

    /// Whether a value came from a tier after the disk: the shared one.
    private static func isShared(_ source: CacheEntry<Data>.Source) -> Bool {
        source != .fetch && source != .disk && source != .memory
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as ImageError:
            if case .tooLarge = error { "cannot make a thumbnail: \(error) (--max-pixels)" } else { "cannot make a thumbnail: \(error)" }
        default: String(describing: error)
        }
    }

    private static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
