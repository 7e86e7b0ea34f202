"""Rows of the table (Hoard's figure, the peer's, their ratio and target) and table.md."""
import statistics


def row(section, work, unit, hoard, peer, target=None, better="higher", others=(), note=""):
    """One line of the table: Hoard's figure, the peer's, their ratio and the target for it."""
    ratio = hoard["value"] / peer["value"] if peer["value"] else None
    met = None
    if target is not None and ratio is not None:
        met = ratio >= target if better == "higher" else ratio < target
    return {"section": section, "work": work, "unit": unit, "better": better, "hoard": hoard, "peer": peer,
            "others": list(others), "ratio": ratio, "target": target, "met": met, "note": note}


def side(label, runs):
    """One side of a row: its label, the median of its runs, and the runs."""
    runs = [r for r in runs if r is not None]
    return {"label": label, "value": statistics.median(runs) if runs else 0.0, "runs": runs}


def best(*sides):
    """The strongest peer first (so the ratio is against it), then the others."""
    ordered = sorted(sides, key=lambda s: s["value"], reverse=True)
    return ordered[0], ordered[1:]


def fmt(value):
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def ratio_text(ratio):
    return "-" if ratio is None else f"{ratio:.3g}×"


def header(results):
    """The command, the date, the machine and the versions, as the table's first lines."""
    m = results["machine"]
    environment = results["environment"]
    df = lambda text: " ".join(text.splitlines()[-1].split()[:2]) if text else None
    return [
        "# Hoard vs peers",
        "",
        f"- command: `{results['command']}`"
        + (f" ({', '.join(f'{k}={v}' for k, v in environment.items())})" if environment else ""),
        f"- date: {m['date']}; {results['reps']} repetition(s) per side{' (--quick)' if results['quick'] else ''}; "
        f"{results['seconds']:.0f} s ("
        + ", ".join(f"{k} {v:.0f} s" for k, v in results["section_seconds"].items()) + ")",
        f"- machine: {m['nproc']} cores (nproc), {m['cpu']}, Linux {m['kernel']}, "
        f"load average at the end {', '.join(f'{x:.2f}' for x in m['load_average'])}",
        f"- workdir `{m['workdir']}`: `{df(m['workdir_df']) or '?'}`; `/dev/shm`: `{df(m['shm_df']) or '-'}`",
        "- versions: " + "; ".join(f"{k} {v}" for k, v in results["versions"].items()),
    ]


def table_line(r, notes):
    target = "" if r["target"] is None else (f"≥ {r['target']:g}×" if r["better"] == "higher" else f"< {r['target']:g}×")
    met = "" if r["met"] is None else ("yes" if r["met"] else "**no**")
    peer = r["peer"]["label"]
    if r["others"]:
        peer += " (also " + "; ".join(f"{o['label']}: {fmt(o['value'])}" for o in r["others"]) + ")"
    note = f" [{notes.index(r['note']) + 1}]" if r["note"] else ""
    return (f"| {r['work']}{note} | {r['hoard']['label']} | {fmt(r['hoard']['value'])} {r['unit']} | {peer} | "
            f"{fmt(r['peer']['value'])} {r['unit']} | {ratio_text(r['ratio'])} | {target} | {met} |")


def render_table(results):
    """table.md: the header, one line per row (failed sections included), the notes, the sections'
    own tables, then what each side of the sections run does."""
    lines = header(results) + [
        "",
        "Figures are medians; ratio = Hoard / peer (for throughput higher is better; for memory growth lower is better).",
        "",
        "| work | Hoard | figure | peer | figure | ratio | target | met |",
        "|---|---|--:|---|--:|--:|--:|:-:|",
    ]
    notes = []
    for r in results["rows"]:
        if r["note"] and r["note"] not in notes:
            notes.append(r["note"])
        lines.append(table_line(r, notes))
    for section, error in results["errors"].items():
        lines.append(f"| {section}: **failed** — {error.splitlines()[0]} | | | | | | | |")
    if notes:
        lines.append("")
        lines += [f"[{number}] {note}" + ("  " if number < len(notes) else "") for number, note in enumerate(notes, 1)]
    for table in results.get("tables", {}).values():
        lines += ["", f"### {table['title']}", ""] + table["lines"]
    lines += ["", "## What each side does", ""]
    measured = {r["section"] for r in results["rows"]} | set(results["errors"]) | set(results.get("tables", {}))
    for section, sides in results["sides"].items():
        if section in measured:
            lines.append(f"- **{section}**: {sides}")
    lines.append("")
    return "\n".join(lines)
