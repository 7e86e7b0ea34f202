#!/usr/bin/env python3
"""Reference pixels for every valid PngSuite file, computed with an independent decoder (pypng).

Writes pngsuite.tsv: file, width, height, the pixel format Hoard must report, and the FNV-1a 64-bit
hash of the pixels converted to 8-bit RGBA (gray copied into R, G, B; opaque alpha 255). Stored
values, as Hoard returns them: no gamma, no sBIT rescaling; 16-bit samples keep their high byte,
1/2/4-bit gray is scaled to 0-255, tRNS becomes alpha 0 (else fully opaque).

Usage: pip install pypng && python3 make_png_references.py   (from any directory)
The tests read the TSV only; they do not need Python.
"""
import os
import png  # pypng

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "..", "PngSuite")


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def to8(value: int, depth: int) -> int:
    if depth == 16:
        return value >> 8
    if depth < 8:
        return value * 255 // ((1 << depth) - 1)
    return value


def reference(path):
    width, height, rows, info = png.Reader(filename=path).read()
    depth = info["bitdepth"]
    out = bytearray()
    palette = info.get("palette")
    if palette and info["planes"] == 1 and not info["greyscale"]:  # colour type 3 (truecolour may carry a suggested PLTE)
        has_alpha = any(len(entry) == 4 for entry in palette)
        for row in rows:
            for index in row:
                entry = palette[index]
                out += bytes(entry[:3]) + bytes([entry[3] if len(entry) == 4 else 255])
        return width, height, "rgba8" if has_alpha else "rgb8", out
    planes, grey, alpha = info["planes"], info["greyscale"], info["alpha"]
    key = info.get("transparent")
    if key is not None and not isinstance(key, tuple):
        key = (key,)
    has_alpha = alpha or key is not None
    for row in rows:
        row = list(row)
        for x in range(width):
            samples = row[x * planes:(x + 1) * planes]
            colour = samples[:-1] if alpha else samples
            a = to8(samples[-1], depth) if alpha else 255
            if key is not None and tuple(colour) == tuple(key):
                a = 0
            c8 = [to8(v, depth) for v in colour]
            rgb = c8 * 3 if grey else c8
            out += bytes(rgb + [a])
    fmt = ("grayAlpha8" if has_alpha else "gray8") if grey else ("rgba8" if has_alpha else "rgb8")
    return width, height, fmt, out


def main():
    lines = ["# file\twidth\theight\tformat\tfnv1a64(rgba8 pixels) -- made by make_png_references.py with pypng"]
    for name in sorted(os.listdir(SUITE)):
        if not name.endswith(".png") or name.startswith("x"):
            continue  # x*: the corrupt files, which must be rejected
        width, height, fmt, pixels = reference(os.path.join(SUITE, name))
        assert len(pixels) == width * height * 4
        lines.append(f"{name}\t{width}\t{height}\t{fmt}\t{fnv1a64(bytes(pixels)):016x}")
    with open(os.path.join(HERE, "pngsuite.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(len(lines) - 1, "references written")


if __name__ == "__main__":
    main()
