#!/bin/bash
# Makes the AVIF test set with avifenc (libavif-bin 0.11.1, AV1 through libaom) from a 64 x 48 crop
# of exif-orientation/Landscape_1.jpg (MIT, see LICENSE) and a synthetic alpha ramp: every chroma
# subsampling at 8, 10 and 12 bits, monochrome, alpha, lossless, limited range, a 2 x 2 grid, a
# two-frame sequence, the irot/imir/clap transforms, and a grid of 1024 tiles written here. The
# references in ../references/avif/ come from avifdec (see ../references/make_decoder_references.py);
# the sources are not needed. Rerunning changes sequence-2-frames.avifs (its times): remake the
# references after.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import sys
from PIL import Image
work = sys.argv[1]
photo = Image.open("../exif-orientation/Landscape_1.jpg").convert("RGB")
rgb = photo.crop((700, 450, 764, 498))
rgb.save(f"{work}/rgb.png")
alpha = Image.new("L", rgb.size)
alpha.putdata([max(0, min(255, 255 * (x + y) // 80)) for y in range(48) for x in range(64)])
rgba = rgb.copy()
rgba.putalpha(alpha)
rgba.save(f"{work}/rgba.png")
rgb.transpose(Image.Transpose.FLIP_TOP_BOTTOM).save(f"{work}/rgb-flipped.png")
photo.crop((700, 450, 828, 578)).save(f"{work}/rgb-128.png")
PY
enc() { avifenc --speed 8 "$@" >/dev/null; }
enc -y 420 -d 8 "$work/rgb.png" yuv420-8bit.avif
enc -y 422 -d 8 "$work/rgb.png" yuv422-8bit.avif
enc -y 444 -d 8 "$work/rgb.png" yuv444-8bit.avif
enc -y 420 -d 10 "$work/rgb.png" yuv420-10bit.avif
enc -y 444 -d 10 "$work/rgb.png" yuv444-10bit.avif
enc -y 422 -d 12 "$work/rgb.png" yuv422-12bit.avif
enc -y 420 -d 12 "$work/rgb.png" yuv420-12bit.avif
enc -y 400 -d 8 "$work/rgb.png" yuv400-8bit.avif
enc -y 420 -d 8 -r limited "$work/rgb.png" yuv420-8bit-limited.avif
enc -y 420 -d 8 "$work/rgba.png" alpha-yuv420-8bit.avif
enc -y 444 -d 10 "$work/rgba.png" alpha-yuv444-10bit.avif
enc -y 400 -d 12 "$work/rgba.png" alpha-yuv400-12bit.avif
enc --lossless -d 8 "$work/rgb.png" lossless-8bit.avif
enc -y 420 --grid 2x2 "$work/rgb-128.png" grid-2x2.avif
enc -y 420 "$work/rgb.png" "$work/rgb-flipped.png" sequence-2-frames.avifs
enc -y 420 --irot 1 "$work/rgb.png" irot1.avif
enc -y 420 --irot 3 --imir 1 "$work/rgb.png" irot3-imir1.avif
enc -y 420 --imir 0 "$work/rgb.png" imir0.avif
enc -y 444 --crop 3,5,41,29 "$work/rgb.png" clap-yuv444-odd.avif
enc -y 420 --crop 4,6,40,28 --irot 1 --imir 0 "$work/rgb.png" clap-irot1-imir0.avif
# avifenc 0.11 refuses an odd clean aperture on 4:2:0 (libavif cannot express its crop in YUV);
# the standard allows it and Hoard crops RGB, so this one is an even crop rewritten to the odd
# window 41 x 29 at (3, 5): horizOff = 3 - (64 - 41) / 2 = -17/2, vertOff = 5 - (48 - 29) / 2 = -9/2.
enc -y 420 --crop 4,6,40,28 "$work/rgb.png" clap-yuv420-odd.avif
python3 - <<'PY'
import struct
data = bytearray(open("clap-yuv420-odd.avif", "rb").read())
at = data.index(b"clap") + 4
data[at:at + 32] = struct.pack(">IIIIiIiI", 41, 1, 29, 1, -17, 2, -9, 2)
open("clap-yuv420-odd.avif", "wb").write(bytes(data))
PY
# An invalid clean aperture (a window larger than the image): ignored with a warning.
enc -y 420 --crop 4,6,40,28 "$work/rgb.png" clap-invalid.avif
python3 - <<'PY'
import struct
data = bytearray(open("clap-invalid.avif", "rb").read())
at = data.index(b"clap") + 4
data[at:at + 32] = struct.pack(">IIIIiIiI", 1000, 1, 1000, 1, 0, 1, 0, 1)
open("clap-invalid.avif", "wb").write(bytes(data))
PY
# A grid of 32 x 32 tiles of 64 x 64 (the smallest MIAF allows), every tile the same AV1 payload:
# 2048 x 2048 pixels from 47 KB, which libavif 0.11 decodes with 1024 AV1 decoders (~400 MB; a
# 120 x 120 grid of 650 KB took 6 GB). Hoard refuses more tiles than its pixel limit allows.
python3 - "$work" <<'PY'
import sys
from PIL import Image
Image.open(f"{sys.argv[1]}/rgb-128.png").crop((0, 0, 64, 64)).save(f"{sys.argv[1]}/tile.png")
PY
enc -y 420 -d 8 "$work/tile.png" "$work/tile.avif"
python3 - "$work/tile.avif" <<'PY'
import struct, sys
source = open(sys.argv[1], "rb").read()

def boxes(data, start, end):
    while start < end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind, start, size
        start += size

def find(kind, start, end, full=False):
    for found, at, size in boxes(source, start, end):
        if found == kind:
            return at + 8 + (4 if full else 0), at + size
    raise SystemExit(f"no {kind} box")

meta = find(b"meta", 0, len(source), full=True)
iprp = find(b"iprp", *meta)
ipco = find(b"ipco", *iprp)
properties = {kind: source[at:at + size] for kind, at, size in boxes(source, *ipco)}
mdat = find(b"mdat", 0, len(source))
av1 = source[mdat[0]:mdat[1]]

def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload

def full(kind, version, payload):
    return box(kind, struct.pack(">I", version << 24) + payload)

rows = columns = 32
tiles = list(range(2, rows * columns + 2))
ftyp = box(b"ftyp", b"avif" + struct.pack(">I", 0) + b"avifmif1miaf")
infe = [full(b"infe", 2, struct.pack(">HH", 1, 0) + b"grid\0")]
infe += [full(b"infe", 2, struct.pack(">HH", tile, 0) + b"av01\0") for tile in tiles]
ipco = box(b"ipco", full(b"ispe", 0, struct.pack(">II", 64, 64))
           + full(b"ispe", 0, struct.pack(">II", 64 * columns, 64 * rows)) + properties[b"pixi"] + properties[b"av1C"])
ipma = [struct.pack(">HB", 1, 2) + bytes([2, 3])] + [struct.pack(">HB", tile, 3) + bytes([1, 3, 0x84]) for tile in tiles]
rest = (full(b"pitm", 0, struct.pack(">H", 1)), full(b"iinf", 0, struct.pack(">H", len(infe)) + b"".join(infe)),
        full(b"iref", 0, box(b"dimg", struct.pack(">HH", 1, len(tiles)) + b"".join(struct.pack(">H", t) for t in tiles))),
        box(b"iprp", ipco + full(b"ipma", 0, struct.pack(">I", len(ipma)) + b"".join(ipma))))
grid = struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, 64 * columns, 64 * rows)
hdlr = full(b"hdlr", 0, struct.pack(">I", 0) + b"pict" + bytes(13))

def meta_at(data_offset):
    items = [struct.pack(">HHHHII", 1, 0, 0, 1, data_offset, len(grid))]
    items += [struct.pack(">HHHHII", tile, 0, 0, 1, data_offset + len(grid), len(av1)) for tile in tiles]
    iloc = full(b"iloc", 1, bytes([0x44, 0]) + struct.pack(">H", len(items)) + b"".join(items))
    return full(b"meta", 0, hdlr + rest[0] + iloc + b"".join(rest[1:]))

meta = meta_at(0)
meta = meta_at(len(ftyp) + len(meta) + 8)
open("grid-32x32-tiles.avif", "wb").write(ftyp + meta + box(b"mdat", grid + av1))
PY
