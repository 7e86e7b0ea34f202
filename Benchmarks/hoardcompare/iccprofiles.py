"""ICC profiles Pillow's ImageCms cannot create: matrix-shaper RGB profiles made by the system's Little
CMS (liblcms2.so.2) through ctypes: cmsCreateRGBProfile with a parametric tone curve, saved to bytes.

display_p3() is Display P3: the P3 primaries, the D65 white point and the sRGB transfer curve.
"""
import ctypes
import ctypes.util
import functools

D65 = (0.3127, 0.3290)
P3_PRIMARIES = ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060))
# Little CMS's parametric curve type 4: Y = (aX + b)^g for X >= d, else Y = cX; params [g, a, b, c, d].
SRGB_CURVE = (4, (2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045))
DESCRIPTION_TAG = 0x64657363  # 'desc'


class CIExyY(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("Y", ctypes.c_double)]


class CIExyYTriple(ctypes.Structure):
    _fields_ = [("Red", CIExyY), ("Green", CIExyY), ("Blue", CIExyY)]


@functools.lru_cache(maxsize=1)
def lcms():
    """liblcms2 with the prototypes used here; OSError naming the package when it is missing."""
    try:
        lib = ctypes.CDLL("liblcms2.so.2")
    except OSError:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("lcms2") or "liblcms2.so")
        except OSError as error:
            raise OSError(f"Little CMS is not installed (Debian: apt-get install liblcms2-2): {error}") from None
    p, u32 = ctypes.c_void_p, ctypes.c_uint32
    signatures = {
        "cmsBuildParametricToneCurve": (p, [p, ctypes.c_int32, ctypes.POINTER(ctypes.c_double)]),
        "cmsCreateRGBProfile": (p, [ctypes.POINTER(CIExyY), ctypes.POINTER(CIExyYTriple), p * 3]),
        "cmsSaveProfileToMem": (ctypes.c_int, [p, p, ctypes.POINTER(u32)]),
        "cmsMLUalloc": (p, [p, u32]),
        "cmsMLUsetASCII": (ctypes.c_int, [p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]),
        "cmsWriteTag": (ctypes.c_int, [p, u32, p]),
        "cmsMLUfree": (None, [p]),
        "cmsFreeToneCurve": (None, [p]),
        "cmsCloseProfile": (ctypes.c_int, [p]),
    }
    for function, (result, arguments) in signatures.items():
        getattr(lib, function).restype = result
        getattr(lib, function).argtypes = arguments
    return lib


def rgb_profile(white, primaries, curve, description):
    """The bytes of a matrix-shaper RGB ICC profile (version 4, Little CMS's default): WHITE (x, y),
    PRIMARIES ((x, y) of red, green, blue), CURVE (Little CMS parametric type, its parameters) for all
    three channels, and DESCRIPTION as its 'desc' tag."""
    lib = lcms()
    kind, parameters = curve
    curve_handle = lib.cmsBuildParametricToneCurve(None, kind, (ctypes.c_double * len(parameters))(*parameters))
    if not curve_handle:
        raise RuntimeError(f"cmsBuildParametricToneCurve({kind}, {parameters}) failed")
    profile = None
    try:
        triple = CIExyYTriple(*(CIExyY(x, y, 1.0) for x, y in primaries))
        profile = lib.cmsCreateRGBProfile(ctypes.byref(CIExyY(*white, 1.0)), ctypes.byref(triple),
                                          (ctypes.c_void_p * 3)(curve_handle, curve_handle, curve_handle))
        if not profile:
            raise RuntimeError("cmsCreateRGBProfile failed")
        mlu = lib.cmsMLUalloc(None, 1)
        try:
            if not (lib.cmsMLUsetASCII(mlu, b"en", b"US", description.encode("ascii"))
                    and lib.cmsWriteTag(profile, DESCRIPTION_TAG, mlu)):
                raise RuntimeError("could not write the profile's description")
        finally:
            lib.cmsMLUfree(mlu)
        size = ctypes.c_uint32(0)
        if not lib.cmsSaveProfileToMem(profile, None, ctypes.byref(size)):
            raise RuntimeError("cmsSaveProfileToMem could not size the profile")
        buffer = ctypes.create_string_buffer(size.value)
        if not lib.cmsSaveProfileToMem(profile, buffer, ctypes.byref(size)):
            raise RuntimeError("cmsSaveProfileToMem failed")
        return buffer.raw[:size.value]
    finally:
        if profile:
            lib.cmsCloseProfile(profile)
        lib.cmsFreeToneCurve(curve_handle)


@functools.lru_cache(maxsize=1)
def display_p3():
    """Display P3's ICC profile, as bytes (for Pillow: ImageCms.ImageCmsProfile(io.BytesIO(...)))."""
    return rgb_profile(D65, P3_PRIMARIES, SRGB_CURVE, "Display P3")
