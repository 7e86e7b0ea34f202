#!/usr/bin/env python3
"""Reference pixels for the WebP, GIF and AVIF core sets, made by each format's reference decoder.

Writes references/<format>/<file stem>.png, what Hoard's decoder must return:

- WebP: `dwebp` (libwebp's own tool; RGBA when the file has alpha, else RGB), stored pixels
  (EXIF orientation not applied). An animation's first frame comes from Pillow (its WebPAnimDecoder,
  on a transparent canvas), as dwebp does not decode animations. `<stem>.scaled-<W>x<H>.png` is
  `dwebp -resize W H` for the decode-time scaling cases in SCALED below.
- GIF: Pillow's first frame as RGBA, with Hoard's two rules applied here, not taken from Pillow:
  the canvas Pillow leaves uncovered by the first image is transparent black (Pillow paints the
  transparent index or palette entry 0 there), and a transparent pixel is transparent black
  (Pillow keeps its palette colour under alpha 0). RGBA when the first image has a transparent
  colour or does not cover the canvas, else RGB.
- AVIF: `avifdec --no-strict --ignore-icc -d 8` (libavif's own tool), then the transforms
  `avifdec --info` lists, applied here in the order HEIF gives them (clap, irot, imir); gray (L or
  LA) for 4:0:0 files (avifdec writes some as RGB, with R, G and B equal). A clean aperture that is not a window inside
  the image is ignored, as Hoard ignores it.

Usage: python3 make_decoder_references.py   (needs dwebp, avifdec, Pillow with WebP, numpy; from anywhere)
The core-set tests read the PNG files only and need none of these tools. The corpus-wide reference
test (CorpusReferenceTests, skipped without the tools) runs `make_decoder_references.py decode
FORMAT FOLDER FILE...` to make the same references for the shared corpus's valid files.
"""
import os
import re
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = os.path.dirname(HERE)

# WebP files decoded with a target size: (file, width, height) as Hoard's rule picks them (the
# largest power-of-two reduction whose longest side still covers the target).
SCALED = [("test.webp", 32, 32), ("small_31x13.webp", 8, 4), ("lossy_alpha4.webp", 50, 50),
          ("lossless4.webp", 128, 128)]


def output(folder, name):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    return os.path.join(HERE, folder, name)


def is_animated_webp(path):
    data = open(path, "rb").read(21)
    return data[12:16] == b"VP8X" and data[20] & 0x02


def webp_reference(path, destination):
    if is_animated_webp(path):
        image = Image.open(path)
        image.seek(0)
        image.convert("RGBA" if image.mode == "RGBA" else "RGB").save(destination)
    else:
        subprocess.run(["dwebp", path, "-o", destination], check=True, capture_output=True)


def webp_references():
    folder = os.path.join(IMAGES, "webp")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".webp"):
            webp_reference(os.path.join(folder, name), output("webp", name[:-5] + ".png"))
    for name, width, height in SCALED:
        subprocess.run(["dwebp", os.path.join(folder, name), "-resize", str(width), str(height), "-o",
                        output("webp", f"{name[:-5]}.scaled-{width}x{height}.png")], check=True, capture_output=True)


def gif_reference(path, destination):
    image = Image.open(path)
    transparent = "transparency" in image.info
    pixels = np.array(image.convert("RGBA"))
    x0, y0, x1, y1 = image.dispose_extent
    height, width = pixels.shape[:2]
    covered = np.zeros((height, width), dtype=bool)
    covered[y0:y1, x0:x1] = True
    pixels[~covered] = 0
    pixels[pixels[..., 3] == 0] = 0
    if transparent or not covered.all():
        Image.fromarray(pixels, "RGBA").save(destination)
    else:
        Image.fromarray(pixels[..., :3], "RGB").save(destination)


def gif_references():
    folder = os.path.join(IMAGES, "gif")
    skipped = {"pixel_index_beyond_palette.gif"}  # checked by its own test (black, and a warning)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".gif") and name not in skipped:
            gif_reference(os.path.join(folder, name), output("gif", name[:-4] + ".png"))


def avif_transforms(path):
    info = subprocess.run(["avifdec", "--no-strict", "--info", path], check=True, capture_output=True,
                          text=True).stdout
    gray = re.search(r"\* Format\s*: YUV400", info) is not None
    clap = re.search(r"clap \(Clean Aperture\): W: (-?\d+)/(\d+), H: (-?\d+)/(\d+), "
                     r"hOff: (-?\d+)/(\d+), vOff: (-?\d+)/(\d+)", info)
    irot = re.search(r"irot \(Rotation\)\s*: (\d)", info)
    imir = re.search(r"imir \(Mirror\)\s*: Mode (\d)", info)
    return gray, clap, int(irot.group(1)) if irot else 0, int(imir.group(1)) if imir else None


def crop_rect(clap, width, height):
    """ISO/IEC 14496-12 12.1.4.1: the window's size, and its centre offset from the image's."""
    n = [int(v) for v in clap.groups()]
    if 0 in (n[1], n[3], n[5], n[7]):
        return None
    window_w, window_h = Fraction(n[0], n[1]), Fraction(n[2], n[3])
    left = Fraction(n[4], n[5]) + (width - window_w) / 2
    top = Fraction(n[6], n[7]) + (height - window_h) / 2
    values = (left, top, window_w, window_h)
    if any(v.denominator != 1 for v in values) or window_w <= 0 or window_h <= 0:
        return None
    left, top, window_w, window_h = (int(v) for v in values)
    if left < 0 or top < 0 or left + window_w > width or top + window_h > height:
        return None
    return left, top, left + window_w, top + window_h


def avif_reference(path, destination):
    with tempfile.TemporaryDirectory() as work:
        decoded = os.path.join(work, "decoded.png")
        subprocess.run(["avifdec", "--no-strict", "--ignore-icc", "-d", "8", path, decoded], check=True,
                       capture_output=True)
        image = Image.open(decoded)
        image.load()
    gray, clap, turns, mirror = avif_transforms(path)
    if clap:
        rect = crop_rect(clap, image.width, image.height)
        if rect:
            image = image.crop(rect)
    image = image.rotate(90 * turns, expand=True)  # anticlockwise, as irot
    if mirror == 0:
        image = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    elif mirror == 1:
        image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    if gray and image.mode in ("RGB", "RGBA"):  # avifdec writes 8-bit 4:0:0 as gray already
        pixels = np.array(image)
        assert (pixels[..., 0] == pixels[..., 1]).all() and (pixels[..., 0] == pixels[..., 2]).all()
        image = image.convert("LA" if image.mode == "RGBA" else "L")
    image.save(destination)


def avif_references():
    folder = os.path.join(IMAGES, "avif")
    skipped = {"grid-32x32-tiles.avif"}  # refused under Hoard's default limit: a test of its own
    for name in sorted(os.listdir(folder)):
        if name.endswith((".avif", ".avifs")) and name not in skipped:
            avif_reference(os.path.join(folder, name), output("avif", name.rsplit(".", 1)[0] + ".png"))


MAKERS = {"webp": webp_reference, "gif": gif_reference, "avif": avif_reference}


def decode(format_name, folder, paths):
    """`decode FORMAT FOLDER FILE...`: the reference for each file as FOLDER/<its index>.png, for
    the corpus-wide test; a file the reference decoder refuses gets none (the reason on stderr)."""
    for index, path in enumerate(paths):
        try:
            MAKERS[format_name](path, os.path.join(folder, f"{index}.png"))
        except Exception as error:  # noqa: BLE001 - any refusal is reported, not fatal
            print(f"{path}: {error}", file=sys.stderr)


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "decode":
        decode(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    webp_references()
    gif_references()
    avif_references()
    for folder in ("webp", "gif", "avif"):
        print(folder, len(os.listdir(os.path.join(HERE, folder))), "references written")


if __name__ == "__main__":
    main()
