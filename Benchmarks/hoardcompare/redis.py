"""redis: the shared Redis tier (HoardMeasure redis-tier) against redis-benchmark, on one throwaway
redis-server."""
import os
import re
import shutil
import socket
import subprocess
import time

from .report import row, side
from .runner import RESULTS, Section, stop_server

REDIS_SIZES = [(1024, "1 KiB"), (64 * 1024, "64 KiB")]
REDIS_CALLERS = [1, 16]
REDIS_TARGET = 0.8
# Where the calling tasks run: Swift's global pool (any task's default), or the tier's event loop
# (`withTaskExecutorPreference(tier.taskExecutor)`), where a command and its reply never change threads.
REDIS_PLACEMENTS = [("the pool", []), ("the tier's loop", ["--on-loop"])]
REDIS_NOTE = ("the peer's value is as long as the tier's record (48-byte header + 10-byte key + value); the tier's "
              "Redis key is 81 bytes (hoard:v1:bench:{SHA-256}), redis-benchmark's 16")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A throwaway redis-server on a free loopback port (no persistence, no snapshot), stopped by its PID."""

    def __init__(self, folder, log_path):
        self.folder, self.log_path, self.process, self.port = folder, log_path, None, None

    def __enter__(self):
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        for _ in range(3):  # the free port may be taken between finding it and redis-server binding it
            self.port = free_port()
            with open(self.log_path, "a") as log_file:
                self.process = subprocess.Popen(
                    ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
                     "--appendonly", "no", "--dir", str(self.folder)],
                    stdout=log_file, stderr=subprocess.STDOUT)
            for _ in range(100):
                if self.process.poll() is not None:
                    break
                if self.cli("PING") == "PONG":
                    return self
                time.sleep(0.05)
            self.stop()
        raise RuntimeError(f"redis-server did not start (see {self.log_path})")

    def __exit__(self, *exc):
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def stop(self):
        stop_server(self.process, 10)

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def cli(self, *command):
        result = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(self.port)] + list(command),
                                capture_output=True, text=True)
        return result.stdout.strip()


def redis_benchmark(c, server, op, record, clients, pipeline, count):
    """redis-benchmark's requests per second for one op, or None for a one-request priming run."""
    text = c.run(["redis-benchmark", "-h", "127.0.0.1", "-p", server.port, "-c", clients, "-P", pipeline,
                  "-d", record, "-n", count, "-t", op, "--csv"], "redis")
    if count == 1:  # a priming SET: too short for a rate (redis-benchmark says "inf")
        return None
    m = re.search(rf'^"{op.upper()}","([\d.]+)"', text, re.M)
    if not m:
        raise RuntimeError(f"no {op.upper()} figure in redis-benchmark's output (see logs/redis.log)")
    return float(m.group(1))


def measure_redis(c):
    """HoardMeasure redis-tier against redis-benchmark with the same value size, connection and
    pipeline depth, alternating, on one throwaway redis-server."""
    for tool in ("redis-server", "redis-benchmark", "redis-cli"):
        if not shutil.which(tool):
            raise RuntimeError(f"{tool} is not installed (apt-get install redis-server redis-tools)")
    seconds = float(os.environ.get("COMPARE_REDIS_SECONDS", "1" if c.quick else "2"))
    cases = [(size, name, callers, op) for size, name in REDIS_SIZES for callers in REDIS_CALLERS
             for op in ("set", "get")]
    ours, peers, requests, records = {}, {}, {}, {}

    with RedisServer(RESULTS / "tmp" / "redis", c.run.logs / "redis-server.log") as server:
        for _ in range(c.reps):  # each round runs every case, ours then the peers'
            for size, name, callers, op in cases:
                for placement, flags in REDIS_PLACEMENTS:
                    text = c.run([c.tools["measure"], "redis-tier", "--port", server.port, "--size", size,
                                  "--callers", callers, "--seconds", seconds, "--op", op] + flags, "redis")
                    m = re.search(rf"^RedisTier {op} {size} B values \(record (\d+) B\), {callers} callers: "
                                  r"([\d.]+) ops/s", text, re.M)
                    if not m:
                        raise RuntimeError("no figure in HoardMeasure redis-tier's output (see logs/redis.log)")
                    records[size] = int(m.group(1))
                    ours.setdefault((size, callers, op, placement), []).append(float(m.group(2)))
                # The tier sends one connection's worth of `callers` commands in flight: redis-benchmark
                # on one connection with `callers` pipelined is the match; `callers` connections of one
                # command each is a second reference.
                for clients, pipeline in [(1, callers)] + ([(callers, 1)] if callers > 1 else []):
                    if op == "get":  # redis-benchmark's GET reads the key its SET wrote: give it a value
                        redis_benchmark(c, server, "set", records[size], 1, 1, 1)
                    key = (size, callers, op, clients, pipeline)
                    if key not in requests:  # sized for `seconds` by a short first run
                        rate = redis_benchmark(c, server, op, records[size], clients, pipeline,
                                               2000 * pipeline * clients)
                        requests[key] = max(1000, int(rate * seconds))
                    rate = redis_benchmark(c, server, op, records[size], clients, pipeline, requests[key])
                    peers.setdefault(key, []).append(rate)
    rows = []
    for size, name, callers, op in cases:
        record = records[size]
        plural = "s" if callers > 1 else ""
        peer = side(f"redis-benchmark -c 1 -P {callers} -d {record}", peers[(size, callers, op, 1, callers)])
        others = [side(f"redis-benchmark -c {callers} -P 1 -d {record}", peers[(size, callers, op, callers, 1)])] \
            if callers > 1 else []
        for placement, _ in REDIS_PLACEMENTS:
            hoard = side(f"RedisTier.{'entry' if op == 'get' else 'store'}, {callers} task{plural} on "
                         f"{placement}, 1 connection", ours[(size, callers, op, placement)])
            rows.append(row("redis", f"Redis {op.upper()}, {name} value ({record} B record), {callers} "
                            f"caller{plural}, tasks on {placement}", "ops/s", hoard, peer, others=others,
                            target=REDIS_TARGET, note=REDIS_NOTE))
    return rows


SECTIONS = [Section(
    "redis", measure_redis, frozenset({"measure"}),
    "One throwaway `redis-server` (loopback, free port, `--save '' --appendonly no`, stopped by its PID at "
    "the end) for both sides. Hoard: `HoardMeasure redis-tier`: `RedisTier.store` or `.entry` (a hit: the "
    "record is checked, CRC-32C included, and its value copied out) from N tasks at once for "
    "$COMPARE_REDIS_SECONDS (2 s) after 0.5 s of warm-up, 64 keys; the tier's client has one connection "
    "and pipelines on it, so N tasks are up to N commands in flight on one connection. Each case twice: the "
    "tasks on Swift's global pool (where any task runs by default: every command hands over to the "
    "client's event loop and its reply back, two thread wake-ups), and the tasks preferring the tier's "
    "event loop (`withTaskExecutorPreference(tier.taskExecutor)`, `--on-loop`: a command and its reply "
    "stay on one thread, as in redis-benchmark). Peer: "
    "`redis-benchmark -t set|get -d RECORD --csv` (C, one event loop) on one connection with N commands "
    "pipelined (`-c 1 -P N`), its request count sized to run as long as Hoard's; for N = 16 also N "
    "connections of one command each (`-c 16 -P 1`, shown in parentheses). The value sizes match the "
    "whole record the tier stores (a 48-byte header, the 10-byte key, then the value). Rounds: every "
    "case, Hoard then the peer(s), 3 times.")]
