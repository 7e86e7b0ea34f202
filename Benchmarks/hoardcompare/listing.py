"""listing: `hoard cache stats` and `list` on 100,000 entries, against the hoard built before the index."""
import json
import os
import shlex
import shutil
import time

from .report import row, side
from .runner import RESULTS, Section

LISTING_ENTRIES = 100_000


def measure_listing(c):
    """hoard cache stats and list on 100,000 entries: this build on a cache it made, against the hoard
    built before the index ($COMPARE_BASELINE_HOARD) on the same entries as it wrote them (format 1),
    interleaved in one hyperfine call."""
    baseline = os.environ.get("COMPARE_BASELINE_HOARD")
    if not baseline:
        raise RuntimeError("the listing section needs $COMPARE_BASELINE_HOARD: a hoard built before the index")
    base = RESULTS / "tmp" / "listing"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    old, new = base / "format-1", base / "format-2"
    c.run([c.tools["measure"], "populate", old, str(LISTING_ENTRIES), "1024", "--earlier-format"], "listing")
    c.run([c.tools["measure"], "populate", new, str(LISTING_ENTRIES), "1024"], "listing")
    os.sync()
    time.sleep(1)
    commands = {}
    for verb in ("stats", "list"):
        commands[f"{verb}-before"] = f"{shlex.quote(baseline)} cache {verb} --cache {shlex.quote(str(old))}"
        commands[f"{verb}-now"] = f"{shlex.quote(str(c.tools['hoard']))} cache {verb} --cache {shlex.quote(str(new))}"
    exported = base / "hyperfine-listing.json"
    command = ["hyperfine", "-N", "--warmup", "1", "--runs", "3" if c.quick else str(2 + 2 * c.reps),
               "--export-json", exported]
    for name, cmd in commands.items():
        command += ["-n", name, cmd]
    c.run(command, "listing")
    shutil.copy(exported, c.run.logs / exported.name)
    times = {r["command"]: r["times"] for r in json.loads(exported.read_text())["results"]}
    rows = []
    for verb in ("stats", "list"):
        rows.append(row("listing", f"hoard cache {verb}, {LISTING_ENTRIES:,} entries of 1 KiB", "runs/s",
                        side("hoard (index)", [1 / t for t in times[f"{verb}-now"]]),
                        side("hoard before the index (a file per entry)", [1 / t for t in times[f"{verb}-before"]]),
                        target=10.0))
    shutil.rmtree(base, ignore_errors=True)
    return rows


SECTIONS = [Section(
    "listing", measure_listing, frozenset({"measure", "hoard"}),
    "`hoard cache stats` and `hoard cache list` on 100,000 entries of 1 KiB made by `HoardMeasure "
    "populate`: this build on a cache of the current format, against `$COMPARE_BASELINE_HOARD` (the hoard "
    "of the commit before the index) on the same entries written as that format wrote them (a file per "
    "entry); one `hyperfine -N` call over the four commands, so the sides alternate; `sync()` first.")]
