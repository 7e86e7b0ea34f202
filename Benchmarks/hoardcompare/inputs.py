"""The photo corpus, made once into Benchmarks/.results/img by peers/prepare_images.py."""
from .runner import PYTHON, RESULTS, log

IMAGES = RESULTS / "img"


def prepare_images(run, peers):
    """The photos, their batches, the PPM and the 4000x3000 JPEG; returns their folder."""
    if not ((IMAGES / "big_4000x3000.jpg").exists() and len(list((IMAGES / "batch_jpg").glob("*.jpg"))) == 60):
        log(f"preparing photos in {IMAGES}")
    run([PYTHON, peers / "prepare_images.py", IMAGES], "setup")
    return IMAGES


def other_formats(run, peers, img):
    """The batch also as progressive JPEG, WebP and GIF, and Aqua as lossless WebP (prepare_images.py
    --other-formats: files already there are kept)."""
    run([PYTHON, peers / "prepare_images.py", "--other-formats", img], "setup")
    return img
