#!/usr/bin/env python3
"""Prints the sizes Pillow's Image.thumbnail((box, box)) makes, as Swift tuples: (width, height, box,
expectedWidth, expectedHeight) for the table in Tests/HoardTests/Image/ThumbnailSizeTests.swift, then
(sample, width, height) for the sample images at 256, for Tests/HoardCommandTests/SharedCacheTests.swift.

    python3 -m venv /tmp/pillow && /tmp/pillow/bin/pip install pillow
    /tmp/pillow/bin/python scripts/pillow-thumbnail-sizes.py

The sizes do not depend on the pixels or on draft() (JPEG DCT scaling): Pillow computes them from
the image's full size (Image.thumbnail's preserve_aspect_ratio / round_aspect) before decoding.
"""
import pathlib

import PIL
from PIL import Image, ImageOps

CASES = [
    (2268, 1512, 256), (1512, 2268, 256), (2268, 1512, 100), (4000, 3000, 256), (1800, 1200, 256),
    (1800, 1200, 100), (1, 1000, 10), (1000, 1, 10), (1, 5000, 256), (5000, 1, 256), (3, 1000, 256),
    (1000, 3, 256), (1001, 999, 1000), (999, 1001, 1000), (1001, 999, 100), (999, 1001, 100), (7, 5, 4),
    (5, 7, 4), (3, 8, 4), (8, 3, 4), (9, 12, 10), (12, 9, 10), (3, 2, 2), (2, 3, 2), (9, 60, 50),
    (60, 9, 50), (500, 500, 256), (257, 100, 256), (256, 100, 256), (100, 50, 256), (2, 2, 1), (1000, 999, 1),
]

print(f"// Pillow {PIL.__version__}, scripts/pillow-thumbnail-sizes.py")
for width, height, box in CASES:
    image = Image.new("L", (width, height))
    image.thumbnail((box, box))
    print(f"({width}, {height}, {box}, {image.size[0]}, {image.size[1]}),")

# The sample images of TestImages/samples.txt made into 256-pixel thumbnails, upright (EXIF
# orientation applied first, as hoard does), for Tests/HoardCommandTests/SharedCacheTests.swift.
samples = pathlib.Path(__file__).resolve().parent.parent / "TestImages" / "samples.txt"
print(f"// Pillow {PIL.__version__}, scripts/pillow-thumbnail-sizes.py: TestImages/samples.txt at 256")
for line in samples.read_text().splitlines():
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    with Image.open(samples.parent / line) as image:
        upright = ImageOps.exif_transpose(image)
        upright.thumbnail((256, 256))
        print(f'("{line}", {upright.size[0]}, {upright.size[1]}),')
