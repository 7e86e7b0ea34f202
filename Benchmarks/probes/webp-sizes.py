#!/usr/bin/env python3
"""Bytes of the 60-photo batch's thumbnails as JPEG q85 and as WebP of the same SSIM.

Usage: webp-sizes.py HOARD IMAGES [--size 256] [--work DIR]

  HOARD   the hoard tool (any build: the bytes do not depend on it)
  IMAGES  the folder Benchmarks/peers/prepare_images.py fills (Benchmarks/compare prepares it in
          Benchmarks/.results/img); its batch_jpg/ holds the 60 photos

Runs `hoard thumbnails --size SIZE` over batch_jpg/ with --format png (the reference: the exact
thumbnail hoard encodes, lossless), --format jpeg --quality 85, and --format webp at several
qualities, each with a fresh cache. Scores every thumbnail against its reference with SSIM (Wang
et al. 2004: luma Y' = BT.601 of the decoded RGB, an 11-tap Gaussian window of sigma 1.5, K1 0.01,
K2 0.03, over the valid region) and averages over the batch. The matched WebP quality is the
lowest whose mean SSIM reaches JPEG q85's, found by bisection over 1-100 (SSIM rises with the
quality; the neighbours are printed to show it). Also prints WebP at 85 (the same number) and at
the peers' defaults: cwebp 75, Pillow 80. Needs numpy and Pillow (with WebP).
"""
import argparse, shutil, subprocess, sys, tempfile
from pathlib import Path

import numpy as np
from PIL import Image

WINDOW = 11
SIGMA = 1.5


def gaussian_kernel():
    x = np.arange(WINDOW) - WINDOW // 2
    k = np.exp(-(x ** 2) / (2 * SIGMA ** 2))
    return k / k.sum()


KERNEL = gaussian_kernel()


def blur(a):
    """Separable Gaussian over the valid region (no padding)."""
    n = WINDOW
    rows = sum(KERNEL[i] * a[i:a.shape[0] - n + 1 + i, :] for i in range(n))
    return sum(KERNEL[i] * rows[:, i:rows.shape[1] - n + 1 + i] for i in range(n))


def luma(path):
    rgb = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    return rgb @ np.array([0.299, 0.587, 0.114])


def ssim(a, b):
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = blur(a), blur(b)
    var_a = blur(a * a) - mu_a ** 2
    var_b = blur(b * b) - mu_b ** 2
    cov = blur(a * b) - mu_a * mu_b
    s = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2))
    return float(s.mean())


class Batch:
    def __init__(self, hoard, photos, size, work):
        self.hoard, self.photos, self.size, self.work = hoard, photos, size, work
        self.reference = None

    def run(self, name, *flags):
        """The thumbnails of one hoard run, by output stem (the name without its extension)."""
        out, cache = self.work / name, self.work / (name + "-cache")
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        subprocess.run([str(self.hoard), "thumbnails", "--size", str(self.size), *flags, "--cache", str(cache),
                        "--output", str(out), str(self.photos)], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(cache, ignore_errors=True)
        files = {p.stem: p for p in out.iterdir()}
        if len(files) != 60:
            raise SystemExit(f"{name}: {len(files)} thumbnails, expected 60")
        return files

    def score(self, name, *flags):
        """(total bytes, mean SSIM against the PNG reference) of one run."""
        if self.reference is None:
            self.reference = {stem: luma(p) for stem, p in self.run("reference", "--format", "png").items()}
        files = self.run(name, *flags)
        total = sum(p.stat().st_size for p in files.values())
        mean = float(np.mean([ssim(self.reference[stem], luma(p)) for stem, p in files.items()]))
        return total, mean


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("hoard")
    parser.add_argument("images")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed afterwards)")
    args = parser.parse_args()
    photos = Path(args.images) / "batch_jpg"
    if len(list(photos.glob("*.jpg"))) != 60:
        raise SystemExit(f"{photos} does not hold the 60 photos; run Benchmarks/peers/prepare_images.py {args.images}")
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="webp-sizes-"))
    work.mkdir(parents=True, exist_ok=True)
    batch = Batch(Path(args.hoard).resolve(), photos, args.size, work)
    try:
        jpeg_bytes, jpeg_ssim = batch.score("jpeg85", "--format", "jpeg", "--quality", "85")
        webp = {}

        def at(q):
            if q not in webp:
                webp[q] = batch.score(f"webp{q}", "--format", "webp", "--quality", str(q))
            return webp[q]

        low, high = 1, 100  # the lowest quality whose SSIM reaches JPEG's lies in (low, high]
        if at(high)[1] < jpeg_ssim:
            raise SystemExit("WebP at quality 100 does not reach JPEG q85's SSIM")
        if at(low)[1] >= jpeg_ssim:
            high = low
        while high - low > 1:
            middle = (low + high) // 2
            if at(middle)[1] >= jpeg_ssim:
                high = middle
            else:
                low = middle
        matched = high
        for q in (matched - 1, matched + 1, 75, 80, 85):
            if 1 <= q <= 100:
                at(q)
        print(f"60 photos -> {args.size} px thumbnails (hoard thumbnails, Lanczos-3); SSIM on luma against "
              f"hoard's lossless PNG thumbnail")
        print(f"{'encoding':<34} {'bytes':>9} {'mean SSIM':>10} {'vs JPEG':>8}")
        print(f"{'JPEG q85 (4:2:0)':<34} {jpeg_bytes:>9} {jpeg_ssim:>10.5f} {1:>8.3f}")
        for q in sorted(webp):
            label = f"WebP q{q}" + {matched: " (matched SSIM)", 75: " (cwebp default)", 80: " (Pillow default)",
                                    85: " (same number)"}.get(q, "")
            total, mean = webp[q]
            print(f"{label:<34} {total:>9} {mean:>10.5f} {total / jpeg_bytes:>8.3f}")
        total, mean = webp[matched]
        print(f"matched: WebP q{matched} reaches JPEG q85's SSIM ({mean:.5f} >= {jpeg_ssim:.5f}; "
              f"q{matched - 1}: {webp.get(matched - 1, (0, float('nan')))[1]:.5f}) in {total} bytes, "
              f"{total / jpeg_bytes:.3f} x JPEG's {jpeg_bytes}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
