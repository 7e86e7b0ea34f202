#!/usr/bin/env python3
"""Peer: libjpeg-turbo's own benchmark, tjbench (Debian libjpeg-turbo-progs): the JPEG codec's limit
on this machine, one thread, in memory.

Usage: tjbench_codec.py IMAGE.ppm IMAGE.jpg [REPS=3]

Per repetition, each tjbench call measuring for 3 s after 1 s of warm-up, RGB pixels, no files written:
  encode: tjbench IMAGE.ppm 90 -subsamp 420 -rgb -benchtime 3 -warmup 1 -nowrite   (quality 90, 4:2:0)
  decode: tjbench IMAGE.jpg -rgb -scale S -benchtime 3 -warmup 1 -nowrite         for S = 1/1, 1/2, 1/4, 1/8
Throughput is in source megapixels per second (tjbench's convention, also when scaling). One line per
call, read by Benchmarks/compare (hoardcompare/codec.py), with every block tjbench reported:
  run 1  encode q90 4:2:0 from Aqua.ppm: Compress 25.3 fps 103.6 MP/s; Decompress 41.0 fps 167.9 MP/s;
  run 1  decode Aqua.jpg scale 1/2: Decompress 88.2 fps 361.3 MP/s;
"""
import re
import subprocess
import sys
from pathlib import Path

SCALES = ["1/1", "1/2", "1/4", "1/8"]
TIMING = ["-benchtime", "3", "-warmup", "1", "-nowrite"]
# tjbench prints a block per test: "Compress     --> Frame rate: F fps", then among its lines
# "Throughput: T Megapixels/sec"; the same for "Decompress".
BLOCK = re.compile(r"^(Compress|Decompress)\s+--> Frame rate:\s+([\d.]+) fps$"
                   r".*?^\s+Throughput:\s+([\d.]+) Megapixels/sec$", re.M | re.S)


def tjbench(arguments):
    """Runs tjbench; its blocks as 'NAME F fps T MP/s; ' text."""
    result = subprocess.run(["tjbench", *arguments], capture_output=True, text=True)
    blocks = BLOCK.findall(result.stdout)
    if result.returncode != 0 or not blocks:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"tjbench_codec: `tjbench {' '.join(arguments)}` gave no figures "
                         f"(exit status {result.returncode})")
    return "".join(f"{name} {float(fps):.1f} fps {float(mps):.1f} MP/s; " for name, fps, mps in blocks)


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    ppm, jpg = Path(sys.argv[1]), Path(sys.argv[2])
    reps = int(sys.argv[3]) if len(sys.argv) == 4 else 3
    for path in (ppm, jpg):
        if not path.is_file():
            raise SystemExit(f"tjbench_codec: no file {path}")
    for run in range(1, reps + 1):
        figures = tjbench([str(ppm), "90", "-subsamp", "420", "-rgb", *TIMING])
        print(f"run {run}  encode q90 4:2:0 from {ppm.name}: {figures}", flush=True)
        for scale in SCALES:
            figures = tjbench([str(jpg), "-rgb", "-scale", scale, *TIMING])
            print(f"run {run}  decode {jpg.name} scale {scale}: {figures}", flush=True)


if __name__ == "__main__":
    main()
