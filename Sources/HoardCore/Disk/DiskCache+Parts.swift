extension DiskCache {
    /// The parts a cache is made of, wired together: what ``DiskCache/init(directory:configuration:)``
    /// builds over a folder it has prepared, and what a test builds to drive one part on its own.
    struct Parts: Sendable {
        let folder: CacheFolder
        let index: DiskIndex
        let segments: SegmentStore
        let files: FileStore
        let reconciler: Reconciler
        let maintenance: Maintenance
        let reader: RecordReader
        let writer: RecordWriter
        let marks: RecencyMarks

        /// Wires the parts of the cache in `rootPath` (a folder ``CacheFolder/prepare(_:logger:)``
        /// accepted); the index is not opened yet.
        ///
        /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder
        ///   cannot be opened.
        init(rootPath: String, configuration: Configuration) throws(DiskCacheError) {
            folder = CacheFolder(rootPath: rootPath)
            index = DiskIndex(
                rootPath: rootPath, sizeLimit: configuration.sizeLimit, writeLockTimeout: configuration.writeLockTimeout)
            segments = SegmentStore(rootPath: rootPath, index: index, configuration: configuration)
            files = try FileStore(folder: folder, index: index, configuration: configuration)
            reconciler = Reconciler(index: index, segments: segments, files: files, configuration: configuration)
            marks = RecencyMarks(index: index)
            maintenance = Maintenance(
                index: index, segments: segments, files: files, reconciler: reconciler, marks: marks,
                configuration: configuration)
            reader = RecordReader(index: index, segments: segments, files: files, marks: marks, configuration: configuration)
            writer = RecordWriter(
                index: index, segments: segments, files: files, inlineEntryLimit: configuration.inlineEntryLimit)
            // The index holds its repair weakly: the parts do not keep each other alive.
            index.setRepair { [weak reconciler] error, identity in
                try reconciler?.rebuild(after: error, openedAs: identity)
            }
        }
    }
}
