"""thumbnails and thumbnail-inputs: file-to-file batches through hyperfine, `hoard thumbnails` against
vipsthumbnail and Pillow (peers/pillow_thumbs.py), cold and warm."""
import json
import os
import shlex
import shutil
import time

from . import fidelity
from .inputs import other_formats
from .report import best, ratio_text, row, side
from .runner import PYTHON, RESULTS, Section

q = shlex.quote


def batch_commands(c, folder, extension, count, out, section, png=False):
    """name -> (command, hyperfine --prepare command) for every side of a batch over FOLDER/*.EXTENSION;
    with PNG, the same sides writing PNG (for the fidelity check: JPEG's own loss left out).

    Each peer is matched by a Hoard run with its filter class: vipsthumbnail resizes with Lanczos-3
    (Hoard's default), Pillow's thumbnail() with bicubic (Catmull-Rom, a = -0.5)."""
    threads = os.cpu_count() or 1
    glob = f"{q(str(folder))}/*.{extension}"
    pillow = f"{PYTHON} {q(str(c.peers / 'pillow_thumbs.py'))}" + (" --png" if png else "")

    def hoard(name, concurrency, filter="lanczos3", binary=None):
        flags = f" --concurrency {concurrency}" if concurrency else ""
        flags += f" --filter {filter}"
        return (f"{q(str(binary or c.tools['hoard']))} thumbnails --size 256 --quality 85 "
                f"--format {'png' if png else 'jpeg'}{flags} "
                f"--cache {q(str(out / (name + '-cache')))} --output {q(str(out / name))} {q(str(folder))}",
                f"rm -rf {q(str(out / name))} {q(str(out / (name + '-cache')))}")

    def shell(name, body):
        return f"bash -c {q(body)}", f"rm -rf {q(str(out / name))}"

    vips_out = lambda name: q(str(out / name)) + ("/%s_t.png" if png else "/%s_t.jpg[Q=85]")
    commands = {
        "hoard-1": hoard("hoard-1", 1),
        "hoard-1-cubic": hoard("hoard-1-cubic", 1, "catmull-rom"),
        "pillow-plain-1": shell("pillow-plain-1", f"{pillow} {q(str(out / 'pillow-plain-1'))} {glob}"),
        "pillow-1": shell("pillow-1", f"{pillow} --draft {q(str(out / 'pillow-1'))} {glob}"),
        "vips-1": shell("vips-1", f"mkdir -p {q(str(out / 'vips-1'))} && VIPS_CONCURRENCY=1 vipsthumbnail {glob} "
                                  f"-s 256 -o {vips_out('vips-1')}"),
    }
    baseline = os.environ.get("COMPARE_BASELINE_HOARD") if section == "thumbnails" else None
    if baseline:  # the hoard built before the index, for "above today's ratio" and its inodes
        commands["before-1-cubic"] = hoard("before-1-cubic", 1, "catmull-rom", binary=baseline)
    if threads > 1:
        commands.update({
            "hoard-n": hoard("hoard-n", None),
            "hoard-n-cubic": hoard("hoard-n-cubic", None, "catmull-rom"),
            "pillow-plain-n": shell("pillow-plain-n", f"{pillow} --procs {threads} {q(str(out / 'pillow-plain-n'))} {glob}"),
            "pillow-n": shell("pillow-n", f"{pillow} --draft --procs {threads} {q(str(out / 'pillow-n'))} {glob}"),
            "vips-n": shell("vips-n", f"mkdir -p {q(str(out / 'vips-n'))} && ls {glob} | xargs -P{threads} "
                                      f"-n {max(1, count // threads)} vipsthumbnail -s 256 -o {vips_out('vips-n')}"),
            "vips-default": shell("vips-default", f"mkdir -p {q(str(out / 'vips-default'))} && vipsthumbnail {glob} "
                                                  f"-s 256 -o {vips_out('vips-default')}"),
        })
    return commands


def run_rounds(c, commands, count, out, section):
    """Rounds of one hyperfine call over every command (so the sides interleave); each command's times."""
    runs_per_round = 1 if c.quick else int(os.environ.get("COMPARE_THUMB_RUNS", "2"))
    times = {name: [] for name in commands}
    for index in range(c.reps):
        exported = out / f"hyperfine-{section}-{index}.json"
        command = ["hyperfine", "-N", "--warmup", "1", "--runs", str(runs_per_round), "--export-json", exported]
        for cmd, prepare in commands.values():
            command += ["--prepare", prepare]
        for name, (cmd, prepare) in commands.items():
            command += ["-n", name, cmd]
        c.run(command, section)
        for result in json.loads(exported.read_text())["results"]:
            times[result["command"]] += result["times"]
        shutil.copy(exported, c.run.logs / exported.name)
    for name in commands:
        outputs = list((out / name).glob("*.jpg"))
        if len(outputs) != count:
            raise RuntimeError(f"{name} wrote {len(outputs)} thumbnails for {count} inputs (see logs/{section}.log)")
    return times


def batch_fidelity(c, commands, lossless, folder, out, section):
    """name -> fidelity figures of each side (fidelity.py): PSNR of the side run once more writing
    PNG (LOSSLESS, the same commands but for the format), bytes of what its timed runs wrote."""
    references = fidelity.References(folder)
    figures = {}
    for name, (command, prepare) in lossless.items():
        c.run(prepare, section, shell=True)
        c.run(command, section, shell=True)
        measured = fidelity.measure(out / "png" / name, references)
        measured["bytes"] = sum(path.stat().st_size for path in (out / name).glob("*.jpg"))
        figures[name] = measured
    return figures


def faithful_rate_row(section, work_text, hoard_side, peer_side, target, others=(), note=""):
    """A row of images per second, met when its ratio is and Hoard is at least as faithful as the peer."""
    made = row(section, work_text, "img/s", hoard_side, peer_side, target=target, others=others, note=note)
    if made["met"] is not None:
        made["met"] = made["met"] and fidelity.at_least_as_faithful(hoard_side["fidelity"], peer_side["fidelity"])
    return made


# Targets by batch: against Pillow's thumbnail() as a user writes it, and against vipsthumbnail.
TARGETS = {"JPEG": (1.5, 2.0), "progressive JPEG": (2.0, 1.5)}


def thumbnail_batch(c, folder, extension, kind, out, section):
    """Cold batches over the *.EXTENSION files of FOLDER, 1 and N threads: hoard (Lanczos-3 and
    Catmull-Rom) against Pillow's thumbnail() as a user writes it, Pillow with draft() and
    vipsthumbnail, each side's fidelity and bytes in its label (fidelity.py); a row is met when its
    ratio is and Hoard is at least as faithful as the peer. Returns (rows, commands, count, the name
    of hoard's Lanczos-3 command at the most threads, and rate(name, label): a command's side in
    images per second, with its fidelity)."""
    count = len(list(folder.glob(f"*.{extension}")))
    threads = os.cpu_count() or 1
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    commands = batch_commands(c, folder, extension, count, out, section)
    times = run_rounds(c, commands, count, out, section)
    figures = batch_fidelity(c, commands, batch_commands(c, folder, extension, count, out / "png", section, png=True),
                             folder, out, section)

    rate = lambda name, label: fidelity.labelled(side(label, [count / t for t in times[name]]), figures[name])
    work = lambda n, peer: (f"thumbnails, {count} {kind} files -> 256 px JPEG q85, {n} thread{'s' if n > 1 else ''}, "
                            f"vs {peer}")
    pillow_target, vips_target = TARGETS.get(kind, (1.5, 1.5))

    faithful_row = lambda *arguments, **options: faithful_rate_row(section, *arguments, **options)

    rows = []
    h1 = rate("hoard-1", "hoard --concurrency 1, Lanczos-3 (cold)")
    h1_cubic = rate("hoard-1-cubic", "hoard --concurrency 1 --filter catmull-rom (cold)")
    pillow_1 = rate("pillow-1", "Pillow draft() + thumbnail(), 1 process")
    others, note = [], ""
    if "before-1-cubic" in commands:
        # What the last run of each left: its cache folder and the thumbnails it wrote.
        inodes = lambda name: sum(1 for _ in (out / (name + "-cache")).rglob("*")) + 1 + count + 1
        before = rate("before-1-cubic", "hoard before the index, same flags (cold)")
        others = [before]
        note = (f"before the index: {ratio_text(before['value'] / pillow_1['value'])}; inodes per batch "
                f"(cache folder and its files, output folder and thumbnails): {inodes('hoard-1-cubic')} now, "
                f"{inodes('before-1-cubic')} before")
    rows.append(faithful_row(work(1, "Pillow thumbnail()"), h1,
                             rate("pillow-plain-1", "Pillow thumbnail() (its reducing gap), 1 process"), pillow_target))
    rows.append(faithful_row(work(1, "vipsthumbnail"), h1, rate("vips-1", "VIPS_CONCURRENCY=1 vipsthumbnail"),
                             vips_target))
    # Pillow with draft() (the peer before issue 52) decodes as small as the box allows: less faithful,
    # so a row for reference, with no target.
    rows.append(faithful_row(work(1, "Pillow draft()") + ", bicubic", h1_cubic, pillow_1, None, others=others,
                             note=note))
    cold_name = "hoard-1"
    if threads > 1:
        hn = rate("hoard-n", "hoard, Lanczos-3 (cold)")
        hn_cubic = rate("hoard-n-cubic", "hoard --filter catmull-rom (cold)")
        rows.append(faithful_row(work(threads, "Pillow thumbnail()"), hn,
                                 rate("pillow-plain-n", f"Pillow thumbnail(), {threads} processes"), pillow_target))
        vips, others = best(rate("vips-n", f"{threads} x vipsthumbnail (xargs -P{threads})"),
                            rate("vips-default", "vipsthumbnail (default threads)"))
        rows.append(faithful_row(work(threads, "vipsthumbnail"), hn, vips, vips_target, others=others))
        rows.append(faithful_row(work(threads, "Pillow draft()") + ", bicubic", hn_cubic,
                                 rate("pillow-n", f"Pillow draft() + thumbnail(), {threads} processes"), None))
        cold_name = "hoard-n"
    return rows, commands, count, cold_name, rate


def measure_thumbnails(c):
    """File-to-file batches through hyperfine: hoard thumbnails, Pillow draft(), vipsthumbnail; then
    hoard's warm rerun."""
    out = RESULTS / "tmp" / "thumbs"
    rows, commands, count, cold_name, rate = thumbnail_batch(c, c.images / "batch_jpg", "jpg", "JPEG", out,
                                                              "thumbnails")
    threads = os.cpu_count() or 1
    # Warm rerun: the same command after one cold run, its cache and outputs kept.
    cmd, prepare = commands[cold_name]
    c.run(prepare, "thumbnails", shell=True)
    c.run(cmd, "thumbnails", shell=True)
    report = json.loads(c.run(cmd + " --json", "thumbnails", shell=True, stderr_apart=True))
    if report.get("fromCache") != count or report.get("made") != 0:
        raise RuntimeError(f"a warm rerun did not copy every thumbnail from the cache: made {report.get('made')}, "
                           f"from cache {report.get('fromCache')} of {count}")
    # The cold runs just wrote some 500 files: let the kernel write them back first (as before every
    # disk repetition), so that the warm figure measures the rerun, not the writeback beside it.
    os.sync()
    time.sleep(1)
    exported = out / "hyperfine-warm.json"
    c.run(["hyperfine", "-N", "--warmup", "3", "--runs", "5" if c.quick else "30", "--export-json", exported,
           "-n", f"{cold_name} warm", cmd], "thumbnails")
    shutil.copy(exported, c.run.logs / exported.name)
    warm = [count / t for t in json.loads(exported.read_text())["results"][0]["times"]]
    n = 1 if cold_name == "hoard-1" else threads
    rows.append(row("thumbnails", f"warm rerun of the same batch ({count} files), {n} thread{'s' if n > 1 else ''}",
                    "img/s", side("hoard, warm cache", warm), rate(cold_name, "hoard, cold (above)"),
                    target=20.0, note="ratio = cold time / warm time"))
    return rows


def measure_thumbnail_inputs(c):
    """The thumbnail batch again, from progressive JPEGs, WebP files and GIF files (rows as for JPEG, no
    warm rerun)."""
    other_formats(c.run, c.peers, c.images)
    rows = []
    for batch, extension, kind in (("batch_progressive", "jpg", "progressive JPEG"), ("batch_webp", "webp", "WebP"),
                                   ("batch_gif", "gif", "GIF")):
        out = RESULTS / "tmp" / f"thumbs-{batch}"
        rows += thumbnail_batch(c, c.images / batch, extension, kind, out, "thumbnail-inputs")[0]
        shutil.rmtree(out, ignore_errors=True)
    return rows


SECTIONS = [
    Section(
        "thumbnails", measure_thumbnails, frozenset({"hoard"}),
        "File to file, `hyperfine -N`, the 60-file `batch_jpg` (12 photos x 5, 1.3-4.9 MP), 256 px box, "
        "JPEG q85. Hoard's default (DCT scaling to twice the box, then Lanczos-3) against Pillow's "
        "`thumbnail()` as a user writes it (its own draft to twice the box, `reduce()`, bicubic) and against "
        "vipsthumbnail (shrink-on-load, then Lanczos-3); `hoard --filter catmull-rom` against Pillow with "
        "`draft()` to the box first (for reference, no target). Each side's fidelity (PSNR against a "
        "full-resolution Lanczos-3 thumbnail, from the side run once more writing PNG) and JPEG bytes are in "
        "its label; a row is met at equal or better fidelity (`hoardcompare/fidelity.py`). Hoard cold: cache folder and outputs removed by `--prepare`, and it "
        "also writes every thumbnail into its disk cache; peers' outputs removed by `--prepare`. 1 thread: `hoard "
        "--concurrency 1` (one input in flight, one decoder) vs `peers/pillow_thumbs.py --draft` vs "
        "`VIPS_CONCURRENCY=1 vipsthumbnail`; N threads "
        "(N = nproc): hoard's default (one decoder per core) vs `pillow_thumbs.py [--draft] --procs N` vs N "
        "x vipsthumbnail via `xargs -PN` or one vipsthumbnail with its default threads, whichever is "
        "faster. Rounds of one hyperfine call over all commands, alternated. Warm: the same hoard command "
        "after one cold run, without `--prepare` (every thumbnail copied from the cache), after `sync()` "
        "and 1 s, 3 warm-up runs then 30.",
        images=True),
    Section(
        "thumbnail-inputs", measure_thumbnail_inputs, frozenset({"hoard"}),
        "As **thumbnails** (same commands, filters, thread counts, outputs JPEG q85, cold), over the "
        "batch converted from `peers/prepare_images.py`'s lossless PNGs (its `--other-formats`): `batch_progressive` "
        "(Pillow `save(quality=90, subsampling=2, progressive=True)`: the baseline batch's settings, libjpeg's "
        "10-scan progressive script), `batch_webp` (`cwebp -q 90`, lossy, "
        "as the JPEGs are q90) and `batch_gif` (Pillow `save()`: adaptive 256-colour palette, one "
        "frame), 12 photos x 5 each. Pillow's `draft()` does nothing for WebP and GIF; Hoard scales "
        "still WebP while decoding (libwebp's `use_scaling`, the same power-of-two rule as JPEG's DCT "
        "scaling), vipsthumbnail shrinks WebP on load too; neither can for GIF.",
        images=True),
]
