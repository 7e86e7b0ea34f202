"""Setup: installing the peers that are missing, and building Hoard's tools and the compiled peers."""
import ctypes.util
import os
import shutil
import subprocess
from pathlib import Path

from .runner import BENCHMARKS, PYTHON, RESULTS, ROOT, log

APT_PACKAGES = [  # (how to tell it is there, Debian package)
    (lambda: shutil.which("vipsthumbnail"), "libvips-tools"),
    (lambda: ctypes.util.find_library("lcms2"), "liblcms2-2"),  # iccprofiles.py's Display P3 (colour)
    (lambda: shutil.which("tjbench"), "libjpeg-turbo-progs"),
    (lambda: shutil.which("cwebp") and shutil.which("dwebp"), "webp"),
    (lambda: shutil.which("hyperfine"), "hyperfine"),
    (lambda: shutil.which("gcc"), "gcc"),
    (lambda: shutil.which("pkg-config"), "pkg-config"),
    (lambda: Path("/usr/include/png.h").exists() or pkg_config_has("libpng"), "libpng-dev"),
    (lambda: Path("/usr/include/jpeglib.h").exists() or pkg_config_has("libjpeg"), "libjpeg-dev"),
    (lambda: pkg_config_has("libcrypto"), "libssl-dev"),
    (lambda: Path("/usr/bin/time").exists(), "time"),
    (lambda: shutil.which("redis-server"), "redis-server"),
    (lambda: shutil.which("redis-benchmark") and shutil.which("redis-cli"), "redis-tools"),
    (lambda: shutil.which("wrk"), "wrk"),  # serve: the load generator for every side
    (lambda: shutil.which("nginx"), "nginx"),  # serve: the origin, a peer, static files
    (lambda: Path("/usr/lib/nginx/modules/ngx_http_image_filter_module.so").exists(), "libnginx-mod-http-image-filter"),
]
# The source photos of peers/prepare_images.py.
NO_RECOMMENDS = [(lambda: Path("/usr/share/backgrounds/mate/nature/Aqua.jpg").exists(), "mate-backgrounds")]
PYTHON_MODULES = [("diskcache", "diskcache", "python3-diskcache"), ("PIL", "pillow", "python3-pil"),
                  ("matplotlib", "matplotlib", "python3-matplotlib"),
                  ("thumbor", "thumbor==7.8.0", None)]  # serve's peer; skipped when pip cannot install it
BIN = RESULTS / "bin"


def pkg_config_has(name):
    return shutil.which("pkg-config") and subprocess.run(["pkg-config", "--exists", name]).returncode == 0


def importable(module):
    return subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True).returncode == 0


def install_peers(run):
    """apt-get and pip installs, only of what is missing."""
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    apt = [p for there, p in APT_PACKAGES if not there()]
    apt_bare = [p for there, p in NO_RECOMMENDS if not there()]
    noninteractive = {"DEBIAN_FRONTEND": "noninteractive"}
    if apt or apt_bare:
        log(f"installing {' '.join(apt + apt_bare)} with apt-get")
        run(sudo + ["apt-get", "update"], "setup")
        if apt:
            run(sudo + ["apt-get", "install", "-y"] + apt, "setup", env=noninteractive)
        if "nginx" in apt:
            # Debian starts the system nginx on 0.0.0.0:80; the benchmark runs its own on loopback.
            run(sudo + ["service", "nginx", "stop"], "setup", check=False)
        if apt_bare:
            run(sudo + ["apt-get", "install", "-y", "--no-install-recommends"] + apt_bare, "setup", env=noninteractive)
    for module, pip_name, debian_name in PYTHON_MODULES:
        if importable(module):
            continue
        log(f"installing {pip_name} with pip")
        if run([PYTHON, "-m", "pip", "install", pip_name], "setup", check=False) and importable(module):
            continue
        if debian_name is None:
            log(f"pip could not install {pip_name}; the sections that use it skip it")
            continue
        # Debian's own python3 refuses pip installs (PEP 668): take the distribution's package.
        log(f"pip could not install {pip_name}; trying apt-get install {debian_name}")
        run(sudo + ["apt-get", "install", "-y", debian_name], "setup", env=noninteractive)


def build(run, peers, skip, needed):
    """Release builds of the hoard tool and HoardMeasure, and the two compiled peers, of those NEEDED;
    returns {tool: path}."""
    needed = set(needed)
    given = os.environ.get("COMPARE_HOARD_BIN")
    if given:
        needed.discard("hoard")
    # The same build as scripts/hoard (the README's tool command), so neither rebuilds the other's.
    static = os.environ.get("HOARD_STATIC", "1") != "0"
    hoard_flags = ["-c", "release", "--product", "hoard"]
    if static:
        hoard_flags += ["--scratch-path", str(ROOT / ".build-tool"),  # as scripts/hoard
                        "--static-swift-stdlib", "-Xlinker", "--no-export-dynamic"]
    else:
        hoard_flags += ["--scratch-path", str(ROOT / ".build-dynamic")]
    measure_flags = ["-c", "release", "--product", "HoardMeasure", "--package-path", str(BENCHMARKS)]
    if not skip and "hoard" in needed:
        log("building hoard (release)" + (" with --static-swift-stdlib" if static else ""))
        run(["swift", "build"] + hoard_flags, "build", cwd=ROOT)
    if not skip and "measure" in needed:
        log("building HoardMeasure (release)")
        run(["swift", "build"] + measure_flags, "build", cwd=ROOT)

    bin_path = lambda flags: Path(run(["swift", "build", "--show-bin-path"] + flags, "build",
                                      cwd=ROOT).strip().splitlines()[-1])
    tools = {}
    if given:
        tools["hoard"] = Path(given).resolve()
    elif "hoard" in needed:
        tools["hoard"] = bin_path(hoard_flags) / "hoard"
    if "measure" in needed:
        tools["measure"] = bin_path(measure_flags) / "HoardMeasure"
    BIN.mkdir(parents=True, exist_ok=True)
    if "memcache_bench" in needed:
        tools["memcache_bench"] = compile_peer(
            run, peers / "memcache_bench.swift", "swiftc -O -parse-as-library",
            lambda source, binary: ["swiftc", "-O", "-parse-as-library", source, "-o", binary])
    if "pngbench" in needed:
        tools["pngbench"] = compile_peer(
            run, peers / "pngbench.c", "gcc -O2",
            lambda source, binary: ["gcc", "-O2", source, "-o", binary, "-lpng"])
    for name, path in tools.items():
        if not path.is_file():
            raise SystemExit(f"compare: {name} is not at {path}; build it (drop --no-build)")
    return tools


def compile_peer(run, source, how, command):
    """Benchmarks/.results/bin/NAME, compiled from SOURCE when missing or older than it."""
    binary = BIN / source.stem
    if not binary.exists() or binary.stat().st_mtime < source.stat().st_mtime:
        log(f"building {binary.name} ({how})")
        run(command(source, binary), "build")
    return binary
