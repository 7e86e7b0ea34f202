"""The machine and the versions a run measured with, recorded in results.json and table.md."""
import datetime
import os
import platform
import re
import subprocess
from pathlib import Path

from .runner import PYTHON, RESULTS, ROOT


def machine():
    """Cores, CPU, kernel, date, the file systems of the work folders, the load average."""
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    df = lambda p: subprocess.run(["df", "-T", str(p)], capture_output=True, text=True).stdout.strip()
    (RESULTS / "tmp").mkdir(parents=True, exist_ok=True)
    return {"nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(),
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "workdir": str(RESULTS / "tmp"), "workdir_df": df(RESULTS / "tmp"),
            "shm_df": df("/dev/shm") if Path("/dev/shm").is_dir() else "",
            "load_average": os.getloadavg()}


def first_line(command):
    """The first line a command prints (stdout, else stderr), or "?"."""
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except Exception:
        return "?"


def versions(tools):
    """Hoard's, and every peer's library or tool."""
    python_version = lambda module: first_line([PYTHON, "-c", f"import {module} as m; print(m.__version__)"])
    deb = lambda package: first_line(["dpkg-query", "-W", "-f=${Version}", package])
    return {
        "hoard": first_line([str(tools["hoard"]), "--version"]) if "hoard" in tools else "-",
        "hoard_commit": first_line(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]),
        "swift": first_line(["swift", "--version"]).replace("Swift version ", ""),
        "python": first_line([PYTHON, "--version"]).replace("Python ", ""),
        "diskcache": python_version("diskcache"),
        "pillow": python_version("PIL"),
        "libvips": first_line(["vipsthumbnail", "--vips-version"]).replace("libvips ", ""),
        "libjpeg-turbo (tjbench)": deb("libjpeg-turbo-progs"),
        "libjpeg (Hoard, pngbench)": deb("libjpeg62-turbo"),
        "libpng": deb("libpng16-16"),
        "libwebp (Hoard, dwebp)": deb("libwebp7") + " / " + deb("webp"),
        "Little CMS (Pillow's ImageCms / the system's)": first_line(
            [PYTHON, "-c", "from PIL import ImageCms; print(ImageCms.core.littlecms_version)"])
        + " / " + deb("liblcms2-2"),
        "hyperfine": first_line(["hyperfine", "--version"]).replace("hyperfine ", ""),
        "redis": re.sub(r".*\bv=([\d.]+).*", r"\1", first_line(["redis-server", "--version"])),
    }
