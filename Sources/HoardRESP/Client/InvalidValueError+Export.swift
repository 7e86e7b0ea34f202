// `InvalidValueError` lives in HoardSystem, the lowest module; the client re-exports it to its users.
@_exported import struct HoardSystem.InvalidValueError
