"""avif: AVIF thumbnails, `hoard thumbnails --format avif` against Pillow's own AVIF writer
(peers/pillow_avif.py), file to file through hyperfine, with each side's bytes and fidelity."""
import json
import os
import shlex
import shutil

from . import fidelity
from .report import row, side
from .runner import PYTHON, RESULTS, Section

q = shlex.quote
QUALITY = 60
PILLOW = "pillow>=13,<14"  # the peer the issue names: Pillow 13's own AVIF writer
TARGET = 1.5
BYTES_LIMIT = 1.2  # Hoard's bytes at most this times Pillow's


def pillow_folder(c):
    """A folder holding Pillow 13 (pip install --target, once), for the peer alone: the other
    sections keep the machine's Pillow."""
    target = RESULTS / "peers" / "pillow13"
    if not (target / "PIL").is_dir():
        target.mkdir(parents=True, exist_ok=True)
        c.run([PYTHON, "-m", "pip", "install", "--quiet", "--target", target, PILLOW], "avif")
    return target


def commands(c, folder, out):
    """name -> (command, hyperfine --prepare command): hoard and Pillow at 1 thread and at N."""
    threads = os.cpu_count() or 1
    glob = f"{q(str(folder))}/*.jpg"
    pillow = (f"env PYTHONPATH={q(str(pillow_folder(c)))} {PYTHON} {q(str(c.peers / 'pillow_avif.py'))} "
              "--draft")

    def hoard(name, concurrency):
        return (f"{q(str(c.tools['hoard']))} thumbnails --size 256 --format avif --quality {QUALITY} "
                f"--concurrency {concurrency} --cache {q(str(out / (name + '-cache')))} --output {q(str(out / name))} "
                f"{q(str(folder))}", f"rm -rf {q(str(out / name))} {q(str(out / (name + '-cache')))}")

    def shell(name, procs):
        return (f"bash -c {q(f'{pillow} --procs {procs} {q(str(out / name))} {glob}')}", f"rm -rf {q(str(out / name))}")

    made = {"hoard-1": hoard("hoard-1", 1), "pillow-1": shell("pillow-1", 1)}
    if threads > 1:
        made.update({"hoard-n": hoard("hoard-n", threads), "pillow-n": shell("pillow-n", threads)})
    return made


def fidelity_of(folder, references):
    """{'median', 'worst', 'bytes', 'count'} of the AVIF files in FOLDER: each decoded to PNG under
    its name, measured as fidelity.measure measures, the bytes those of the AVIF files."""
    from PIL import Image
    decoded = folder.parent / (folder.name + "-png")
    shutil.rmtree(decoded, ignore_errors=True)
    decoded.mkdir()
    total = 0
    for path in folder.glob("*.avif"):
        total += path.stat().st_size
        Image.open(path).convert("RGB").save(decoded / (path.stem + ".png"))
    measured = fidelity.measure(decoded, references)
    measured["bytes"] = total
    measured["format"] = "AVIF"
    return measured


def hyperfine_rounds(c, made, out, section, runs):
    """c.reps rounds of one hyperfine call over every command of MADE (name -> (command, prepare)),
    alternated, RUNS runs each per round; each command's times."""
    times = {name: [] for name in made}
    for index in range(c.reps):
        exported = out / f"hyperfine-{index}.json"
        command = ["hyperfine", "-N", "--warmup", "1", "--runs", "1" if c.quick else str(runs), "--export-json", exported]
        for cmd, prepare in made.values():
            command += ["--prepare", prepare]
        for name, (cmd, _) in made.items():
            command += ["-n", name, cmd]
        c.run(command, section)
        for result in json.loads(exported.read_text())["results"]:
            times[result["command"]] += result["times"]
        shutil.copy(exported, c.run.logs / f"{section}-{exported.name}")
    return times


def measure_avif(c):
    """Rounds of one hyperfine call over every command (alternated), then each side's fidelity."""
    folder = c.images / "batch_jpg"
    count = len(list(folder.glob("*.jpg")))
    out = RESULTS / "tmp" / "avif"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    made = commands(c, folder, out)
    times = hyperfine_rounds(c, made, out, "avif", 2)
    references = fidelity.References(folder)
    figures = {}
    for name in made:
        written = list((out / name).glob("*.avif"))
        if len(written) != count:
            raise RuntimeError(f"{name} wrote {len(written)} AVIF files for {count} inputs (see logs/avif.log)")
        figures[name] = fidelity_of(out / name, references)
    rows = []
    for suffix, threads in (("1", 1), ("n", os.cpu_count() or 1)):
        if f"hoard-{suffix}" not in made:
            continue
        hoard = fidelity.labelled(side(f"hoard --format avif, {threads} thread{'s' if threads > 1 else ''}",
                                       [count / t for t in times[f"hoard-{suffix}"]]), figures[f"hoard-{suffix}"])
        pillow = fidelity.labelled(side(f"Pillow 13 save(AVIF), {threads} process{'es' if threads > 1 else ''}",
                                        [count / t for t in times[f"pillow-{suffix}"]]), figures[f"pillow-{suffix}"])
        byte_ratio = figures[f"hoard-{suffix}"]["bytes"] / figures[f"pillow-{suffix}"]["bytes"]
        made_row = row("avif", f"thumbnails, {count} JPEG files -> 256 px AVIF q{QUALITY}, {threads} "
                               f"thread{'s' if threads > 1 else ''}", "img/s", hoard, pillow, target=TARGET,
                       note=f"bytes {byte_ratio:.2f}x Pillow's (at most {BYTES_LIMIT}x)")
        if made_row["met"] is not None:
            made_row["met"] = made_row["met"] and byte_ratio <= BYTES_LIMIT
        rows.append(made_row)
    return rows


SECTIONS = [Section(
    "avif", measure_avif, frozenset({"hoard"}),
    f"File to file, `hyperfine -N`, the 60-file `batch_jpg`, 256 px box, AVIF quality {QUALITY}: `hoard thumbnails "
    f"--format avif --quality {QUALITY} --concurrency N` (DCT scaling to twice the box, Lanczos-3, libavif with "
    "libaom at speed 8, one encoder thread; it also writes every thumbnail into its cache) against "
    "`peers/pillow_avif.py --draft --procs N` with Pillow 13 (pip-installed into a folder of its own; Pillow's `draft()` to the box, `thumbnail()`, then its own "
    f"`save(..., \"AVIF\", quality={QUALITY}, max_threads=1)`, libavif at Pillow's default speed 6), for N = 1 and "
    "N = nproc, alternated in rounds of one hyperfine call. Each side's fidelity (PSNR of its decoded "
    "thumbnails against a full-resolution Lanczos-3 thumbnail) and AVIF bytes are in its label; a row is met "
    f"at {TARGET}x the images per second with at most {BYTES_LIMIT}x the bytes.",
    images=True)]


def measure_smart_crop(c):
    """hoard thumbnails --size 256x256 --fit fill, --gravity smart against --gravity centre, one thread,
    alternated rounds of one hyperfine call."""
    folder = c.images / "batch_jpg"
    count = len(list(folder.glob("*.jpg")))
    out = RESULTS / "tmp" / "smart-crop"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)

    def hoard(name, gravity):
        return (f"{q(str(c.tools['hoard']))} thumbnails --size 256x256 --fit fill --gravity {gravity} --concurrency 1 "
                f"--cache {q(str(out / (name + '-cache')))} --output {q(str(out / name))} {q(str(folder))}",
                f"rm -rf {q(str(out / name))} {q(str(out / (name + '-cache')))}")

    made = {"smart": hoard("smart", "smart"), "centre": hoard("centre", "centre")}
    times = hyperfine_rounds(c, made, out, "smart-crop", 3)
    return [row("smart-crop", f"thumbnails, {count} JPEG files -> 256x256 fill, 1 thread: smart against centre",
                "img/s", side("--gravity smart", [count / t for t in times["smart"]]),
                side("--gravity centre", [count / t for t in times["centre"]]))]


SECTIONS.append(Section(
    "smart-crop", measure_smart_crop, frozenset({"hoard"}),
    "What the smart gravity costs: `hoard thumbnails --size 256x256 --fit fill --gravity smart --concurrency 1` "
    "against the same with `--gravity centre`, cold, the 60-file `batch_jpg`, alternated rounds of one hyperfine "
    "call. The smart crop sums edge strength and saturation over the scaled image (a summed-area table) and "
    "tries every window position.",
    images=True))
