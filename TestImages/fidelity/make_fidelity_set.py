#!/usr/bin/env python3
"""Makes the thumbnail-fidelity set (FidelityTests) and its reference figures; run once, output committed.

Usage: make_fidelity_set.py WALLPAPERS   (the folder plasma-workspace-wallpapers installs as
/usr/share/wallpapers, or `dpkg-deb -x plasma-workspace-wallpapers_*.deb` of Debian 12's package)

Writes into this folder:
  NAME.jpg, NAME-progressive.jpg   a 1024 x 640 crop of the photo's most textured part, baseline
                                   and progressive JPEG, quality 92, 4:2:0 (Pillow)
  NAME.webp                        the crop as lossy WebP (`cwebp -q 90`)
  Path-small.gif                   a 512 x 320 crop of Path as GIF (Pillow's adaptive palette)
  EveningGlow-small.png            a 384 x 240 crop of EveningGlow as PNG
  references/FILE-BOX.png          each file's reference thumbnail: decoded at full size, then
                                   Pillow `thumbnail((BOX, BOX), LANCZOS, reducing_gap=None)`
  fidelity.tsv                     file, box, and the PSNR (dB, RGB) against the reference of
                                   `vipsthumbnail -s BOX` (libvips 8.14, Debian 12)
The boxes make the faithful rule pick every decode scale (1/2, 1/4, 1/8, and full size) and
round alike in Pillow and vips.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

HERE = Path(__file__).resolve().parent
CROPS = {"OneStandsOut": (1280, 320), "Path": (768, 640), "EveningGlow": (1024, 960)}
JPEG_BOXES = [256, 96, 56]
CASES = (
    [(f"{name}{suffix}", box) for name in CROPS for suffix in (".jpg", "-progressive.jpg", ".webp") for box in JPEG_BOXES]
    + [("../exif-orientation/Landscape_1.jpg", box) for box in (256, 200, 110)]
    + [("Path-small.gif", 96), ("Path-small.gif", 32), ("EveningGlow-small.png", 64)]
)


def psnr(a, b):
    a = np.asarray(a.convert("RGB"), dtype=np.float64)
    b = np.asarray(b.convert("RGB"), dtype=np.float64)
    assert a.shape == b.shape, (a.shape, b.shape)
    mse = ((a - b) ** 2).mean()
    return 99.0 if mse == 0 else 10 * np.log10(255 * 255 / mse)


def make_inputs(wallpapers):
    for name, (x, y) in CROPS.items():
        photo = Image.open(wallpapers / name / "contents" / "images" / "2560x1600.jpg").convert("RGB")
        crop = photo.crop((x, y, x + 1024, y + 640))
        crop.save(HERE / f"{name}.jpg", "JPEG", quality=92, subsampling=2)
        crop.save(HERE / f"{name}-progressive.jpg", "JPEG", quality=92, subsampling=2, progressive=True)
        with tempfile.TemporaryDirectory() as scratch:
            lossless = Path(scratch) / "crop.png"
            crop.save(lossless)
            subprocess.run(["cwebp", "-quiet", "-q", "90", lossless, "-o", HERE / f"{name}.webp"], check=True)
        if name == "Path":
            crop.crop((256, 160, 768, 480)).save(HERE / "Path-small.gif")
        if name == "EveningGlow":
            crop.crop((320, 200, 704, 440)).save(HERE / "EveningGlow-small.png")


def main():
    make_inputs(Path(sys.argv[1]))
    (HERE / "references").mkdir(exist_ok=True)
    rows = ["# file\tbox\tvipsthumbnail PSNR (dB)"]
    with tempfile.TemporaryDirectory() as scratch:
        for file, box in CASES:
            source = HERE / file
            reference = Image.open(source).convert("RGB")
            reference.thumbnail((box, box), Image.LANCZOS, reducing_gap=None)
            stem = Path(file).name.replace(".", "_")
            reference.save(HERE / "references" / f"{stem}-{box}.png")
            out = Path(scratch) / f"{stem}-{box}.png"
            subprocess.run(["vipsthumbnail", "-s", str(box), "-o", out, source], check=True)
            rows.append(f"{file}\t{box}\t{psnr(Image.open(out), reference):.2f}")
    (HERE / "fidelity.tsv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
