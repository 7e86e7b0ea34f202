#!/usr/bin/env python3
"""Warm answers of `hoard serve` (from memory, and from disk with --memory-limit 0) against nginx with
sendfile, alternated: the serve section's 32-connection rows, but every side runs in every round, in a
rotating order, so that the VM's drift falls on all of them alike.

    Benchmarks/probes/serve-warm-ab.py HOARD ROUNDS [SECONDS] [HOARD2]

HOARD is a release `hoard`; HOARD2, when given, runs as another side (another build's memory answers);
with $SERVE_FLOOR (a built `ServeFloor` of Benchmarks/probes/serve-floor) the floor runs as one more.
Needs Benchmarks/.results/img/batch_jpg (any `Benchmarks/compare` run with images makes it). Prints each
round's requests/s and the medians with their ratios to nginx."""
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hoardcompare.redis import free_port  # noqa: E402
from hoardcompare.serve import WARM_BOX, WARM_CONNECTIONS, WRK_SCRIPT, nginx_config, wait_for  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / ".results"


def wrk(base, paths_file, script, seconds):
    out = subprocess.run(["env", f"WRK_PATHS={paths_file}", "WRK_CLIENTS=2", "wrk", "-t", "2", "-c",
                          str(WARM_CONNECTIONS), "-d", f"{seconds}s", "-s", str(script), base],
                         capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("rps "))
    fields = line.split()
    if int(fields[fields.index("bad") + 1]):
        raise RuntimeError(f"non-2xx answers from {base}: {line}")
    return float(fields[1])


def main():
    hoard, rounds = sys.argv[1], int(sys.argv[2])
    seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    other = sys.argv[4] if len(sys.argv) > 4 else None
    batch = RESULTS / "img" / "batch_jpg"
    names = sorted(p.name for p in batch.iterdir() if p.suffix == ".jpg")
    folder = RESULTS / "tmp" / "serve-warm-ab"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "static").mkdir(parents=True)
    ports = {n: free_port() for n in ("origin", "resizer", "front", "sendfile", "memory", "disk", "other", "floor")}
    (folder / "nginx.conf").write_text(
        nginx_config(folder, ports["origin"], ports["resizer"], ports["front"], ports["sendfile"], batch))
    origin = f"http://127.0.0.1:{ports['origin']}"
    paths = [f"/unsafe/w:{WARM_BOX}/q:80/f:jpeg/plain/" + urllib.parse.quote(f"{origin}/{n}", safe="") for n in names]
    script = folder / "wrk.lua"
    script.write_text(WRK_SCRIPT)
    processes = [subprocess.Popen(["nginx", "-c", folder / "nginx.conf", "-p", folder],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    sides = {"memory": (hoard, []), "disk": (hoard, ["--memory-limit", "0"])}
    if other:
        sides["other"] = (other, [])
    try:
        wait_for(f"{origin}/{names[0]}")
        for side, (binary, extra) in sides.items():
            processes.append(subprocess.Popen(
                [binary, "serve", "--bind", f"127.0.0.1:{ports[side]}", "--cache", folder / f"cache-{side}",
                 "--allow-source", origin + "/", "--allow-unsigned", "--decode-concurrency", "2"] + extra,
                env={"HOARD_LOG_LEVEL": "warning"}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            base = f"http://127.0.0.1:{ports[side]}"
            wait_for(base + "/health")
            for name, path in zip(names, paths):
                with urllib.request.urlopen(base + path, timeout=60) as response:
                    (folder / "static" / f"{WARM_BOX}-{name}").write_bytes(response.read())
        bases = {side: (f"http://127.0.0.1:{ports[side]}", paths) for side in sides}
        if os.environ.get("SERVE_FLOOR"):
            (folder / "floor").mkdir()
            for name in names:
                shutil.copy(folder / "static" / f"{WARM_BOX}-{name}", folder / "floor" / name)
            (folder / "floor.paths").write_text("\n".join(paths) + "\n")
            processes.append(subprocess.Popen([os.environ["SERVE_FLOOR"], str(ports["floor"]), folder / "floor.paths",
                                               folder / "floor"], stdout=subprocess.DEVNULL))
            time.sleep(1)
            bases["floor"] = (f"http://127.0.0.1:{ports['floor']}", paths)
        bases["nginx"] = (f"http://127.0.0.1:{ports['sendfile']}", [f"/static/{WARM_BOX}-{n}" for n in names])
        files = {}
        for side, (_, side_paths) in bases.items():
            files[side] = folder / f"{side}.paths"
            files[side].write_text("\n".join(side_paths) + "\n")
        order = list(bases)
        figures = {side: [] for side in order}
        for round_ in range(rounds):
            turn = order[round_ % len(order):] + order[:round_ % len(order)]
            for side in turn:
                figures[side].append(wrk(bases[side][0], files[side], script, seconds))
            print(f"round {round_ + 1}: " + "  ".join(f"{s} {figures[s][-1]:,.0f}" for s in order), flush=True)
        nginx = statistics.median(figures["nginx"])
        for side in order:
            median = statistics.median(figures[side])
            print(f"{side:7} median {median:9,.0f} req/s  {median / nginx:.3f}x nginx (sendfile)")
    finally:
        for process in processes:
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
