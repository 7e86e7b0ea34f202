// The `Hoard` library: the cache core and the image module, under one import.
@_exported import HoardCore
@_exported import HoardImage
