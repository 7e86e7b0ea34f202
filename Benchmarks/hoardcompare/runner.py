"""What every section shares: the folders, the log, running commands, and the context a section gets."""
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

BENCHMARKS = Path(__file__).resolve().parent.parent
ROOT = BENCHMARKS.parent
RESULTS = BENCHMARKS / ".results"
PEERS = BENCHMARKS / "peers"
SHM_BASE = Path("/dev/shm/hoard-compare")
PYTHON = "python3"  # the interpreter the peers' Python scripts run with


def log(message):
    print(message, file=sys.stderr, flush=True)


def stop_server(process, grace):
    """Stops a server started by the benchmark, by its PID (the Popen object's): SIGTERM, then
    SIGKILL after GRACE seconds."""
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Runner:
    """Runs commands, appends their command line and output to a log per section, returns stdout."""

    def __init__(self, logs):
        self.logs = logs

    def __call__(self, command, log_name, cwd=None, env=None, check=True, shell=False, stderr_apart=False):
        shown = command if shell else " ".join(shlex.quote(str(c)) for c in command)
        with open(self.logs / f"{log_name}.log", "a") as f:
            f.write(f"\n$ {shown}\n")
            f.flush()
            full_env = dict(os.environ, **(env or {}))
            result = subprocess.run(command if shell else [str(c) for c in command], cwd=cwd, env=full_env,
                                    shell=shell, stdout=subprocess.PIPE, text=True,
                                    stderr=subprocess.PIPE if stderr_apart else subprocess.STDOUT)
            f.write(result.stdout)
            if stderr_apart:
                f.write(result.stderr)
            if result.returncode != 0:
                f.write(f"[exit status {result.returncode}]\n")
        if check and result.returncode != 0:
            tail = "\n".join(result.stdout.strip().splitlines()[-15:])
            raise RuntimeError(f"`{shown}` failed with exit status {result.returncode} "
                               f"(log: {self.logs / log_name}.log):\n{tail}")
        return result.stdout


@dataclass
class Context:
    """What a section's measure function gets: the runner, the built tools, the peers' folder, the
    photos (None when no section needs them), the repetitions per side, and extra tables to print."""
    run: Runner
    tools: dict
    peers: Path
    images: Path
    reps: int
    quick: bool
    tables: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Section:
    """One `--only` name: its measure function (Context -> rows), the tools it runs (built and looked
    for only when a chosen section needs them), whether it reads the photo corpus, and what each side
    does, for table.md."""
    name: str
    measure: Callable
    tools: frozenset
    sides: str
    images: bool = False


def filesystem(path):
    """The type of the file system holding PATH (made if missing), as df -T names it."""
    path.mkdir(parents=True, exist_ok=True)
    lines = subprocess.run(["df", "-T", str(path)], capture_output=True, text=True).stdout.splitlines()
    return lines[-1].split()[1] if len(lines) > 1 else "?"
