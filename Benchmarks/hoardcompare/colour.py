"""colour: the thumbnail batch from Display P3 JPEGs (profile embedded), converted to sRGB by every side:
`hoard thumbnails --colour srgb` against vipsthumbnail --export-profile srgb and Pillow with ImageCms
(peers/pillow_cms_thumbs.py); then how far Hoard's thumbnails are from vipsthumbnail's."""
import hashlib
import io
import os
import shlex
import shutil
import subprocess

from . import fidelity, iccprofiles
from .report import best, row, side
from .runner import PYTHON, RESULTS, Section, log
from .thumbnails import batch_fidelity, faithful_rate_row, run_rounds

q = shlex.quote
P3_FOLDER = "batch_p3"  # beside batch_jpg in the photo corpus (Benchmarks/.results/img)
P3_JPEG = {"quality": 92, "subsampling": 2, "optimize": False, "progressive": False}
CHECKED_FILES = 5  # the quality check's files, the first by name


def prepare_p3(source, out):
    """Every SOURCE/*.jpg (taken as sRGB) converted to Display P3 with Pillow's ImageCms, saved as
    JPEG q92 4:2:0 with the profile embedded into OUT under the same name; files already there are
    kept, and identical sources (the batch holds each photo 5 times) are converted once. Returns OUT."""
    from PIL import Image, ImageCms  # here, not at the top: compare installs Pillow after importing this

    out.mkdir(parents=True, exist_ok=True)
    profile = iccprofiles.display_p3()
    transform, converted = None, {}  # converted: the SHA-256 of a source's bytes -> its P3 file
    for path in sorted(source.glob("*.jpg")):
        target = out / path.name
        if target.exists():
            continue
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        temporary = target.with_name(f".{target.name}.partial")
        try:
            if digest in converted:
                shutil.copyfile(converted[digest], temporary)
            else:
                if transform is None:
                    transform = ImageCms.buildTransform(
                        ImageCms.createProfile("sRGB"), ImageCms.ImageCmsProfile(io.BytesIO(profile)), "RGB", "RGB",
                        ImageCms.Intent.RELATIVE_COLORIMETRIC)
                image = Image.open(io.BytesIO(data)).convert("RGB")
                ImageCms.applyTransform(image, transform, inPlace=True)
                image.save(temporary, "JPEG", icc_profile=profile, **P3_JPEG)
            os.replace(temporary, target)
            converted[digest] = target
        finally:
            temporary.unlink(missing_ok=True)
    return out


def hoard_has_colour(hoard):
    """Whether `hoard thumbnails --help` lists --colour."""
    try:
        result = subprocess.run([str(hoard), "thumbnails", "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--colour" in result.stdout + result.stderr


def colour_commands(c, folder, untagged, count, out, png=False):
    """name -> (command, hyperfine --prepare command) for every side, 1 and N threads; with PNG, the
    same sides writing PNG (for the fidelity check)."""
    threads = os.cpu_count() or 1
    glob = f"{q(str(folder))}/*.jpg"
    pillow = f"{PYTHON} {q(str(c.peers / 'pillow_cms_thumbs.py'))}" + (" --png" if png else "")

    def hoard(name, concurrency, inputs=folder, filter="lanczos3"):
        flags = f" --concurrency {concurrency}" if concurrency else ""
        return (f"{q(str(c.tools['hoard']))} thumbnails --size 256 --quality 85 --format {'png' if png else 'jpeg'} "
                f"--filter {filter} "
                f"--colour srgb{flags} --cache {q(str(out / (name + '-cache')))} --output {q(str(out / name))} "
                f"{q(str(inputs))}", f"rm -rf {q(str(out / name))} {q(str(out / (name + '-cache')))}")

    def shell(name, body):
        return f"bash -c {q(body)}", f"rm -rf {q(str(out / name))}"

    vips = lambda name: (f"vipsthumbnail -s 256 --export-profile srgb -o "
                         f"{q(str(out / name))}/%s_t." + ("png[strip]" if png else "jpg[Q=85,strip]"))
    mkdir = lambda name: f"mkdir -p {q(str(out / name))} && "
    commands = {
        "hoard-1": hoard("hoard-1", 1),
        "hoard-1-cubic": hoard("hoard-1-cubic", 1, filter="catmull-rom"),
        "hoard-1-untagged": hoard("hoard-1-untagged", 1, untagged),
        "pillow-cms-plain-1": shell("pillow-cms-plain-1", f"{pillow} {q(str(out / 'pillow-cms-plain-1'))} {glob}"),
        "pillow-cms-1": shell("pillow-cms-1", f"{pillow} --draft {q(str(out / 'pillow-cms-1'))} {glob}"),
        "vips-1": shell("vips-1", mkdir("vips-1") + f"VIPS_CONCURRENCY=1 {vips('vips-1')} {glob}"),
    }
    if threads > 1:
        commands.update({
            "hoard-n": hoard("hoard-n", None),
            "hoard-n-cubic": hoard("hoard-n-cubic", None, filter="catmull-rom"),
            "pillow-cms-plain-n": shell("pillow-cms-plain-n",
                                        f"{pillow} --procs {threads} {q(str(out / 'pillow-cms-plain-n'))} {glob}"),
            "pillow-cms-n": shell("pillow-cms-n", f"{pillow} --draft --procs {threads} {q(str(out / 'pillow-cms-n'))} {glob}"),
            "vips-n": shell("vips-n", mkdir("vips-n") + f"ls {glob} | xargs -P{threads} "
                                                        f"-n {max(1, count // threads)} {vips('vips-n')}"),
            "vips-default": shell("vips-default", mkdir("vips-default") + f"{vips('vips-default')} {glob}"),
        })
    return commands


def difference(a, b):
    """The mean absolute difference of two images in 0-255 levels over R, G, B; B is resized to A's
    size (Lanczos) when they differ (a pixel of rounding)."""
    from PIL import Image, ImageChops, ImageStat
    a, b = a.convert("RGB"), b.convert("RGB")
    if b.size != a.size:
        b = b.resize(a.size, Image.Resampling.LANCZOS)
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def quality_table(c, folder, out):
    """The first files' thumbnails beside vipsthumbnail's: Hoard's, Pillow's, and vipsthumbnail's own
    without --export-profile (P3 values left as they are: the size of the conversion)."""
    from PIL import Image
    files = sorted(folder.glob("*.jpg"))[:CHECKED_FILES]
    raw = out / "vips-unconverted"
    raw.mkdir(exist_ok=True)
    c.run(["vipsthumbnail", "-s", "256", "-o", f"{raw}/%s_t.jpg[Q=85,strip]"] + files, "colour")
    lines = ["| file | Hoard vs vips | Pillow + ImageCms vs vips | vips unconverted vs vips | Hoard's output profile |",
             "|---|--:|--:|--:|---|"]
    sums = [0.0, 0.0, 0.0]
    for path in files:
        vips = Image.open(out / "vips-1" / f"{path.stem}_t.jpg")
        hoards = sorted((out / "hoard-1").glob(f"{path.stem}-*.jpg"))
        if len(hoards) != 1:
            raise RuntimeError(f"{len(hoards)} thumbnails of {path.name} in {out / 'hoard-1'}")
        hoard = Image.open(hoards[0])
        pillow = Image.open(out / "pillow-cms-1" / f"{path.stem}_thumb.jpg")
        figures = [difference(vips, hoard), difference(vips, pillow),
                   difference(vips, Image.open(raw / f"{path.stem}_t.jpg"))]
        sums = [s + f for s, f in zip(sums, figures)]
        icc = hoard.info.get("icc_profile")
        lines.append(f"| {path.name} | " + " | ".join(f"{f:.2f}" for f in figures)
                     + f" | {f'{len(icc)} bytes' if icc else 'none (sRGB)'} |")
    lines.append("| **mean** | " + " | ".join(f"**{s / len(files):.2f}**" for s in sums) + " | |")
    lines += ["", "Mean absolute difference, 0-255 levels over R, G, B, decoded by Pillow (resized to vips's size "
              "when a pixel off). Hoard well under the unconverted figure: the conversion happened (Pillow "
              "resizes with bicubic, Hoard and vips with Lanczos-3)."]
    return {"title": f"Colour: thumbnails of the first {len(files)} Display P3 files beside vipsthumbnail's",
            "lines": lines}


def measure_colour(c):
    """The P3 batch, 1 and N threads, through hyperfine; the untagged batch at 1 thread; the check."""
    hoard = c.tools["hoard"]
    if not hoard_has_colour(hoard):
        message = f"hoard has no --colour (`{hoard} thumbnails --help` does not list it): colour rows skipped"
        log(f"!! colour: {message}")
        c.tables["colour"] = {"title": "Colour: not measured", "lines": [message]}
        return []
    folder = prepare_p3(c.images / "batch_jpg", c.images / P3_FOLDER)
    count = len(list(folder.glob("*.jpg")))
    threads = os.cpu_count() or 1
    out = RESULTS / "tmp" / "colour"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    commands = colour_commands(c, folder, c.images / "batch_jpg", count, out)
    times = run_rounds(c, commands, count, out, "colour")

    lossless = colour_commands(c, folder, c.images / "batch_jpg", count, out / "png", png=True)
    lossless.pop("hoard-1-untagged")  # another batch: its speed only is compared
    figures = batch_fidelity(c, commands, lossless, folder, out, "colour")

    def rate(name, label):
        measured = side(label, [count / t for t in times[name]])
        return fidelity.labelled(measured, figures[name]) if name in figures else measured

    work = lambda n, peer: (f"thumbnails, {count} Display P3 JPEG files (profile embedded) -> 256 px sRGB JPEG "
                            f"q85, {n} thread{'s' if n > 1 else ''}, vs {peer}")
    # As in **thumbnails**: Hoard's default against Pillow's thumbnail() as a user writes it and
    # against vipsthumbnail; Hoard's Catmull-Rom against Pillow with draft() (the same cubic).
    faithful_row = lambda *arguments, **options: faithful_rate_row("colour", *arguments, **options)
    h1 = rate("hoard-1", "hoard --colour srgb --concurrency 1, Lanczos-3 (cold)")
    h1_cubic = rate("hoard-1-cubic", "hoard --colour srgb --concurrency 1 --filter catmull-rom (cold)")
    rows = [faithful_row(work(1, "Pillow thumbnail() + ImageCms"), h1,
                         rate("pillow-cms-plain-1", "Pillow thumbnail() + ImageCms, 1 process"), 1.5),
            faithful_row(work(1, "vipsthumbnail"), h1,
                         rate("vips-1", "VIPS_CONCURRENCY=1 vipsthumbnail --export-profile srgb"), 1.5),
            faithful_row(work(1, "Pillow draft() + ImageCms") + ", bicubic", h1_cubic,
                         rate("pillow-cms-1", "Pillow draft() + ImageCms, 1 process"), None)]
    if threads > 1:
        hn = rate("hoard-n", "hoard --colour srgb, Lanczos-3 (cold)")
        hn_cubic = rate("hoard-n-cubic", "hoard --colour srgb --filter catmull-rom (cold)")
        vips, others = best(rate("vips-n", f"{threads} x vipsthumbnail --export-profile srgb (xargs -P{threads})"),
                            rate("vips-default", "vipsthumbnail --export-profile srgb (default threads)"))
        rows += [faithful_row(work(threads, "Pillow thumbnail() + ImageCms"), hn,
                              rate("pillow-cms-plain-n", f"Pillow thumbnail() + ImageCms, {threads} processes"), 1.5),
                 faithful_row(work(threads, "vipsthumbnail"), hn, vips, 1.5, others=others),
                 faithful_row(work(threads, "Pillow draft() + ImageCms") + ", bicubic", hn_cubic,
                              rate("pillow-cms-n", f"Pillow draft() + ImageCms, {threads} processes"), None)]
    rows.append(row("colour", f"hoard, the {count} Display P3 files against the untagged batch_jpg, 1 thread",
                    "img/s", h1, rate("hoard-1-untagged", "hoard, same flags, untagged batch_jpg (cold)"),
                    note="ratio = P3 / untagged: what the conversion costs Hoard; the untagged figure is the "
                         "thumbnails section's hoard --concurrency 1 batch"))
    try:  # the check failing does not lose the timings
        c.tables["colour"] = quality_table(c, folder, out)
    except Exception as error:
        log(f"!! colour: the quality check failed: {error}")
        c.tables["colour"] = {"title": "Colour: the quality check failed",
                              "lines": [f"{type(error).__name__}: {error}"]}
    shutil.rmtree(out, ignore_errors=True)
    return rows


SECTIONS = [Section(
    "colour", measure_colour, frozenset({"hoard"}),
    "The 60-file `batch_jpg` converted once to Display P3 (P3 primaries, D65, the sRGB curve; profile made "
    "by `hoardcompare/iccprofiles.py` through Little CMS) with Pillow's ImageCms, saved as JPEG q92 4:2:0 with "
    "the profile embedded into `batch_p3`; every side converts to sRGB and writes 256 px JPEG q85 without a "
    "profile. `hoard thumbnails --filter lanczos3 --colour srgb` (`--concurrency 1`; default) vs "
    "vipsthumbnail `--export-profile srgb` with `[Q=85,strip]` (Lanczos-3; `VIPS_CONCURRENCY=1`; `xargs -PN` "
    "or default threads, the faster) and vs `peers/pillow_cms_thumbs.py [--procs N]` (`thumbnail()` as a "
    "user writes it, then ImageCms from the embedded profile to sRGB on the thumbnail, one transform per "
    "profile); `hoard --filter catmull-rom` vs the same with `--draft` (for reference, no target). Fidelity "
    "and bytes in each label, and rows met at equal or better fidelity, as in **thumbnails**. Cold, rounds "
    "of one `hyperfine -N` call as "
    "**thumbnails**, with hoard's 1-thread command on the untagged `batch_jpg` beside. Then the mean "
    "absolute difference of the first 5 files' thumbnails from vipsthumbnail's.",
    images=True)]
