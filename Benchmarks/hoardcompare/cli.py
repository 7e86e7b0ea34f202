"""Hoard beside its peers: one table of ratios, on the same inputs, in the same run.

Builds the hoard tool and HoardMeasure in release mode, installs the peers when missing (apt-get,
pip), prepares the photos with Benchmarks/peers/prepare_images.py, then measures each section with
Hoard and its peers alternating (A B A B), and prints one markdown table: work, Hoard's figure, the
peer's figure, the ratio and the target. Everything lands in Benchmarks/.results/<timestamp>/
(table.md, results.md: RESULTS.md's shape, results.json, chart.png, logs/) with Benchmarks/.results/latest pointing at it.

Sections (--only takes a comma-separated list): memory, disk, manager (the Hoard manager against
$COMPARE_BASELINE_MEASURE's), disk-scale, listing (hoard cache stats and list on 100,000
entries), codec, thumbnails, thumbnail-inputs (the same batch from progressive JPEG, WebP and GIF files),
colour (the same batch converted to Display P3, profile embedded, thumbnails converted to sRGB), webp-decode,
peak, redis, scaling, serve (hoard serve vs thumbor and nginx image_filter behind an nginx origin, with wrk;
warm rows against nginx static files; a fleet of two servers sharing Redis).
Repetitions per side: --reps, else $COMPARE_REPS, else 3; --quick means 1 (for development only).
Environment: PEERS (the peers' scripts, default Benchmarks/peers), HOARD_STATIC=0
(build the hoard tool without --static-swift-stdlib, unlike scripts/hoard), COMPARE_REPS, COMPARE_THUMB_RUNS
(hyperfine runs per command per round of the thumbnail section, default 2; 1 with --quick), COMPARE_HOARD_BIN
(a hoard binary to use instead of building one), COMPARE_REDIS_SECONDS (seconds per figure of the redis
section, default 2; 1 with --quick), COMPARE_BASELINE_MEASURE and COMPARE_BASELINE_HOARD (HoardMeasure and
hoard built from an earlier commit: the disk and manager sections measure the first beside this build, the listing section
needs the second, and the 1-thread JPEG thumbnail batch adds it), COMPARE_BASELINE_LABEL (what the disk rows
call that baseline, default "before the index").
"""
import argparse
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import (avif, codec, colour, disk, diskscale, document, listing, manager, memory, peak, redis, scaling, serve,
               thumbnails)
from .inputs import prepare_images
from .machine import machine, versions
from .report import render_table
from .runner import BENCHMARKS, PEERS, PYTHON, RESULTS, SHM_BASE, Context, Runner, log
from .tools import build, install_peers

AREAS = [memory, disk, manager, diskscale, listing, codec, thumbnails, avif, colour, peak, redis, scaling, serve]
# The sections by name, in the order of the table's "What each side does" list and of a run without --only.
ORDER = ["memory", "disk", "manager", "disk-scale", "listing", "codec", "thumbnails", "thumbnail-inputs", "avif", "smart-crop", "colour", "webp-decode", "peak",
         "redis", "scaling", "serve"]
SECTIONS = dict(sorted(((s.name, s) for area in AREAS for s in area.SECTIONS), key=lambda item: ORDER.index(item[0])))
# The scripts and sources the sections run from $PEERS.
PEER_FILES = ["diskcache_bench.py", "diskcache_scale.py", "memcache_bench.swift", "tjbench_codec.py", "pngbench.c", "pillow_thumbs.py",
              "pillow_cms_thumbs.py", "pillow_avif.py", "prepare_images.py"]
ENVIRONMENT = ["COMPARE_REPS", "HOARD_STATIC", "PEERS", "COMPARE_HOARD_BIN", "COMPARE_REDIS_SECONDS",
               "COMPARE_BASELINE_MEASURE", "COMPARE_BASELINE_HOARD", "COMPARE_BASELINE_LABEL"]


def parse_arguments():
    """The options; .sections: the chosen section names, in the order given; .reps: repetitions per side."""
    parser = argparse.ArgumentParser(prog="compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1 repetition per side (development only)")
    parser.add_argument("--reps", type=int, help="repetitions per side (default $COMPARE_REPS or 3)")
    parser.add_argument("--only", default=",".join(ORDER), help="comma-separated sections: " + ", ".join(ORDER))
    parser.add_argument("--no-build", action="store_true", help="use the binaries already built")
    parser.add_argument("--no-install", action="store_true", help="do not apt-get/pip install missing peers")
    args = parser.parse_args()
    args.sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(ORDER)}")
    args.reps = 1 if args.quick else (args.reps or int(os.environ.get("COMPARE_REPS", "3")))
    if args.reps < 1:
        parser.error("repetitions must be at least 1")
    return args


def peers_folder():
    """$PEERS, or Benchmarks/peers; exits when a script a section runs is not there."""
    peers = Path(os.environ.get("PEERS", PEERS)).resolve()
    missing = [n for n in PEER_FILES if not (peers / n).is_file()]
    if missing:
        sys.exit(f"compare: the peers' scripts are not in {peers} (missing {', '.join(missing)}); "
                 f"unset PEERS to use {PEERS}")
    return peers


def new_results_folder():
    """Benchmarks/.results/<timestamp>/logs, with Benchmarks/.results/latest pointing at it."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = RESULTS / stamp
    (out / "logs").mkdir(parents=True, exist_ok=True)
    latest = RESULTS / "latest"
    if latest.is_symlink() or latest.exists():
        latest.unlink()
    latest.symlink_to(stamp)
    return out


def main():
    args = parse_arguments()
    peers = peers_folder()
    started = time.monotonic()
    out = new_results_folder()
    run = Runner(out / "logs")
    chosen = [SECTIONS[name] for name in args.sections]

    if not args.no_install:
        install_peers(run)
    tools = build(run, peers, skip=args.no_build, needed=set().union(*(s.tools for s in chosen)))
    images = prepare_images(run, peers) if any(s.images for s in chosen) else None

    context = Context(run=run, tools=tools, peers=peers, images=images, reps=args.reps, quick=args.quick)
    rows, errors, timings = [], {}, {"setup": round(time.monotonic() - started, 1)}
    for section in chosen:
        log(f"== {section.name} ({args.reps} rep{'s' if args.reps > 1 else ''} per side)")
        section_started = time.monotonic()
        try:
            rows += section.measure(context)
        except Exception as error:  # one failing section does not lose the others' numbers
            errors[section.name] = f"{type(error).__name__}: {error}"
            log(f"!! {section.name} failed: {errors[section.name]}")
        timings[section.name] = round(time.monotonic() - section_started, 1)
    shutil.rmtree(SHM_BASE, ignore_errors=True)

    results = {
        "machine": machine(),
        "command": " ".join(shlex.quote(a) for a in [str(Path(sys.argv[0]))] + sys.argv[1:]),
        "environment": {k: os.environ[k] for k in ENVIRONMENT if k in os.environ},
        "reps": args.reps,
        "quick": args.quick,
        "versions": versions(tools),
        "rows": rows,
        "tables": context.tables,
        "errors": errors,
        "sides": {name: section.sides for name, section in SECTIONS.items()},
        "seconds": round(time.monotonic() - started, 1),
        "section_seconds": timings,
    }
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    table = render_table(results)
    (out / "table.md").write_text(table)
    (out / "results.md").write_text(document.render(results))
    chart = subprocess.run([PYTHON, str(BENCHMARKS / "hoardcompare" / "chart.py"), str(out / "results.json"),
                            str(out / "chart.png")], capture_output=True, text=True)
    if chart.returncode != 0:
        log(f"!! the chart failed:\n{chart.stderr}")
    print(table)
    log(f"results in {out} (also {RESULTS / 'latest'}); {results['seconds']:.0f} s")
    sys.exit(1 if errors or chart.returncode != 0 else 0)
