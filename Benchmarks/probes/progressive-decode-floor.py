#!/usr/bin/env python3
"""Issue 52 probe: what libjpeg alone takes to decode a batch at the faithful scale (Pillow draft to twice
the 256 px box, then load), beside Pillow thumbnail() in the same process (no saving).
Usage: progressive-decode-floor.py FOLDER   (a folder of .jpg, e.g. Benchmarks/.results/img/progressive)"""
import sys, glob, time
from PIL import Image
files = sorted(glob.glob(sys.argv[1] + '/*.jpg'))
def decode_only():
    for f in files:
        im = Image.open(f); im.draft('RGB', (512, 512)); im.load()
def thumbnail():
    for f in files:
        im = Image.open(f); im.thumbnail((256, 256)); im.convert('RGB')
for name, fn in (('decode at the faithful scale only (draft to 512, load)', decode_only), ('Pillow thumbnail() without saving', thumbnail)):
    best = min((lambda t0: (fn(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(3))
    print(f"{name}: {best*1000:.0f} ms for {len(files)} files, {len(files)/best:.1f} img/s")
