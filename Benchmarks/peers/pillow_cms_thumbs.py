#!/usr/bin/env python3
"""Peer: Pillow with ImageCms, a colour-managed thumbnail batch as a Python user would script it.

Usage: pillow_cms_thumbs.py [--draft] [--procs N] OUTDIR FILE...

As pillow_thumbs.py (Image.open, with --draft first Image.draft("RGB", (256, 256)), then
Image.thumbnail((256, 256)) with Pillow's defaults: reduce() then bicubic), and then, when the file
embeds an ICC profile, ImageCms converts the thumbnail from that profile to sRGB (relative
colorimetric, as vipsthumbnail's default intent): after the resize, on 256 px rather than on the
full image, as a fast Pillow user would. The transform is built once per distinct profile (and image
mode) in each process and reused. Saved as JPEG quality 85, without a profile (sRGB), to
OUTDIR/<name>_thumb.jpg. Files without a profile are taken as sRGB, as pillow_thumbs.py does. --procs N
spreads the files over N worker processes (multiprocessing.Pool, 4 files per task). Prints nothing:
Benchmarks/compare times it with hyperfine and counts the files it wrote.
"""
import functools
import io

from PIL import Image, ImageCms

import pillow_thumbs  # beside this script: its command line and worker pool
from pillow_thumbs import BOX
SRGB = ImageCms.createProfile("sRGB")


@functools.lru_cache(maxsize=16)
def to_srgb(icc_profile, mode):
    """The transform from the embedded profile's bytes to sRGB for images of MODE (per process: a
    transform cannot be pickled to the workers)."""
    source = ImageCms.ImageCmsProfile(io.BytesIO(icc_profile))
    return ImageCms.buildTransform(source, SRGB, mode, "RGB", ImageCms.Intent.RELATIVE_COLORIMETRIC)


class Thumbnailer(pillow_thumbs.Thumbnailer):
    """pillow_thumbs' thumbnailer, converting from the embedded profile after the resize."""

    def __call__(self, path):
        image = self.opened(path)
        icc_profile = image.info.get("icc_profile")
        image.thumbnail(BOX)
        if image.mode not in ("RGB", "L", "CMYK"):
            image = image.convert("RGB")
        if icc_profile:
            transform = to_srgb(icc_profile, image.mode)
            if image.mode == "RGB":
                ImageCms.applyTransform(image, transform, inPlace=True)
            else:
                image = ImageCms.applyTransform(image, transform)
        self.save(image, path)


if __name__ == "__main__":
    pillow_thumbs.main(Thumbnailer, __doc__)
