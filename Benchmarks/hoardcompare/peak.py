"""peak: resident-memory growth while making one thumbnail of a 12 MP JPEG, against its RGBA raster."""
import re
import shutil
import statistics

from .report import row, side
from .runner import RESULTS, Section


def max_rss(c, command):
    """The peak resident size of COMMAND in MiB, as /usr/bin/time -f %M reports it."""
    text = c.run(["/usr/bin/time", "-f", "maxrss %M"] + command, "peak")
    return int(re.findall(r"^maxrss (\d+)$", text, re.M)[-1]) / 1024


def measure_peak(c):
    """HoardMeasure peak on the 4000x3000 JPEG; then the whole tool's peak against `hoard --version`'s."""
    big = c.images / "big_4000x3000.jpg"
    growth, raster = [], None
    for _ in range(c.reps):
        text = c.run([c.tools["measure"], "peak", big, "--size", "256", "--quality", "85"], "peak")
        m = re.search(r"growth (-?\d+) KiB = [\d.]+ of the (\d+)-byte RGBA raster", text)
        if not m:
            raise RuntimeError("no figure in HoardMeasure peak's output (see logs/peak.log)")
        growth.append(int(m.group(1)) / 1024)
        raster = int(m.group(2)) / 1024 / 1024
    rows = [row("peak", "peak memory growth, one 4000x3000 JPEG -> 256 px JPEG (in process)", "MiB",
                side("Image.thumbnail + jpegData", growth), side("its RGBA raster (4 B/px)", [raster]),
                target=0.25, better="lower", note="ratio = growth / raster")]

    # Context: the whole tool, as /usr/bin/time sees it, against the same binary doing nothing.
    out = RESULTS / "tmp" / "peak"
    idle, busy = [], []
    for _ in range(c.reps):
        shutil.rmtree(out, ignore_errors=True)
        idle.append(max_rss(c, [c.tools["hoard"], "--version"]))
        busy.append(max_rss(c, [c.tools["hoard"], "thumbnails", "--size", "256", "--quality", "85", "--format", "jpeg",
                                "--cache", out / "cache", "--output", out / "out", big]))
    shutil.rmtree(out, ignore_errors=True)
    rows.append(row("peak", "hoard thumbnails process, same file: max RSS minus `hoard --version`'s", "MiB",
                    side("hoard thumbnails (cold)", [b - i for b, i in zip(busy, idle)]),
                    side("its RGBA raster (4 B/px)", [raster]), better="lower",
                    note=f"/usr/bin/time -f %M: thumbnails {statistics.median(busy):.1f} MiB, "
                         f"--version {statistics.median(idle):.1f} MiB"))
    return rows


SECTIONS = [Section(
    "peak", measure_peak, frozenset({"measure", "hoard"}),
    "HoardMeasure peak: peak resident size (`VmHWM`, reset through `/proc/self/clear_refs`) minus the resident "
    "size before `Data(contentsOf:)` + `Image.thumbnail(from:fittingIn: 256)` + `jpegData(quality: 85)` of "
    "a 4000x3000 baseline q90 4:2:0 JPEG made from Aqua with Pillow (`peers/prepare_images.py`), against its "
    "48 MB RGBA raster. Context: `/usr/bin/time -f %M` of `hoard thumbnails` on that file minus `hoard --version`'s.",
    images=True)]
