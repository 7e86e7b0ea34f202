#!/bin/bash
# Makes the chroma-subsampling test set from a 256 x 160 crop of exif-orientation/Landscape_1.jpg
# (MIT, see LICENSE): source.png is the crop, each JPEG is cjpeg (libjpeg-turbo-progs) at quality 95
# with one sampling factor. The test decodes each JPEG and compares it with source.png.
set -euo pipefail
cd "$(dirname "$0")"
python3 - <<'PY'
from PIL import Image
Image.open("../exif-orientation/Landscape_1.jpg").convert("RGB").crop((800, 500, 1056, 660)).save("source.png")
Image.open("source.png").save("/tmp/hoard-subsampling-source.ppm")
PY
for sampling in 1x1 2x1 1x2 2x2 4x1 4x2; do
    cjpeg -quality 95 -sample "$sampling" -outfile "sample-$sampling.jpg" /tmp/hoard-subsampling-source.ppm
done
cjpeg -quality 95 -sample 2x2 -progressive -restart 1 -outfile "sample-2x2-progressive-restarts.jpg" /tmp/hoard-subsampling-source.ppm
