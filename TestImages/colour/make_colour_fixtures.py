#!/usr/bin/env python3
"""Colour-management fixtures (ICC profiles, tagged images) and their sRGB reference pixels.

Everything in this folder except README.md, srgb-source.LICENSE and the two scripts is written here:

- `srgb-source.png`: the untouched sRGB source, 160x120 (kodim03, from the shared corpus: see
  srgb-source.LICENSE). Made only with `--from-corpus`; a plain run starts from the committed file.
- ICC profiles, built with Little CMS 2 by make_profiles.c (compiled here with `cc ... -llcms2`);
  the header's creation date is then fixed to 2025-01-01 and the MD5 profile ID set, so the bytes
  do not depend on the day they were made.
- Tagged images: the source converted into each space with Little CMS (Pillow's ImageCms;
  relative colorimetric, no black-point compensation, cmsFLAGS_NOOPTIMIZE), then written with the
  profile (or CICP / gAMA+cHRM) that describes that space.
- `<file>.srgb.png` for each non-hostile tagged file: the file decoded (Pillow for JPEG, PNG and
  WebP; `avifdec -d 8 --ignore-icc` for AVIF), then converted to sRGB (Little CMS's built-in sRGB
  profile) through the profile the file carries (read back from the file) or, for CICP and
  gAMA/cHRM, through the profile a browser builds from those numbers (saved here too). 8-bit RGB,
  no alpha, no colour chunk; gray files give RGB with R = G = B.
- Hostile files (no reference): damaged profiles and ICC chunk sequences.

Usage: python3 make_colour_fixtures.py [--from-corpus]   (from anywhere)
Needs: Pillow with LittleCMS 2, WebP and AVIF; avifenc + avifdec (libavif-bin); cc + liblcms2-dev.
--from-corpus remakes srgb-source.png from $HOARD_CORPUS (default /work/shared/corpus) first.
Prints the max / mean absolute difference of every reference against srgb-source.png.
"""
import hashlib
import io
import os
import struct
import subprocess
import sys
import tempfile
import zlib

from PIL import Image, ImageChops, ImageCms, ImageStat

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.environ.get("HOARD_CORPUS", "/work/shared/corpus")
CORPUS_SOURCE = "avif/libavif/io/kodim03_yuv420_8bpc.avif"
SIZE = (160, 120)
CROP = (60, 0, 743, 512)  # a 4:3 window of the 768x512 photo, keeping the five hats

INTENT = ImageCms.Intent.RELATIVE_COLORIMETRIC
FLAGS = ImageCms.Flags.NOOPTIMIZE
SRGB = ImageCms.createProfile("sRGB")  # Little CMS's built-in sRGB (cmsCreate_sRGBProfile)
JPEG_OPTIONS = dict(quality=95, subsampling=0)  # 4:4:4, so no chroma upsampling enters the references

# The PNG with no iCCP/sRGB but gAMA + cHRM (values as stored: x 100000); gama-chrm.icc matches them.
GAMA = 45455
CHRM = (31270, 32900, 64000, 33000, 21000, 71000, 15000, 6000)

# AVIF with CICP only: (file, profile built from the CICP, primaries/transfer/matrix given to avifenc)
NCLX = [("p3-nclx.avif", "p3.icc", "12/13/6"), ("bt2020-nclx.avif", "bt2020-bt709.icc", "9/1/9")]


def path(name):
    return os.path.join(HERE, name)


def run(*command):
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")


# ---------------------------------------------------------------- profiles

def normalise_profile(data):
    """Fixed creation date (2025-01-01 00:00:00) and the MD5 profile ID of ICC.1:2010 7.2.18."""
    data = bytearray(data)
    data[24:36] = struct.pack(">6H", 2025, 1, 1, 0, 0, 0)
    hashed = bytearray(data)
    hashed[44:48] = bytes(4)  # profile flags
    hashed[64:68] = bytes(4)  # rendering intent
    hashed[84:100] = bytes(16)  # profile ID
    data[84:100] = hashlib.md5(hashed).digest()
    return bytes(data)


def make_profiles(work):
    tool = os.path.join(work, "make_profiles")
    run(os.environ.get("CC", "cc"), "-O2", "-o", tool, path("make_profiles.c"), "-llcms2", "-lm")
    out = os.path.join(work, "profiles")
    os.makedirs(out)
    run(tool, out)
    profiles = {}
    for name in sorted(os.listdir(out)):
        data = normalise_profile(open(os.path.join(out, name), "rb").read())
        open(path(name), "wb").write(data)
        profiles[name] = data
    return profiles


def cms(data):
    return ImageCms.ImageCmsProfile(io.BytesIO(data))


def convert(image, source, target, mode):
    """source/target: profile bytes, or None for sRGB."""
    transform = ImageCms.buildTransform(SRGB if source is None else cms(source),
                                        SRGB if target is None else cms(target),
                                        image.mode, mode, renderingIntent=INTENT, flags=FLAGS)
    converted = ImageCms.applyTransform(image, transform)
    converted.info = {}  # ImageCms tags the result with the output profile; the writers below choose
    return converted


# ---------------------------------------------------------------- containers

def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_chunks(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, []
    while position < len(data):
        length, = struct.unpack(">I", data[position:position + 4])
        chunks.append((data[position + 4:position + 8], data[position + 8:position + 8 + length]))
        position += 12 + length
    return chunks


def png_bytes(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True, **options)
    return buffer.getvalue()


def png_with_chunks(data, extra):
    """Inserts the (kind, body) chunks in `extra` right after IHDR."""
    chunks = png_chunks(data)
    assert chunks[0][0] == b"IHDR"
    chunks = chunks[:1] + extra + chunks[1:]
    return data[:8] + b"".join(png_chunk(kind, body) for kind, body in chunks)


def jpeg_segments(data):
    """(marker, payload) of every segment before the first SOS, and the bytes from SOS on."""
    assert data[:2] == b"\xff\xd8"
    position, segments = 2, []
    while True:
        assert data[position] == 0xFF
        marker = data[position + 1]
        if marker == 0xDA:
            return segments, data[position:]
        length, = struct.unpack(">H", data[position + 2:position + 4])
        segments.append((marker, data[position + 4:position + 2 + length]))
        position += 2 + length


def jpeg_join(segments, rest):
    return b"\xff\xd8" + b"".join(b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload
                                  for marker, payload in segments) + rest


def is_icc_marker(segment):
    return segment[0] == 0xE2 and segment[1].startswith(b"ICC_PROFILE\0")


def jpeg_with_icc_markers(data, markers):
    """Replaces the file's APP2 ICC_PROFILE markers by `markers`: (sequence number, count, bytes),
    written in the order given, right after the APP0/APP1 segments."""
    segments, rest = jpeg_segments(data)
    segments = [segment for segment in segments if not is_icc_marker(segment)]
    at = 0
    while at < len(segments) and segments[at][0] in (0xE0, 0xE1):
        at += 1
    icc = [(0xE2, b"ICC_PROFILE\0" + bytes([number, count]) + chunk) for number, count, chunk in markers]
    return jpeg_join(segments[:at] + icc + segments[at:], rest)


def jpeg_bytes(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", **JPEG_OPTIONS, **options)
    return buffer.getvalue()


def icc_marker_summary(data):
    segments, _ = jpeg_segments(data)
    return [(payload[12], payload[13], len(payload) - 14) for marker, payload in segments
            if is_icc_marker((marker, payload))]


def adobe_marker(data):
    """(version, flags0, flags1, transform) of the APP14 Adobe segment, or None."""
    for marker, payload in jpeg_segments(data)[0]:
        if marker == 0xEE and payload.startswith(b"Adobe"):
            return struct.unpack(">HHHB", payload[5:12])
    return None


def avif_colr(data):
    """The colr boxes of an AVIF file: ('prof', size) or ('nclx', P, T, M, full range)."""
    boxes, position = [], 0
    while True:
        position = data.find(b"colr", position + 1)
        if position < 4:
            return boxes
        size, = struct.unpack(">I", data[position - 4:position])
        kind = data[position + 4:position + 8]
        if kind == b"nclx":
            p, t, m = struct.unpack(">HHH", data[position + 8:position + 14])
            boxes.append(("nclx", p, t, m, data[position + 14] >> 7))
        elif kind in (b"prof", b"rICC"):
            boxes.append((kind.decode(), size - 16))


# ---------------------------------------------------------------- source

def make_source(work):
    source = os.path.join(CORPUS, CORPUS_SOURCE)
    decoded = os.path.join(work, "source.png")
    run("avifdec", "-j", "1", "-d", "8", "--ignore-icc", source, decoded)  # nclx 1/13/6: sRGB
    image = Image.open(decoded).convert("RGB").crop(CROP).resize(SIZE, Image.Resampling.LANCZOS)
    image.save(path("srgb-source.png"), optimize=True)


# ---------------------------------------------------------------- fixtures

def write(name, data):
    open(path(name), "wb").write(data)


def make_fixtures(profiles, source, work):
    for space in ("prophoto", "adobergb", "p3"):
        profile = profiles[space + ".icc"]
        pixels = convert(source, None, profile, "RGB")
        write(space + ".png", png_bytes(pixels, icc_profile=profile))
        write(space + ".jpg", jpeg_bytes(pixels, icc_profile=profile))
        if space != "p3":
            continue
        buffer = io.BytesIO()
        pixels.save(buffer, "WEBP", lossless=True, quality=100, method=6, icc_profile=profile, exact=True)
        write("p3.webp", buffer.getvalue())
        untagged = os.path.join(work, "p3-untagged.png")
        pixels.save(untagged)
        icc = os.path.join(work, "p3.icc")
        open(icc, "wb").write(profile)
        run("avifenc", "-j", "1", "-l", "-d", "8", "-y", "444", "--icc", icc, untagged, path("p3-icc.avif"))

    for name, profile, cicp in NCLX:
        untagged = os.path.join(work, name + ".png")
        convert(source, None, profiles[profile], "RGB").save(untagged)
        run("avifenc", "-j", "1", "-d", "8", "-y", "444", "-r", "full", "--min", "0", "--max", "0",
            "--cicp", cicp, untagged, path(name))

    gray = profiles["gray.icc"]
    pixels = convert(source, None, gray, "L")
    write("gray.png", png_bytes(pixels, icc_profile=gray))
    write("gray.jpg", jpeg_bytes(pixels, icc_profile=gray))

    pixels = convert(source, None, profiles["gama-chrm.icc"], "RGB")
    write("gama-chrm.png", png_with_chunks(png_bytes(pixels), [
        (b"gAMA", struct.pack(">I", GAMA)), (b"cHRM", struct.pack(">8I", *CHRM))]))

    cmyk = profiles["cmyk.icc"]
    write("cmyk.jpg", jpeg_bytes(convert(source, None, cmyk, "CMYK"), icc_profile=cmyk))

    # ICC profile over several APP2 markers (3 here: the profile is small, so the chunks are too)
    prophoto = profiles["prophoto.icc"]
    jpeg = open(path("prophoto.jpg"), "rb").read()
    third = -(-len(prophoto) // 3)
    chunks = [prophoto[i:i + third] for i in range(0, len(prophoto), third)]
    assert len(chunks) == 3
    write("prophoto-split.jpg", jpeg_with_icc_markers(jpeg, [(1, 3, chunks[0]), (2, 3, chunks[1]), (3, 3, chunks[2])]))
    write("split-out-of-order.jpg", jpeg_with_icc_markers(jpeg, [(2, 3, chunks[1]), (3, 3, chunks[2]), (1, 3, chunks[0])]))
    write("split-missing.jpg", jpeg_with_icc_markers(jpeg, [(1, 3, chunks[0]), (3, 3, chunks[2])]))

    # Hostile profiles, on a 32x24 copy of the sRGB source (a decoder that drops the profile shows it right)
    small = source.resize((32, 24), Image.Resampling.LANCZOS)
    write("hostile-truncated-profile.jpg", jpeg_with_icc_markers(
        jpeg_bytes(small), [(1, 1, prophoto[:len(prophoto) // 2])]))
    p3 = bytearray(profiles["p3.icc"])
    oversized = bytearray(p3)
    oversized[0:4] = struct.pack(">I", 0x80000000)  # header profile size: 2 GiB; the data is 744 bytes
    write("hostile-oversized-profile.png", png_bytes(small, icc_profile=bytes(oversized)))
    offsets = bytearray(p3)
    count, = struct.unpack(">I", offsets[128:132])
    for index in range(count):
        entry = 132 + 12 * index
        if index == 0:
            bad = 0xFFFFFFF0  # offset + size wraps around 32 bits
        else:
            bad = len(p3) + 4096 * index  # past the end
        offsets[entry + 4:entry + 8] = struct.pack(">I", bad)
    write("hostile-tag-offsets.png", png_bytes(small, icc_profile=bytes(offsets)))


# ---------------------------------------------------------------- references

def decode_avif(name, work):
    decoded = os.path.join(work, name + ".decoded.png")
    run("avifdec", "-j", "1", "-d", "8", "--ignore-icc", path(name), decoded)
    return Image.open(decoded).convert("RGB")


def embedded_profile(name):
    with Image.open(path(name)) as image:
        return image.info.get("icc_profile")


def cmyk_raw_check(name, decoded):
    """Pillow hands libjpeg-turbo's CMYK samples over inverted ("CMYK;I", the Adobe convention);
    decodes the raw samples once more to confirm that stored = 255 - ink."""
    with Image.open(path(name)) as raw:
        raw.tile = [tile._replace(args=("CMYK", "")) for tile in raw.tile]
        raw.load()
        inverted = ImageChops.invert(raw)
    assert ImageChops.difference(inverted, decoded).getbbox() is None, "CMYK polarity"


def make_references(profiles, work):
    references = {}

    def reference(name, image, profile):
        image = convert(image, profile, None, "RGB")
        assert image.mode == "RGB"
        image.save(path(name + ".srgb.png"), optimize=True)
        references[name] = image

    for name, profile in [("prophoto.jpg", "prophoto.icc"), ("prophoto.png", "prophoto.icc"),
                          ("prophoto-split.jpg", "prophoto.icc"),
                          ("adobergb.jpg", "adobergb.icc"), ("adobergb.png", "adobergb.icc"),
                          ("p3.jpg", "p3.icc"), ("p3.png", "p3.icc"), ("p3.webp", "p3.icc"),
                          ("gray.jpg", "gray.icc"), ("gray.png", "gray.icc"), ("cmyk.jpg", "cmyk.icc")]:
        assert embedded_profile(name) == profiles[profile], name
        image = Image.open(path(name))
        image.load()
        if image.mode == "CMYK":
            cmyk_raw_check(name, image)
        reference(name, image, profiles[profile])

    assert embedded_profile("p3-icc.avif") == profiles["p3.icc"]
    reference("p3-icc.avif", decode_avif("p3-icc.avif", work), profiles["p3.icc"])
    for name, profile, _ in NCLX:
        assert embedded_profile(name) is None
        reference(name, decode_avif(name, work), profiles[profile])

    image = Image.open(path("gama-chrm.png"))
    assert "icc_profile" not in image.info and "srgb" not in image.info and image.info["gamma"] == GAMA / 100000
    reference("gama-chrm.png", image.convert("RGB"), profiles["gama-chrm.icc"])
    return references


# ---------------------------------------------------------------- report

def difference(a, b):
    diff = ImageChops.difference(a, b)
    return max(high for _, high in diff.getextrema()), sum(ImageStat.Stat(diff).mean) / len(diff.getbands())


def gray_truth(source):
    """The source's D50 luminance, sRGB-encoded: what a gray profile round trip must give, computed
    here without Little CMS (Y row of sRGB's Bradford-adapted D50 matrix)."""
    def linear(v):
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    def encode(y):
        v = 12.92 * y if y <= 0.0031308 else 1.055 * y ** (1 / 2.4) - 0.055
        return max(0, min(255, round(v * 255)))

    table = [linear(v) for v in range(256)]
    rgb = source.tobytes()
    gray = bytes(encode(0.2225045 * table[rgb[i]] + 0.7168786 * table[rgb[i + 1]] + 0.0606169 * table[rgb[i + 2]])
                 for i in range(0, len(rgb), 3))
    return Image.frombytes("L", source.size, gray).convert("RGB")


def report(source, references):
    truth = gray_truth(source)
    print(f"{'reference':32} {'vs':16} {'max':>4} {'mean':>6}")
    for name, image in references.items():
        against, label = (truth, "gray of source") if name.startswith("gray") else (source, "srgb-source")
        high, mean = difference(image, against)
        print(f"{name + '.srgb.png':32} {label:16} {high:4d} {mean:6.2f}")
        if name.startswith("gray"):
            r, g, b = image.split()
            assert ImageChops.difference(r, g).getbbox() is None and ImageChops.difference(g, b).getbbox() is None
    print()
    for name in ("p3-icc.avif", "p3-nclx.avif", "bt2020-nclx.avif"):
        print(name, "colr:", avif_colr(open(path(name), "rb").read()))
    print("cmyk.jpg APP14 Adobe (version, flags0, flags1, transform):", adobe_marker(open(path("cmyk.jpg"), "rb").read()))
    for name in ("cmyk.jpg", "prophoto.jpg", "prophoto-split.jpg", "split-out-of-order.jpg", "split-missing.jpg",
                 "hostile-truncated-profile.jpg"):
        print(name, "ICC markers (seq, count, bytes):", icc_marker_summary(open(path(name), "rb").read()))


def main():
    arguments = sys.argv[1:]
    if arguments not in ([], ["--from-corpus"]):
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as work:
        if arguments:
            make_source(work)
        source = Image.open(path("srgb-source.png")).convert("RGB")
        assert source.size == SIZE
        profiles = make_profiles(work)
        make_fixtures(profiles, source, work)
        references = make_references(profiles, work)
        report(source, references)


if __name__ == "__main__":
    main()
