/// Where a record lives in the segment files: the segment's identifier and the record's offset
/// in it, as its index row says.
struct SegmentLocation: Sendable, Hashable {
    /// The segment, `segment-<id>` in the cache folder.
    var id: Int
    /// Where the record starts.
    var offset: Int
}
