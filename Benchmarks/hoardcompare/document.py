"""RESULTS.md from one run's results.json: per area, its table, what each side does and how to read it.

    python3 -m hoardcompare.document Benchmarks/.results/latest/results.json > Benchmarks/RESULTS.md

The text that does not come from the run (each area's title and how to read it) is here; what each
side does is each section's own description, saved in results.json.
"""
import json
import sys
from collections import Counter

from .report import header, table_line

# Section -> (heading, how to read it). Written without figures: the figures are the run's.
AREAS = {
    "memory": ("Memory", (
        "A hit is one dictionary lookup and the policy's bookkeeping under one lock; the eviction links of every "
        "slot sit side by side in one array, and a hit reads the value where it lies. The bound is the dictionary "
        "that never evicts (target 0.5× of it); NSCache locks and bridges on every call (target 4×). The set rows "
        "have no target.")),
    "disk": ("Disk", (
        "At 1 KiB and 16 KiB both sides keep the value inside SQLite, so a store is one transaction and a "
        "retrieve one lookup; Hoard adds a CRC-32C check of every read and a recency mark, batched. From 64 KiB "
        "diskcache creates a file per value where Hoard appends to a shared segment file, so the store rows "
        "follow what an inode costs on the file system. Large retrieves copy the bytes and check every one, "
        "where diskcache returns them unchecked (a memory map would save the copy, but a file cut short under it "
        "kills the reader with SIGBUS). The `Hoard manager` rows are the 1 KiB and 16 KiB workload through "
        "`Hoard.store/retrieve(Data.self)` with a memory tier of one entry: a disk hit plus what the manager adds "
        "(a task, the type check, the promotion). With a baseline build, its `DiskCache` runs beside, and the "
        "64 KiB and 1 MiB retrieve rows' target is its ratio in the same run.")),
    "manager": ("The manager against an earlier build", (
        "Both builds run the same work in the same folder, alternated, so a ratio within the spread of the "
        "repetitions (`results.json`) of 1 is a tie; on this VM single pairs vary by up to ±30 %. The memory-hit "
        "row is the manager's own cost (an async call, one lookup in the memory tier, the expiry check); the "
        "disk-hit rows add a `DiskCache` read and the promotion; the store rows are a write to the disk tier and "
        "memory.")),
    "disk-scale": ("Disk at a million entries", (
        "What a new process pays on a big cache: the open reads the index's header and running totals, not the "
        "entries, so it and the first store do not grow with the count (the last row: the first store at 1 M "
        "against on 10 entries). The trim removes the least recently used entries through the index's recency "
        "order in batches, each one transaction that also gives back its records' space; diskcache's `cull()` "
        "deletes through its own index in one loop. Count and bytes come from running totals on Hoard's side "
        "and from two queries on diskcache's. One repetition per side: a million entries take minutes to fill, "
        "so these rows carry the VM's noise unaveraged.")),
    "listing": ("Listing", (
        "`hoard cache stats` reads the index's running totals; `list` walks the index in key order. The baseline "
        "read every entry file's header.")),
    "codec": ("Codec", (
        "Both sides call the same system libjpeg-turbo and libpng, so the rows measure the wrapper: ratios within "
        "a few percent of 1 are noise. PNG encode has no target because pngbench compresses every image twice.")),
    "thumbnails": ("Thumbnails, at equal fidelity", (
        "Hoard decodes at the smallest JPEG scale whose longest side is still twice the box, as libvips's "
        "shrink-on-load and Pillow's `thumbnail()` (its reducing gap) do, then filters with Lanczos-3. Each side's "
        "label gives its fidelity and bytes: the side run once more writing PNG, each thumbnail against a "
        "full-resolution Lanczos-3 thumbnail of its own input, PSNR over R, G and B, median and worst of the "
        "batch. A row with a target is met only when Hoard's median PSNR is within 1 dB of the peer's or above "
        "and its worst within 2 dB. The `draft()` rows (bicubic, no target) are the peer that decodes as small "
        "as the box allows. Cold rows also create files (Hoard's index, log and segment, 60 outputs), so they "
        "move with the disk; the warm rerun reads the cache instead of decoding.")),
    "thumbnail-inputs": ("Thumbnail inputs: progressive JPEG, WebP, GIF", (
        "Progressive JPEG: a scaled decode stops reading scans once the inverse DCT has the coefficients it "
        "needs. WebP: both sides spend most of their time in the same libwebp call, which decodes every "
        "macroblock at full size before scaling. GIF: Hoard expands the palette and filters every pixel, as "
        "vipsthumbnail does; Pillow resizes the palette image by nearest neighbour, so those rows are not like "
        "for like.")),
    "avif": ("AVIF thumbnails", (
        "Both sides encode with libavif and libaom; Hoard at speed 8 (for images encoded while a client "
        "waits), Pillow at its default 6, which spends more time for a few percent fewer bytes. Read the speed "
        "beside the bytes and PSNR in each label: a row is met only with both.")),
    "smart-crop": ("Smart crop", (
        "The cost of choosing the crop by the image's detail instead of its centre, on the same fill; both "
        "sides decode, resize and encode alike.")),
    "colour": ("Colour: Display P3 photos to sRGB", (
        "RGB matrix-shaper profiles (Display P3, Adobe RGB, most camera and phone profiles) convert through a "
        "direct path (input curves, one 3×3 matrix, output tables) that agrees with Little CMS within one level; "
        "other profiles go through Little CMS. The last row is what the conversion costs Hoard against the "
        "untagged batch; the quality table is each side's difference from vipsthumbnail's thumbnails.")),
    "webp-decode": ("WebP decode", (
        "Both sides make the same `WebPDecode` call. dwebp times one decode in a fresh process, which also pays "
        "a new buffer's page faults, so read the ratio as \"at least as fast\".")),
    "peak": ("Peak memory", (
        "Decoding at 1/8 scale never allocates the full raster: the growth is the file's bytes and the scaled "
        "image. The second row (no target) is the whole tool against printing its version.")),
    "redis": ("Redis: the shared tier against redis-benchmark", (
        "redis-benchmark sends pre-built commands and counts replies; the tier encodes records, checks them and "
        "resumes a task per reply, on one pipelined connection. The 1-caller rows wait on one round trip at a "
        "time, so they follow how soon each vCPU wakes; with 16 callers the 1 KiB rows are bound by the tasks "
        "(Benchmarks/README.md, NIOFloor, measures the least an async client on SwiftNIO costs here).")),
    "scaling": ("Scaling: worker processes, with and without one shared Redis", (
        "With the shared Redis each URL is downloaded once and each thumbnail made once: the other workers wait "
        "for the first one's fetch and copy its result. Without Redis every worker repeats the whole batch. On "
        "two cores, more than two workers cannot go faster; the point is the work not repeated.")),
    "serve": ("Serving images: hoard serve against thumbor and nginx", (
        "Cold rows make a new variant on every request: Hoard and thumbor decode at a reduced JPEG scale, nginx "
        "`image_filter` decodes every photo at full size with libgd. Warm rows serve the same bytes: nginx "
        "reads static files (with `sendfile` in the 32-connection row, the fastest a server can hand out a "
        "file), Hoard answers from its memory tier or, with `--memory-limit 0`, its disk tier, checking each "
        "record and the request's signature and conditional headers. The fleet rows are two servers sharing a "
        "Redis: each variant is decoded once for both. The AVIF rows have no peer (thumbor 7.8 writes no AVIF): "
        "they compare AVIF variants, made in places of their own, with the JPEG ones of the same run.")),
}


def render(results):
    """The document, as a string."""
    rows_by_section, notes_by_section = {}, {}
    for r in results["rows"]:
        rows_by_section.setdefault(r["section"], []).append(r)
    targeted = [r for r in results["rows"] if r["met"] is not None]
    missed = [r for r in targeted if not r["met"]]
    order = {section: number for number, section in enumerate(AREAS)}
    missed_by_section = Counter(r["section"] for r in missed)
    missed_areas = ", ".join(f"{count} in {AREAS.get(section, (section,))[0].split(':')[0].lower()}"
                             for section, count in sorted(missed_by_section.items(), key=lambda item: order.get(item[0], 99)))
    lines = ["# Benchmark results: Hoard beside its peers", "",
             "Generated from one run of `Benchmarks/compare` (`python3 -m hoardcompare.document results.json`), "
             "one table per area. Figures are medians of the repetitions; the ratio is Hoard / peer: for "
             "throughput higher is better, for time and memory lower is better. Hoard and each peer run "
             "alternately on the same inputs, so read the ratios: the VM is shared, absolute figures follow its "
             "load, and `results.json` keeps every repetition. How each side is run and how to reproduce a row: "
             "[README.md](README.md); earlier runs and experiments: git history and the probes in README.md.", ""]
    lines += header(results)[2:]
    lines += ["", f"Of the {len(targeted)} rows with a target, {len(targeted) - len(missed)} met it"
              + (f"; the {len(missed)} that did not: {missed_areas}." if missed else "."), "",
              "![Hoard and its peers, each row normalised to the peer, with its target](results-chart.png)", ""]
    for section, sides in results["sides"].items():
        rows = rows_by_section.get(section, [])
        error = results["errors"].get(section)
        table = results.get("tables", {}).get(section)
        if not rows and not error and not table:
            continue
        title, reading = AREAS.get(section, (section, ""))
        lines += [f"## {title}", ""]
        if rows:
            notes = notes_by_section.setdefault(section, [])
            for r in rows:
                if r["note"] and r["note"] not in notes:
                    notes.append(r["note"])
            lines += ["| work | Hoard | figure | peer | figure | ratio | target | met |",
                      "|---|---|--:|---|--:|--:|--:|:-:|"]
            lines += [table_line(r, notes) for r in rows]
            if notes:
                lines.append("")
                lines += [f"[{n}] {note}" + ("  " if n < len(notes) else "") for n, note in enumerate(notes, 1)]
        if error:
            lines += ["", f"Not measured in this run: {error.splitlines()[0]}"]
        if table:
            lines += ["", f"### {table['title']}", ""] + table["lines"]
        lines += ["", f"**What each side does.** {sides}", ""]
        if reading:
            lines += [f"**How to read it.** {reading}", ""]
        lines += [f"Reproduce: `Benchmarks/compare --only {section}`.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m hoardcompare.document RESULTS_JSON")
    with open(sys.argv[1]) as file:
        sys.stdout.write(render(json.load(file)))
