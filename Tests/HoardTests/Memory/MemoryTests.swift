import Testing

/// The memory cache's suites, nested so that `swift test --filter MemoryTests` runs them all.
@Suite("Memory")
enum MemoryTests {}
