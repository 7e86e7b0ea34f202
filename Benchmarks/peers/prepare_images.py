#!/usr/bin/env python3
"""Inputs of the image rows: the photo corpus every image benchmark of Benchmarks/compare reads.

Usage: prepare_images.py OUTDIR [--source DIR] [--other-formats]

Source: the 12 nature photos of Debian's mate-backgrounds package (1.3-4.9 MP, installed as
/usr/share/backgrounds/mate/nature/*.jpg by `apt-get install --no-install-recommends mate-backgrounds`;
Benchmarks/compare installs it), or the same files in --source DIR. Nothing is downloaded.

Writes, with Pillow, into OUTDIR:
  jpg/NAME.jpg           each photo re-encoded as baseline JPEG, quality 90, 4:2:0, no Huffman optimisation
  png/NAME.png           each photo as PNG at Pillow's defaults (zlib level 6)
  batch_jpg/NAME_I.jpg   the JPEGs 5 times each (60 files: the thumbnail batches)
  batch_png/NAME_1.png   the PNGs once each
  Aqua.ppm               jpg/Aqua.jpg decoded (tjbench's encode input)
  big_4000x3000.jpg      jpg/Aqua.jpg resized (Lanczos) to 4000x3000, saved as the JPEGs (the peak-memory row)
With --other-formats (needs cwebp), from the PNGs, for the thumbnail-inputs and webp-decode rows:
  progressive/NAME.jpg   progressive JPEG, quality 90, 4:2:0 (libjpeg's default progressive script)
  webp/NAME.webp         `cwebp -q 90` (lossy, as the JPEGs are quality 90)
  gif/NAME.gif           Pillow's GIF (adaptive 256-colour palette)
  batch_progressive/, batch_webp/, batch_gif/   each 5 times (NAME_I.EXT)
  webp/Aqua-lossless.webp  `cwebp -lossless`
Files already there are kept; every file is written under a temporary name, then renamed.
"""
import argparse
import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from PIL import Image

DEFAULT_SOURCE = Path("/usr/share/backgrounds/mate/nature")
PHOTOS = ["Aqua", "Blinds", "Dune", "FreshFlower", "Garden", "GreenMeadow", "LadyBird", "RainDrops", "Storm",
          "TwoWings", "Wood", "YellowFlower"]
BATCH_COPIES = 5
JPEG = {"quality": 90, "subsampling": 2}  # 4:2:0
BIG_SIZE = (4000, 3000)


@contextlib.contextmanager
def writing(path):
    """A temporary path beside PATH, renamed to PATH when the block succeeds."""
    temporary = path.with_name(f".{path.name}.partial")
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def save(image, path, image_format, **options):
    if not path.exists():
        with writing(path) as temporary:
            image.save(temporary, image_format, **options)


def copy(source, path):
    if not path.exists():
        with writing(path) as temporary:
            shutil.copyfile(source, temporary)


def cwebp(source, path, *options):
    if not path.exists():
        with writing(path) as temporary:
            subprocess.run(["cwebp", "-quiet", *options, str(source), "-o", str(temporary)], check=True)


def check_source(source, names):
    """Exits with what to install when a photo to re-encode is not in SOURCE."""
    missing = [f"{name}.jpg" for name in names if not (source / f"{name}.jpg").is_file()]
    if not missing:
        return
    if source == DEFAULT_SOURCE:
        sys.exit(f"prepare_images: the source photos are not in {source} (missing {', '.join(missing)}): install "
                 f"Debian's mate-backgrounds package (sudo apt-get install --no-install-recommends mate-backgrounds), "
                 f"or pass --source DIR holding the same files.")
    sys.exit(f"prepare_images: missing from {source}: {', '.join(missing)} (the photos of Debian's mate-backgrounds, "
             f"as installed in {DEFAULT_SOURCE}).")


def prepare_corpus(source, out):
    """The baseline JPEGs, the PNGs, their batches, the PPM and the big JPEG."""
    for folder in ("jpg", "png", "batch_jpg", "batch_png"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    check_source(source, [name for name in PHOTOS
                          if not ((out / "jpg" / f"{name}.jpg").exists() and (out / "png" / f"{name}.png").exists())])
    for name in PHOTOS:
        jpg, png = out / "jpg" / f"{name}.jpg", out / "png" / f"{name}.png"
        if not (jpg.exists() and png.exists()):
            photo = Image.open(source / f"{name}.jpg").convert("RGB")
            save(photo, jpg, "JPEG", optimize=False, progressive=False, **JPEG)
            save(photo, png, "PNG")
        for index in range(1, BATCH_COPIES + 1):
            copy(jpg, out / "batch_jpg" / f"{name}_{index}.jpg")
        copy(png, out / "batch_png" / f"{name}_1.png")
    aqua = out / "jpg" / "Aqua.jpg"
    if not (out / "Aqua.ppm").exists():
        save(Image.open(aqua), out / "Aqua.ppm", "PPM")
    big = out / "big_4000x3000.jpg"
    if not big.exists():  # 12 MP: a 48 MB RGBA raster
        resized = Image.open(aqua).convert("RGB").resize(BIG_SIZE, Image.LANCZOS)
        save(resized, big, "JPEG", optimize=False, progressive=False, **JPEG)


def prepare_other_formats(out):
    """Progressive JPEG, WebP and GIF versions of the PNGs, their batches, and a lossless WebP."""
    if not shutil.which("cwebp"):
        sys.exit("prepare_images: --other-formats needs cwebp (sudo apt-get install webp)")
    for folder in ("progressive", "webp", "gif", "batch_progressive", "batch_webp", "batch_gif"):
        (out / folder).mkdir(exist_ok=True)
    for name in PHOTOS:
        png = out / "png" / f"{name}.png"
        made = {"progressive": out / "progressive" / f"{name}.jpg", "webp": out / "webp" / f"{name}.webp",
                "gif": out / "gif" / f"{name}.gif"}
        if not made["progressive"].exists():
            save(Image.open(png).convert("RGB"), made["progressive"], "JPEG", progressive=True, **JPEG)
        cwebp(png, made["webp"], "-q", "90")
        if not made["gif"].exists():
            save(Image.open(png).convert("RGB"), made["gif"], "GIF")
        for index in range(1, BATCH_COPIES + 1):
            for kind, source in made.items():
                copy(source, out / f"batch_{kind}" / f"{name}_{index}{source.suffix}")
    cwebp(out / "png" / "Aqua.png", out / "webp" / "Aqua-lossless.webp", "-lossless")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the corpus folder (Benchmarks/compare uses Benchmarks/.results/img)")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help=f"the 12 photos (default {DEFAULT_SOURCE})")
    parser.add_argument("--other-formats", action="store_true", help="also the progressive JPEG, WebP and GIF sets")
    args = parser.parse_args()
    prepare_corpus(args.source, args.out)
    if args.other_formats:
        prepare_other_formats(args.out)
    print(f"photos ready in {args.out}")


if __name__ == "__main__":
    main()
