import HoardSystem

extension FileSystem {
    /// Up to `count` bytes of the open file from `offset` (fewer at the end of the file).
    ///
    /// - Parameter path: The file's path, for the error only.
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)``.
    static func readBytes(_ descriptor: Int32, count: Int, at offset: Int, path: String) throws(DiskCacheError) -> [UInt8] {
        do {
            return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
                switch readFully(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: offset) {
                case .success(let readCount):
                    initializedCount = readCount
                case .failure(let error):
                    initializedCount = 0
                    throw DiskCacheError.readFailed(path: path, call: error.call, errno: error.errno)
                }
            }
        } catch let error as DiskCacheError {
            throw error
        } catch {
            throw .readFailed(path: path, call: "read", errno: 0)  // not reached: the body throws only the above
        }
    }
}
