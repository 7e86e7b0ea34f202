"""scaling: 1, 2 and 4 `hoard thumbnails` processes on the same photos over loopback HTTP, without and
with one shared Redis (--remote)."""
import contextlib
import http.server
import json
import os
import shlex
import shutil
import statistics
import subprocess
import threading
import time

from .redis import RedisServer
from .report import row, side
from .runner import RESULTS, Section, log

SCALING_WORKERS = [1, 2, 4]


class PhotoServer:
    """The batch's photos over HTTP/1.1 on a free loopback port, in a thread; counts the GETs it
    answers (the downloads)."""

    def __init__(self, folder):
        server = self
        self.lock, self.count = threading.Lock(), 0

        class Handler(http.server.SimpleHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as a real image host

            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(folder), **kwargs)

            def do_GET(self):
                with server.lock:
                    server.count += 1
                super().do_GET()

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            # socketserver's backlog is 5: 4 processes x 8 downloads connecting at once overflow it, and a
            # dropped SYN is retried after 1 s, which a run then waits for (in its downloads or at exit).
            request_queue_size = 128
            daemon_threads = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def take_count(self):
        with self.lock:
            count, self.count = self.count, 0
        return count


def run_workers(c, hoard, workers, urls, run_dir, remote, env):
    """Starts `workers` hoard thumbnails processes at once; their wall time and summed JSON summaries."""
    processes = []
    start = time.monotonic()
    for index in range(workers):
        command = [str(hoard), "thumbnails", "--size", "256", "--quality", "85", "--format", "jpeg",
                   "--cache", str(run_dir / f"cache-{index}"), "--output", str(run_dir / f"out-{index}"),
                   "--json", "--list", str(urls)]
        if remote:
            command += ["--remote", remote, "--remote-required"]
        stdout = open(run_dir / f"stdout-{index}.json", "w")
        stderr = open(run_dir / f"stderr-{index}.log", "w")
        processes.append((command, subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env), stdout, stderr))
    for _, process, stdout, stderr in processes:
        process.wait()
        stdout.close()
        stderr.close()
    wall = time.monotonic() - start
    totals = {"wall": wall, "decodes": 0, "fromCache": 0, "remoteHits": 0, "remoteWaits": 0, "remoteErrors": 0}
    for index, (command, process, _, _) in enumerate(processes):
        errors = (run_dir / f"stderr-{index}.log").read_text()
        with open(c.run.logs / "scaling.log", "a") as f:
            f.write(f"\n$ {' '.join(shlex.quote(a) for a in command)}  # {workers} at once, exit {process.returncode}\n"
                    f"{errors}")
        try:
            summary = json.loads((run_dir / f"stdout-{index}.json").read_text())
        except ValueError:
            summary = None
        if process.returncode != 0 or not summary or summary.get("failed"):
            raise RuntimeError(f"hoard thumbnails exited {process.returncode} with {workers} workers"
                               f"{' and --remote' if remote else ''} (see logs/scaling.log):\n{errors[-1500:]}")
        totals["decodes"] += summary["made"]
        for key in ("fromCache", "remoteHits", "remoteWaits", "remoteErrors"):
            totals[key] += summary.get(key, 0)
    if totals["remoteErrors"]:
        raise RuntimeError(f"{totals['remoteErrors']} Redis errors with {workers} workers (see logs/scaling.log)")
    return totals


def scaling_table(figures, count, reps, has_remote):
    """The section's own table: every configuration's medians, then every run's figures."""
    median = statistics.median
    lines = ["| workers | shared Redis | downloads (HTTP GETs) | decodes (made) | from cache | from Redis | "
             "waits for another worker | wall time |", "|--:|:-:|--:|--:|--:|--:|--:|--:|"]
    for (workers, remote), f in sorted(figures.items()):
        lines.append(f"| {workers} | {'yes' if remote else 'no'} | {median(f['downloads']):.0f} | "
                     f"{median(f['decodes']):.0f} | {median(f['fromCache']):.0f} | {median(f['remoteHits']):.0f} | "
                     f"{median(f['remoteWaits']):.0f} | {median(f['wall']):.2f} s |")
    runs = ", ".join(f"{w}{'+redis' if r else ''}: downloads {f['downloads']} decodes {f['decodes']} "
                     f"wall {[round(x, 2) for x in f['wall']]}" for (w, r), f in sorted(figures.items()))
    return {
        "title": f"Scaling: worker processes, {count} photos over loopback HTTP (medians of {reps} round(s))",
        "lines": lines + ["", f"Every run: {runs}"] + ([] if has_remote else [
            "", "The shared-Redis runs are missing: this hoard has no `thumbnails --remote`."]),
    }


def measure_scaling(c):
    """1, 2 and 4 `hoard thumbnails` processes at once, each with its own cache folder, on the same
    60 photos served over loopback HTTP, without and with one shared Redis (--remote)."""
    hoard = c.tools["hoard"]
    help_text = c.run([hoard, "thumbnails", "--help"], "scaling")
    has_remote = "--remote " in help_text or "--remote <" in help_text
    if not has_remote:
        log("!! this hoard thumbnails has no --remote: only the runs without a shared Redis")
    files = sorted((c.images / "batch_jpg").glob("*.jpg"))
    out = RESULTS / "tmp" / "scaling"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOARD_REMOTE")}
    modes = [False, True] if has_remote else [False]
    figures = {}  # (workers, remote) -> {"wall": [...], "downloads": [...], "decodes": [...], ...}

    with contextlib.ExitStack() as stack:
        photos = stack.enter_context(PhotoServer(c.images / "batch_jpg"))
        redis = stack.enter_context(RedisServer(RESULTS / "tmp" / "scaling-redis", c.run.logs / "redis-server.log")) \
            if has_remote else None
        urls = out / "urls.txt"
        urls.write_text("".join(f"http://127.0.0.1:{photos.port}/{f.name}\n" for f in files))
        for _ in range(c.reps):  # rounds: every configuration once, alternating with and without
            for workers in SCALING_WORKERS:
                for remote in modes:
                    run_dir = out / "run"
                    shutil.rmtree(run_dir, ignore_errors=True)
                    run_dir.mkdir()
                    if remote and redis.cli("FLUSHALL") != "OK":
                        raise RuntimeError("redis-cli FLUSHALL failed")
                    photos.take_count()
                    os.sync()  # the previous run's files are written back first, as before every disk rep
                    time.sleep(1)
                    figure = run_workers(c, hoard, workers, urls, run_dir, redis.url if remote else None, env)
                    figure["downloads"] = photos.take_count()
                    for name, value in figure.items():
                        figures.setdefault((workers, remote), {}).setdefault(name, []).append(value)
        shutil.rmtree(out, ignore_errors=True)

    count = len(files)
    c.tables["scaling"] = scaling_table(figures, count, c.reps, has_remote)
    rows = []
    if has_remote:
        for workers in SCALING_WORKERS:
            with_redis, alone = figures[(workers, True)], figures[(workers, False)]
            label = lambda remote: f"{workers} x hoard thumbnails" + (", one shared --remote" if remote else
                                                                        ", local caches only")
            for metric, unit, key in (("downloads", "downloads", "downloads"), ("decodes", "decodes", "decodes"),
                                      ("wall time", "s", "wall")):
                rows.append(row("scaling", f"{metric}, {workers} worker process{'es' if workers > 1 else ''}, "
                                           f"{count} photos over loopback HTTP", unit,
                                side(label(True), with_redis[key]), side(label(False), alone[key]),
                                better="lower", note="ratio = with the shared Redis / without"))
    return rows


SECTIONS = [Section(
    "scaling", measure_scaling, frozenset({"hoard"}),
    "The 60-file `batch_jpg` served by a Python HTTP/1.1 server on a loopback port (inside compare, "
    "counting GETs: the downloads). 1, 2 and 4 `hoard thumbnails --size 256 --quality 85 --format jpeg "
    "--json --list URLS` processes started at once, each with its own fresh `--cache` and `--output` "
    "folder, default concurrency; without, then with, `--remote redis://127.0.0.1:PORT "
    "--remote-required` on one throwaway redis-server (`FLUSHALL` before each run). Decodes are the "
    "`made` counts of the processes' `--json` summaries (the others are `fromCache`), wall time from "
    "the first start to the last exit. `sync()` and 1 s before every run; rounds over all six "
    "configurations, medians.",
    images=True)]
