import Foundation
import Hoard

/// Runs the pipeline over every input: cache lookup, download or read, decode with decode-time
/// downscaling, resize, encode, store, write.
struct ThumbnailBatch: Sendable {
    let hoard: Hoard
    let downloader: Downloader
    let settings: ThumbnailSettings
    let downloadConcurrency: Int
    let decodeConcurrency: Int

    func run(_ inputs: [InputSource.Expanded], progress: Progress?) async
        -> BatchSummary
    {
        let start = DispatchTime.now().uptimeNanoseconds
        let decodeLimiter = AsyncLimiter(limit: decodeConcurrency)
        var results = [InputResult?](repeating: nil, count: inputs.count)
        await withTaskGroup(of: (Int, InputResult).self) { group in
            var next = 0
            func addNext() {
                guard next < inputs.count else { return }
                let index = next
                let (input, source) = inputs[index]
                group.addTask { (index, await process(input: input, source: source, decodeLimiter: decodeLimiter)) }
                next += 1
            }
            for _ in 0..<min(downloadConcurrency, inputs.count) { addNext() }
            var done = 0
            while let (index, result) = await group.next() {
                results[index] = result
                done += 1
                progress?.update(done: done, total: inputs.count, elapsed: Self.seconds(since: start))
                addNext()
            }
        }
        progress?.finish()
        return BatchSummary(results: results.compactMap { $0 }, elapsed: Self.seconds(since: start))
    }

    private func process(input: String, source: Result<InputSource, InputError>, decodeLimiter: AsyncLimiter) async
        -> InputResult
    {
        var result = InputResult(input: input)
        do {
            let source = try source.get()
            let identifier = try source.identifier()
            let key = try settings.thumbnailKey(for: source, identifier: identifier)
            let keyString = key.key
            // A warm run decodes nothing: the stored JPEG or PNG is written out as it is.
            if let cached = try await hoard.retrieveEncoded(Image.self, forKey: keyString) {
                result.output = try write(
                    cached, name: source.outputName(identifier: identifier, extension: Self.fileExtension(of: cached)))
                result.status = .fromCache
                return result
            }
            let (original, downloaded) = try await originalBytes(of: source, identifier: identifier)
            result.bytesDownloaded = downloaded
            let data = try await decodeLimiter.run { try key.encoded(key.thumbnail(from: original)) }
            // Only a whole, decodable original and a finished thumbnail are ever stored.
            if downloaded > 0, case .remote = source {
                try await hoard.store(original, forKey: ThumbnailSettings.originalKey(identifier: identifier))
            }
            // Stored as an Image (the bytes as encoded), so code reads it with retrieve(Image.self, ...).
            try await hoard.storeEncoded(data, as: Image.self, forKey: keyString)
            result.output = try write(
                data, name: source.outputName(identifier: identifier, extension: Self.fileExtension(of: data)))
            result.status = .made
        } catch {
            // An error may quote the URL, or the password alone: never print either.
            let secrets = (try? source.get().secrets) ?? []
            result.status = .failed(URLCredentials.redacting(Self.reason(error), secrets: secrets))
        }
        return result
    }

    /// The original's bytes and how many were downloaded for them (0 when cached or local).
    ///
    /// A local original must be a regular file no larger than `--max-download-bytes`, the limit
    /// for downloads (see ``LocalFile/read(_:maximumByteCount:)``).
    private func originalBytes(of source: InputSource, identifier: String) async throws -> (Data, Int) {
        switch source {
        case .file(let path):
            do throws(LocalFile.ReadError) {
                return (try LocalFile.read(path, maximumByteCount: downloader.maximumBytes), 0)
            } catch {
                let option = if case .tooLarge = error.reason { " (--max-download-bytes)" } else { "" }
                throw RunFailure("cannot read \(path): \(error)\(option)")
            }
        case .remote(let url):
            let originalKey = ThumbnailSettings.originalKey(identifier: identifier)
            if let cached = try await hoard.retrieve(Data.self, forKey: originalKey) {
                return (cached, 0)
            }
            let data = try await downloader.download(url)
            return (data, data.count)
        }
    }

    /// Writes a thumbnail into the output folder (see ``OutputFile``).
    private func write(_ data: Data, name: String) throws -> String {
        // Joined as strings: URL work per output was a tenth of a warm run.
        let folder = settings.outputPath
        let destination = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        _ = try OutputFile.write(data, to: destination)
        return destination
    }

    /// The file extension of a thumbnail's format, sniffed from its bytes (a thumbnail stored from
    /// code may be in either format, whatever `--format` says).
    private static func fileExtension(of data: Data) -> String {
        ImageFormat(sniffing: data)?.fileExtension ?? "bin"
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as ImageError: "cannot make a thumbnail: \(error)"
        default: String(describing: error)
        }
    }

    private static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
