"""manager: the Hoard manager's reads and writes against an earlier build of it ($COMPARE_BASELINE_MEASURE)."""
import os
import re
import shutil

from .disk import places
from .report import row, side
from .runner import Section, filesystem

DISK_LINE = re.compile(r"Hoard\(disk\)\s+(\d+) B x\s+(\d+): store\s+(\d+) ops/s\s+retrieve\s+(\d+) ops/s")
HIT_LINE = re.compile(r"memory hit\s+([\d.]+) M hits/s")


def measure_manager(c):
    """HoardMeasure hoard-disk and hoard-hit of this build and of $COMPARE_BASELINE_MEASURE, alternating
    (this build first in odd rounds), in one folder, 4 x reps rounds; one row per figure, the baseline as the peer."""
    baseline = os.environ.get("COMPARE_BASELINE_MEASURE")
    if not baseline:
        raise RuntimeError("the manager section needs $COMPARE_BASELINE_MEASURE: a HoardMeasure of an earlier build")
    label = os.environ.get("COMPARE_BASELINE_LABEL", "the earlier build")
    rows = []
    for place, folder in places():
        fs = filesystem(folder)
        figures = {"this": {}, "base": {}}  # side -> figure name -> runs

        def run(who, binary):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            out = c.run([binary, "hoard-disk", folder, "1", "--retrieve-rounds", "3"], "manager")
            for m in DISK_LINE.finditer(out):
                name = f"{int(m.group(1)) // 1024} KiB x {m.group(2)}"
                figures[who].setdefault(("store", name), []).append(float(m.group(3)))
                figures[who].setdefault(("retrieve (disk hit)", name), []).append(float(m.group(4)))
            out = c.run([binary, "hoard-hit", folder, "7"], "manager")
            for m in HIT_LINE.finditer(out):
                figures[who].setdefault(("retrieve (memory hit)", "10k keys"), []).append(float(m.group(1)) * 1e6)

        for round_ in range(4 * c.reps):
            order = [("this", c.tools["measure"]), ("base", baseline)]
            for who, binary in order if round_ % 2 == 0 else reversed(order):
                run(who, binary)
        shutil.rmtree(folder, ignore_errors=True)
        if not figures["this"] or set(figures["this"]) != set(figures["base"]):
            raise RuntimeError(f"the two builds printed different figures (see logs/manager.log): "
                               f"{sorted(figures['this'])} / {sorted(figures['base'])}")
        for (op, name), runs in sorted(figures["this"].items()):
            rows.append(row("manager", f"Hoard {op}, {name}, {place} ({fs})", "ops/s", side("Hoard manager", runs),
                            side(f"Hoard manager {label} (same run)", figures["base"][(op, name)]), target=1.0))
    return rows


SECTIONS = [Section(
    "manager", measure_manager, frozenset({"measure"}),
    "Hoard's `Hoard` manager against the same manager of an earlier build (`$COMPARE_BASELINE_MEASURE`, "
    "named by `$COMPARE_BASELINE_LABEL`): `HoardMeasure hoard-disk DIR 1 --retrieve-rounds 3` "
    "(`store/retrieve(Data.self)`, 1 KiB and 16 KiB x 10,000, a memory tier of one entry so that every "
    "retrieve is a disk hit, three rounds of reads) and `HoardMeasure hoard-hit DIR 7` (`retrieve` answered "
    "by the memory tier, 10,000 keys x 10 rounds, median of 7 passes). The two builds alternate, "
    "this one first in odd rounds, 4 x reps rounds, a fresh folder for each run; medians. Target: "
    "not slower than the earlier build (1.0x).")]
