// `InvalidValueError` lives in HoardSystem, the lowest module, so that the Redis protocol's parser
// throws the same type; the cache core re-exports it to its users.
@_exported import struct HoardSystem.InvalidValueError
