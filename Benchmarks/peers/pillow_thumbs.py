#!/usr/bin/env python3
"""Peer: Pillow, the image library a Python user would script a thumbnail batch with.

Usage: pillow_thumbs.py [--draft] [--png] [--procs N] OUTDIR FILE...

File to file, as a command-line tool would: for every FILE, Image.open, with --draft first
Image.draft("RGB", (256, 256)) (libjpeg's DCT scaling, JPEG only; nothing for other formats), then
Image.thumbnail((256, 256)) with Pillow's defaults (reduce() then bicubic), then convert("RGB") and
save as JPEG quality 85 to OUTDIR/<name>_thumb.jpg (--png: PNG, <name>_thumb.png, for the fidelity
check). --procs N spreads the files over N worker
processes (multiprocessing.Pool, 4 files per task). Prints nothing: Benchmarks/compare times it with
hyperfine and counts the files it wrote.
"""
import argparse
import os
from multiprocessing import Pool

from PIL import Image

BOX = (256, 256)
QUALITY = 85
FILES_PER_TASK = 4


class Thumbnailer:
    """Makes one file's thumbnail in a fixed output folder; picklable, so each worker gets a copy."""

    lossless = False  # --png: main() sets it before any worker starts

    def __init__(self, output, draft):
        self.output, self.draft = output, draft

    def opened(self, path):
        """The file, with --draft its JPEG decoder set to scale down."""
        image = Image.open(path)
        if self.draft:
            image.draft("RGB", BOX)
        return image

    def save(self, image, path):
        """IMAGE as RGB JPEG q85 under PATH's name in the output folder."""
        stem = os.path.splitext(os.path.basename(path))[0]
        if self.lossless:
            image.convert("RGB").save(os.path.join(self.output, stem + "_thumb.png"), "PNG", compress_level=1)
        else:
            image.convert("RGB").save(os.path.join(self.output, stem + "_thumb.jpg"), "JPEG", quality=QUALITY)

    def __call__(self, path):
        image = self.opened(path)
        image.thumbnail(BOX)
        self.save(image, path)


def main(thumbnailer=Thumbnailer, description=__doc__):
    """Runs THUMBNAILER (a class like Thumbnailer) over the command line's files."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", help="folder for the thumbnails (made if missing)")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--procs", type=int, default=1, help="worker processes (default 1: no pool)")
    parser.add_argument("--draft", action="store_true", help="let the JPEG decoder scale down first")
    parser.add_argument("--png", action="store_true", help="write PNG (lossless) instead of JPEG q85")
    args = parser.parse_args()
    thumbnailer.lossless = args.png
    os.makedirs(args.output, exist_ok=True)
    thumbnail = thumbnailer(args.output, args.draft)
    if args.procs <= 1:
        for path in args.files:
            thumbnail(path)
    else:
        with Pool(args.procs) as pool:
            pool.map(thumbnail, args.files, chunksize=FILES_PER_TASK)


if __name__ == "__main__":
    main()
