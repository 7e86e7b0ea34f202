"""serve: `hoard serve` against thumbor and nginx's image_filter, in the setup of imgproxy's image-server
benchmark: the 60-photo batch served by nginx on loopback as the origin, fit in 512x512, JPEG quality 80
(and a WebP row), two concurrent connections (one per core), a fixed time per side, wrk for every side."""
import os
import re
import shutil
import statistics
import subprocess
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from . import fidelity
from .redis import RedisServer, free_port
from .report import row, side
from .runner import RESULTS, Section, stop_server

SECONDS = 10  # per side and repetition
CONNECTIONS = 2
BOX = 512
COLD_TARGET = 1.5
WARM_TARGET = 0.5
# Warm against nginx as Debian configures it (sendfile, tcp_nopush, open_file_cache), many connections.
WARM_CONNECTIONS = 32
WARM_BOX = 256
SENDFILE_TARGETS = {"memory": 0.6, "disk": 0.45}
IMAGE_FILTER = "/usr/lib/nginx/modules/ngx_http_image_filter_module.so"

# wrk: the paths of a file, taken in turn by every connection (so no path repeats until all are
# used), with Accept from the environment; prints requests/s, p50, p95 (ms) and non-2xx answers.
WRK_SCRIPT = r"""
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local accept = os.getenv("WRK_ACCEPT") or "image/jpeg"
local created, counter, step = 0, 0, 1
function setup(thread)
  thread:set("first", created)
  created = created + 1
end
function init(args)
  -- Each thread has its own Lua state: the number of threads comes from the environment.
  counter = first
  step = tonumber(os.getenv("WRK_CLIENTS"))
end
function request()
  counter = counter + step
  return wrk.format("GET", paths[(counter % #paths) + 1], {["Accept"] = accept})
end
function done(summary, latency, requests)
  io.write(string.format("rps %.2f p50 %.3f p95 %.3f bad %d requests %d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(95) / 1000, summary.errors.status + summary.errors.connect + summary.errors.read, summary.requests))
end
"""


def wait_for(url, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {seconds} s")


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        m = re.search(r"^VmHWM:\s+(\d+) kB", status.read(), re.M)
    return int(m.group(1)) / 1024 if m else None


class Process:
    """A server process started with its output in the log, stopped by its PID."""

    def __init__(self, command, log_path, env=None):
        self.command, self.log_path, self.env = [str(a) for a in command], log_path, env

    def __enter__(self):
        with open(self.log_path, "a") as log_file:
            self.process = subprocess.Popen(self.command, stdout=log_file, stderr=subprocess.STDOUT,
                                            env={**os.environ, **(self.env or {})})
        return self

    def __exit__(self, *exc):
        stop_server(self.process, 15)

    @property
    def pid(self):
        return self.process.pid


def nginx_config(folder, origin_port, resizer_port, front_port, sendfile_port, batch):
    """The origin (static files), a resizer (image_filter, fit in W x W at q80, WebP not supported by
    the module), and a front with proxy_cache before the resizer; plus two static servers of FOLDER/static:
    the front's (nginx's defaults: no sendfile), and one configured as Debian's nginx.conf and its usual
    tuning are (sendfile, tcp_nopush, open_file_cache)."""
    return f"""
load_module {IMAGE_FILTER};
worker_processes 2;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {folder}/body;
  proxy_temp_path {folder}/proxy;
  fastcgi_temp_path {folder}/fastcgi;
  uwsgi_temp_path {folder}/uwsgi;
  scgi_temp_path {folder}/scgi;
  proxy_cache_path {folder}/cache levels=1:2 keys_zone=thumbs:10m max_size=1g inactive=1h use_temp_path=off;
  server {{ listen 127.0.0.1:{origin_port}; root {batch}; }}
  server {{
    listen 127.0.0.1:{resizer_port};
    location ~ ^/(?<w>\\d+)/(?<name>[^/]+)$ {{
      proxy_pass http://127.0.0.1:{origin_port}/$name;
      image_filter resize $w $w;
      image_filter_jpeg_quality 80;
      image_filter_buffer 32M;
    }}
  }}
  server {{
    listen 127.0.0.1:{front_port};
    location /static/ {{ alias {folder}/static/; }}
    location / {{
      proxy_pass http://127.0.0.1:{resizer_port};
      proxy_cache thumbs;
      proxy_cache_valid 200 1h;
    }}
  }}
  server {{
    listen 127.0.0.1:{sendfile_port};
    root {folder};
    sendfile on;
    tcp_nopush on;
    open_file_cache max=1000 inactive=60s;
    open_file_cache_valid 60s;
  }}
}}
"""


def thumbor_config(folder):
    return f"""
ALLOW_UNSAFE_URL = True
QUALITY = 80
AUTO_WEBP = False
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
FILE_STORAGE_ROOT_PATH = '{folder}/storage'
HTTP_LOADER_MAX_CLIENTS = 64
ENGINE_THREADPOOL_SIZE = 2
"""


def run_wrk(c, base, paths, folder, name, accept="image/jpeg", clients=CONNECTIONS, count=False, threads=None):
    """wrk for SECONDS on PATHS against BASE with CLIENTS connections on THREADS threads (one per
    connection by default): (requests/s, p50 ms, p95 ms, non-2xx count), and with COUNT the number of
    requests."""
    threads = threads or clients
    paths_file = folder / f"{name}.paths"
    paths_file.write_text("\n".join(paths) + "\n")
    script = folder / f"{name}.lua"  # one per run: the fleet's clients start at once
    script.write_text(WRK_SCRIPT)
    text = c.run(["env", f"WRK_PATHS={paths_file}", f"WRK_ACCEPT={accept}", f"WRK_CLIENTS={threads}", "wrk", "-t", threads,
                  "-c", clients, "-d", f"{SECONDS}s", "--timeout", "30s", "-s", script, base], "serve")
    m = re.search(r"^rps ([\d.]+) p50 ([\d.]+) p95 ([\d.]+) bad (\d+) requests (\d+)$", text, re.M)
    if not m:
        raise RuntimeError("no figure in wrk's output (see logs/serve.log)")
    figures = float(m.group(1)), float(m.group(2)), float(m.group(3)), int(m.group(4))
    return figures + (int(m.group(5)),) if count else figures


def run_wrk_clients(c, bases, paths, folder, name):
    """One wrk client (1 thread, 1 connection) per base at once, each walking all of PATHS in order, so every
    variant is asked for once per client: (requests/s summed, p95 ms of the slower client, non-2xx answers,
    requests)."""
    with ThreadPoolExecutor(len(bases)) as pool:
        figures = list(pool.map(lambda ib: run_wrk(c, ib[1], paths, folder, f"{name}-{ib[0]}", clients=1, count=True),
                                enumerate(bases)))
    return (sum(f[0] for f in figures), max(f[2] for f in figures), sum(f[3] for f in figures),
            sum(f[4] for f in figures))


def decode_count(base):
    """Decodes the server made so far, from its /metrics page."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as response:
        text = response.read().decode()
    m = re.search(r'^hoard_serve_duration_seconds_count\{stage="decode"\} (\d+)', text, re.M)
    if not m:
        if "hoard_serve_requests_total" in text:
            return 0  # no decode yet: the metric appears with the first
        raise RuntimeError(f"{base}/metrics has no decode count")
    return int(m.group(1))


def cold_widths(count):
    """COUNT distinct box sides from BOX down: each (photo, side) pair is a variant never made before."""
    return [BOX - i for i in range(count)]


def measure_serve(c):
    """Cold and warm rows of hoard serve against thumbor and nginx image_filter + proxy_cache."""
    for tool in ("nginx", "wrk"):
        if not shutil.which(tool):
            raise RuntimeError(f"{tool} is not installed (apt-get install nginx libnginx-mod-http-image-filter wrk)")
    if not os.path.exists(IMAGE_FILTER):
        raise RuntimeError("nginx's image_filter module is missing (apt-get install libnginx-mod-http-image-filter)")
    thumbor = shutil.which("thumbor")
    batch = c.images / "batch_jpg"
    names = sorted(p.name for p in batch.iterdir() if p.suffix == ".jpg")
    folder = RESULTS / "tmp" / "serve"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "static").mkdir(parents=True)
    ports = {name: free_port() for name in ("origin", "resizer", "front", "sendfile", "hoard", "hoard2", "thumbor")}
    (folder / "nginx.conf").write_text(
        nginx_config(folder, ports["origin"], ports["resizer"], ports["front"], ports["sendfile"], batch))
    (folder / "thumbor.conf").write_text(thumbor_config(folder))
    origin = f"http://127.0.0.1:{ports['origin']}"
    hoard_path = lambda name, w, fmt: f"/unsafe/w:{w}/q:80/f:{fmt}/plain/" + urllib.parse.quote(
        f"{origin}/{name}", safe="")
    thumbor_path = lambda name, w, fmt: f"/unsafe/fit-in/{w}x{w}/filters:quality(80)" + (
        ":format(webp)" if fmt == "webp" else "") + f"/127.0.0.1:{ports['origin']}/{name}"
    nginx_path = lambda name, w, fmt: f"/{w}/{name}"
    widths = cold_widths(40)
    results = {}

    def hoard_server(cache, extra=(), port=ports["hoard"]):
        return Process([c.tools["hoard"], "serve", "--bind", f"127.0.0.1:{port}", "--cache", cache,
                        "--allow-source", origin + "/", "--allow-unsigned", "--decode-concurrency", "2",
                        "--queue", "64", "--max-pixels", "100000000"] + list(extra),
                       c.run.logs / "hoard-serve.log", env={"HOARD_LOG_LEVEL": "warning"})

    with Process(["nginx", "-c", folder / "nginx.conf", "-p", folder], c.run.logs / "nginx.log"):
        wait_for(origin + "/" + names[0])
        for rep in range(c.reps):
            # Each repetition makes new variants: another band of widths.
            band = [w - 40 * rep for w in widths]
            for fmt in ("jpeg", "webp", "avif"):
                shutil.rmtree(folder / "hoard-cache", ignore_errors=True)
                with hoard_server(folder / "hoard-cache") as server:
                    wait_for(f"http://127.0.0.1:{ports['hoard']}/health")
                    paths = [hoard_path(n, w, fmt) for w in band for n in names]
                    base = f"http://127.0.0.1:{ports['hoard']}"
                    *figures, requests = run_wrk(c, base, paths, folder, f"hoard-{fmt}", count=True)
                    # Decodes per request: 1 shows that every request was a new variant.
                    results.setdefault(("hoard", fmt), []).append(
                        tuple(figures) + (peak_rss_mib(server.pid), decode_count(base) / max(requests, 1)))
                if thumbor and fmt != "avif":  # thumbor 7.8 writes no AVIF without a plugin
                    with Process([thumbor, "--port", ports["thumbor"], "--ip", "127.0.0.1", "--conf",
                                  folder / "thumbor.conf"], c.run.logs / "thumbor.log") as server:
                        wait_for(f"http://127.0.0.1:{ports['thumbor']}/healthcheck")
                        paths = [thumbor_path(n, w, fmt) for w in band for n in names]
                        figures = run_wrk(c, f"http://127.0.0.1:{ports['thumbor']}", paths, folder, f"thumbor-{fmt}")
                        results.setdefault(("thumbor", fmt), []).append(figures + (peak_rss_mib(server.pid),))
                if fmt == "jpeg":
                    paths = [nginx_path(n, w, fmt) for w in band for n in names]
                    figures = run_wrk(c, f"http://127.0.0.1:{ports['front']}", paths, folder, "nginx-jpeg")
                    results.setdefault(("nginx", fmt), []).append(figures + (None,))
            # Warm: 60 variants made once, then served from hoard's memory, from its disk (no memory
            # answers), and as static files by nginx (the same bytes): at fit 512 over 2 connections
            # against nginx's defaults, and at fit 256 (about 10 KB each) over 32 connections against
            # nginx with sendfile.
            shutil.rmtree(folder / "hoard-warm", ignore_errors=True)
            sendfile_base = f"http://127.0.0.1:{ports['sendfile']}"
            for label, extra in (("memory", []), ("disk", ["--memory-limit", "0"])):
                with hoard_server(folder / "hoard-warm", extra):
                    base = f"http://127.0.0.1:{ports['hoard']}"
                    wait_for(base + "/health")
                    for box, key, run in ((BOX, "warm", {}),
                                          (WARM_BOX, "warm32", {"clients": WARM_CONNECTIONS, "threads": 2})):
                        paths = [hoard_path(n, box, "jpeg") for n in names]
                        for name, path in zip(names, paths):  # made (and, for the static side, kept) once
                            with urllib.request.urlopen(base + path, timeout=60) as response:
                                (folder / "static" / f"{box}-{name}").write_bytes(response.read())
                        results.setdefault((key, label), []).append(
                            run_wrk(c, base, paths, folder, f"{key}-{label}", **run))
            results.setdefault(("warm", "static"), []).append(
                run_wrk(c, f"http://127.0.0.1:{ports['front']}", [f"/static/{BOX}-{n}" for n in names], folder,
                        "warm-static"))
            results.setdefault(("warm32", "sendfile"), []).append(
                run_wrk(c, sendfile_base, [f"/static/{WARM_BOX}-{n}" for n in names], folder, "warm32-sendfile",
                        clients=WARM_CONNECTIONS, threads=2))
            measure_fleet(c, folder, results, hoard_server, [hoard_path(n, w - 40 * rep, "jpeg")
                                                             for w in cold_widths(40) for n in names],
                          ports)
            measure_fleet(c, folder, results, hoard_server, [hoard_path(n, w - 40 * rep, "avif")
                                                             for w in cold_widths(40) for n in names],
                          ports, kind="fleet-avif", labels=("redis",))
        served = served_fidelity(c, folder, batch, names, hoard_server, ports, thumbor, hoard_path, thumbor_path,
                                 nginx_path)
    shutil.rmtree(folder, ignore_errors=True)

    def rps(key):
        measured = side(SIDE_LABELS[key], [r[0] for r in results.get(key, [])])
        if key[1] == "jpeg" and key[0] in served:
            measured = fidelity.labelled(measured, served[key[0]])
        return measured

    rows = []
    for fmt in ("jpeg", "webp"):
        peers = [rps(("thumbor", fmt))] + ([rps(("nginx", fmt))] if fmt == "jpeg" else [])
        peers = [p for p in peers if p["runs"]]
        if not peers:
            continue
        for peer in peers:
            rows.append(row("serve", f"cold: new variant every request, fit {BOX}x{BOX}, {fmt.upper()} q80, "
                                     f"{CONNECTIONS} connections, {SECONDS} s", "req/s", rps(("hoard", fmt)), peer,
                            target=COLD_TARGET, note=latency_note(results, ("hoard", fmt), peer_key(peer, fmt))))
    for label in ("memory", "disk"):
        rows.append(row("serve", f"warm: 60 variants served from hoard's {label} vs nginx static files, same bytes",
                        "req/s", rps(("warm", label)), rps(("warm", "static")), target=WARM_TARGET,
                        note=latency_note(results, ("warm", label), ("warm", "static"))))
    for label in ("memory", "disk"):
        rows.append(row("serve", f"warm: 60 variants (fit {WARM_BOX}) from hoard's {label} vs nginx static files "
                                 f"with sendfile, same bytes, {WARM_CONNECTIONS} connections",
                        "req/s", rps(("warm32", label)), rps(("warm32", "sendfile")), target=SENDFILE_TARGETS[label],
                        note=latency_note(results, ("warm32", label), ("warm32", "sendfile"))))
    if rps(("hoard", "avif"))["runs"]:
        rows.append(row("serve", f"cold: new variant every request, fit {BOX}x{BOX}, AVIF q80 against JPEG q80, "
                                 f"{CONNECTIONS} connections, {SECONDS} s", "req/s", rps(("hoard", "avif")),
                        rps(("hoard", "jpeg")), note=latency_note(results, ("hoard", "avif"), ("hoard", "jpeg"))))
    avif_fleet = results.get(("fleet-avif", "redis"), [])
    if avif_fleet:
        rows.append(row("serve", "fleet, cold: 2 clients, same new AVIF variants (fit 512), 2 servers + Redis",
                        "req/s", rps(("fleet-avif", "redis")), rps(("fleet", "redis")),
                        note=f"AVIF: {statistics.median(r[4] for r in avif_fleet):.2f} decodes per request "
                             f"(0.50: each variant made once for both servers)"))
    fleet = rps(("fleet", "redis"))
    if fleet["runs"]:
        rows.append(row("serve", "fleet, cold: 2 clients, same new variants (JPEG, fit 512)", "req/s", fleet,
                        rps(("fleet", "one")),
                        others=[rps(("fleet", "apart"))], note=fleet_note(results)))
    return rows


def served_fidelity(c, folder, batch, names, hoard_server, ports, thumbor, hoard_path, thumbor_path, nginx_path):
    """server -> fidelity figures (fidelity.py) of its cold JPEG variant at fit BOX of each photo (one
    copy of each of the batch's 12), fetched once after the timed runs from a server started empty:
    PSNR against the full-resolution Lanczos-3 reference, bytes of the 12 answers."""
    firsts = sorted({re.sub(r"_\d+\.jpg$", "_1.jpg", n) for n in names})
    references = fidelity.References(batch, box=BOX)

    def fetch(label, base, path_of):
        answers = folder / f"fidelity-{label}"
        answers.mkdir(parents=True, exist_ok=True)
        for name in firsts:
            with urllib.request.urlopen(base + path_of(name, BOX, "jpeg"), timeout=120) as response:
                (answers / (name[:-len(".jpg")] + "_t.jpg")).write_bytes(response.read())
        return fidelity.measure(answers, references)

    served = {}
    shutil.rmtree(folder / "hoard-fidelity", ignore_errors=True)
    with hoard_server(folder / "hoard-fidelity"):
        base = f"http://127.0.0.1:{ports['hoard']}"
        wait_for(base + "/health")
        served["hoard"] = fetch("hoard", base, hoard_path)
    if thumbor:
        with Process([thumbor, "--port", ports["thumbor"], "--ip", "127.0.0.1", "--conf", folder / "thumbor.conf"],
                     c.run.logs / "thumbor.log"):
            wait_for(f"http://127.0.0.1:{ports['thumbor']}/healthcheck")
            served["thumbor"] = fetch("thumbor", f"http://127.0.0.1:{ports['thumbor']}", thumbor_path)
    served["nginx"] = fetch("nginx", f"http://127.0.0.1:{ports['front']}", nginx_path)
    return served


def measure_fleet(c, folder, results, hoard_server, paths, ports, kind="fleet", labels=("one", "redis", "apart")):
    """Two clients walking the same new variants: both at one server, one at each of two servers sharing a
    Redis, and one at each of two servers without it; requests/s and decodes per request (0.5 when each
    variant is decoded once in all)."""
    with RedisServer(folder / "redis", c.run.logs / "redis-server.log") as redis:
        for label in labels:
            for cache in ("fleet-a", "fleet-b"):
                shutil.rmtree(folder / cache, ignore_errors=True)
            remote = ["--remote", f"redis://127.0.0.1:{redis.port}"] if label == "redis" else []
            if label == "redis":
                redis.cli("FLUSHALL")
            second = ports["hoard2"] if label != "one" else ports["hoard"]
            with hoard_server(folder / "fleet-a", remote), \
                    hoard_server(folder / "fleet-b", remote, port=ports["hoard2"]):
                bases = [f"http://127.0.0.1:{ports['hoard']}", f"http://127.0.0.1:{second}"]
                for base in set(bases):
                    wait_for(base + "/health")
                requests_per_s, p95, bad, requests = run_wrk_clients(c, bases, paths, folder, f"{kind}-{label}")
                decodes = sum(decode_count(base) for base in set(bases))
                results.setdefault((kind, label), []).append(
                    (requests_per_s, None, p95, bad, decodes / max(requests, 1)))


def fleet_note(results):
    def part(key):
        runs = results.get(key, [])
        return (f"{SIDE_LABELS[key]}: {statistics.median(r[4] for r in runs):.2f} decodes per request, "
                f"p95 {statistics.median(r[2] for r in runs):.1f} ms") if runs else "-"
    return "; ".join(part(("fleet", label)) for label in ("redis", "one", "apart"))


SIDE_LABELS = {
    ("hoard", "jpeg"): "hoard serve", ("hoard", "webp"): "hoard serve", ("hoard", "avif"): "hoard serve, AVIF",
    ("fleet-avif", "redis"): "2 servers + Redis, AVIF",
    ("thumbor", "jpeg"): "thumbor 7.8", ("thumbor", "webp"): "thumbor 7.8",
    ("nginx", "jpeg"): "nginx image_filter + proxy_cache",
    ("warm", "memory"): "hoard serve (memory)", ("warm", "disk"): "hoard serve (disk)",
    ("warm", "static"): "nginx static files",
    ("warm32", "memory"): "hoard serve (memory)", ("warm32", "disk"): "hoard serve (disk)",
    ("warm32", "sendfile"): "nginx static files, sendfile",
    ("fleet", "redis"): "2 servers + Redis", ("fleet", "one"): "1 server",
    ("fleet", "apart"): "2 servers, no Redis",
}


def peer_key(peer, fmt):
    return ("thumbor", fmt) if peer["label"].startswith("thumbor") else ("nginx", fmt)


def latency_note(results, ours, theirs):
    """p50/p95 latency and peak RSS of both sides, medians over the repetitions."""
    def part(key):
        runs = results.get(key, [])
        if not runs:
            return "-"
        p50 = statistics.median(r[1] for r in runs)
        p95 = statistics.median(r[2] for r in runs)
        bad = sum(r[3] for r in runs)
        rss = [r[4] for r in runs if len(r) > 4 and r[4] is not None]
        text = f"p50 {p50:.1f} ms, p95 {p95:.1f} ms"
        if rss:
            text += f", peak RSS {statistics.median(rss):.0f} MiB"
        decodes = [r[5] for r in runs if len(r) > 5]
        if decodes:
            text += f", {statistics.median(decodes):.2f} decodes per request"
        if bad:
            text += f", {bad} non-2xx"
        return text
    return f"{SIDE_LABELS[ours]}: {part(ours)}; {SIDE_LABELS[theirs]}: {part(theirs)}"


SECTIONS = [Section(
    "serve", measure_serve, frozenset({"hoard"}),
    "`hoard serve` (release, `--decode-concurrency 2`) against thumbor 7.8 (pip, `fit-in/512x512`, "
    "`filters:quality(80)`, no result storage) and nginx 1.22 `image_filter resize 512 512` at q80 behind "
    "`proxy_cache`, each fed the 60-photo batch by an nginx origin on loopback. wrk, 2 threads x 2 connections, "
    "10 s per side; the Lua script gives every request a (photo, box side) pair no side has seen in that "
    "repetition (cold), or cycles 60 made variants (warm: hoard's memory answers, its disk with "
    "`--memory-limit 0`, and nginx serving the same bytes as static files with its defaults; and at fit 256, "
    "2 threads x 32 connections, against nginx with `sendfile on; tcp_nopush on; open_file_cache`, 2 workers, no "
    "access log). Peak RSS from /proc VmHWM. The cold JPEG rows' labels give each server's fidelity: its "
    "fit-512 answer for each of the 12 photos, fetched once after the timed runs from a server started "
    "empty, against a full-resolution Lanczos-3 thumbnail (PSNR median / worst, `hoardcompare/fidelity.py`), "
    "and the bytes of those answers.",
    images=True)]
