#!/usr/bin/env python3
"""Peer: Pillow's own AVIF writer (libavif), as a Python user would script an AVIF thumbnail batch.

Usage: pillow_avif.py [--procs N] OUTDIR FILE...

As pillow_thumbs.py --draft (Image.open, Image.draft("RGB", (256, 256)), Image.thumbnail((256, 256))
with Pillow's defaults), then save(..., "AVIF", quality=60) with Pillow's other defaults (speed 6),
and one encoder thread (max_threads=1) so that --procs N is N threads in all, to
OUTDIR/<name>_thumb.avif. Prints nothing: Benchmarks/compare times it with hyperfine.
"""
import os

import pillow_thumbs  # beside this script: its command line and worker pool

QUALITY = 60


class AVIFThumbnailer(pillow_thumbs.Thumbnailer):
    """pillow_thumbs' thumbnail, saved as AVIF."""

    def save(self, image, path):
        stem = os.path.splitext(os.path.basename(path))[0]
        image.convert("RGB").save(os.path.join(self.output, stem + "_thumb.avif"), "AVIF", quality=QUALITY,
                                  max_threads=1)


if __name__ == "__main__":
    pillow_thumbs.main(AVIFThumbnailer, __doc__)
