"""Thumbnail fidelity beside speed: each side's thumbnails against a full-resolution Lanczos-3
thumbnail of the same input (Pillow: decoded at full size, converted to sRGB through its embedded
profile when it has one, then `thumbnail(box, LANCZOS, reducing_gap=None)`), as PSNR over R, G, B;
and the bytes each side wrote. A batch holds each photo several times (NAME_1 ... NAME_5): every
output is measured, against its own input's reference."""
import io
import re
import statistics

import numpy as np

BOX = 256
# NAME_I as each side names its output: hoard NAME_I-<hash>-<box>.jpg (NAME_I-<hash>.jpg before boxes were
# named), Pillow NAME_I_thumb.jpg, vips NAME_I_t.jpg.
OUTPUT_NAME = re.compile(r"^(?P<input>.+?_\d+)(?:-[0-9a-f]{16}(?:-[0-9x]+[a-z-]*)?|_thumb|_t)\.(?:jpg|png|webp)$")


def reference(path, box=BOX):
    """The full-resolution Lanczos-3 thumbnail of the image at PATH, in sRGB."""
    from PIL import Image, ImageCms
    image = Image.open(path)
    profile = image.info.get("icc_profile")
    image = image.convert("RGB")
    if profile:
        image = ImageCms.profileToProfile(image, ImageCms.ImageCmsProfile(io.BytesIO(profile)),
                                          ImageCms.createProfile("sRGB"), outputMode="RGB")
    image.thumbnail((box, box), Image.Resampling.LANCZOS, reducing_gap=None)
    return np.asarray(image, dtype=np.float64)


def psnr(a, b):
    mse = float(((a - b) ** 2).mean())
    return 99.0 if mse == 0 else float(10 * np.log10(255 * 255 / mse))


class References:
    """The references of a batch folder's inputs, made once each (the 5 copies of a photo share one)."""

    def __init__(self, folder, box=BOX):
        self.folder, self.box, self.made = folder, box, {}

    def __getitem__(self, input_stem):
        photo = re.sub(r"_\d+$", "", input_stem)
        if photo not in self.made:
            source = next(self.folder.glob(f"{input_stem}.*"))
            self.made[photo] = reference(source, self.box)
        return self.made[photo]


def measure(folder, references):
    """{'median', 'worst', 'bytes', 'count'} of the thumbnails in FOLDER against REFERENCES; a thumbnail
    of another size than its reference (a pixel of rounding) is compared after a Lanczos resize to it."""
    from PIL import Image
    values, total = [], 0
    for path in sorted(folder.iterdir()):
        match = OUTPUT_NAME.match(path.name)
        if not match:
            continue
        total += path.stat().st_size
        wanted = references[match["input"]]
        image = Image.open(path).convert("RGB")
        if image.size != (wanted.shape[1], wanted.shape[0]):
            image = image.resize((wanted.shape[1], wanted.shape[0]), Image.Resampling.LANCZOS)
        values.append(psnr(np.asarray(image, dtype=np.float64), wanted))
    if not values:
        raise RuntimeError(f"no thumbnails to measure in {folder}")
    return {"median": statistics.median(values), "worst": min(values), "bytes": total, "count": len(values)}


def text(figures):
    """A side's fidelity as a label shows it."""
    return (f"PSNR {figures['median']:.1f} / {figures['worst']:.1f} dB (median / worst), "
            f"{figures.get('format', 'JPEG')} {figures['bytes'] / 1e6:.2f} MB")


def labelled(side, figures):
    """SIDE with its fidelity added to its label and kept beside its figures."""
    side = dict(side)
    side["label"] = f"{side['label']} [{text(figures)}]"
    side["fidelity"] = figures
    return side


def at_least_as_faithful(hoard, peer):
    """The rule of the thumbnail rows: Hoard's median PSNR within 1 dB of the peer's (or above), its
    worst within 2 dB."""
    return bool(hoard["median"] >= peer["median"] - 1 and hoard["worst"] >= peer["worst"] - 2)
