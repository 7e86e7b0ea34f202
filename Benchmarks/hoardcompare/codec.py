"""codec and webp-decode: Hoard's codecs against libjpeg-turbo's tjbench, libpng (peers/pngbench.c)
and libwebp's dwebp, on the same photo."""
import re
import statistics

from .inputs import other_formats
from .report import row, side
from .runner import PYTHON, Section

HOARD_CODEC_LINE = re.compile(r"^(jpeg decode 1/\d|jpeg encode q90|png decode|png encode)\s+[\d.]+ fps\s+([\d.]+) MP/s",
                              re.M)
TJ_ENCODE_LINE = re.compile(r"^run \d+\s+encode q90.*?: Compress\w* [\d.]+ fps ([\d.]+) MP/s", re.M)
TJ_DECODE_LINE = re.compile(r"^run \d+\s+decode .*? scale (1/\d): Decompress [\d.]+ fps ([\d.]+) MP/s", re.M)
JPEG_WORK = ["jpeg decode 1/1", "jpeg decode 1/2", "jpeg decode 1/4", "jpeg decode 1/8", "jpeg encode q90"]
PNGBENCH_ENCODES_TWICE = ("pngbench's encode time covers two compressions: png_image_write_get_memory_size "
                          "compresses the whole image once to size the buffer, so this ratio is about 2x too kind to Hoard")


def measure_codec(c):
    """HoardMeasure codec, tjbench_codec.py and pngbench on the same photo, alternating."""
    jpg, png, ppm = c.images / "jpg" / "Aqua.jpg", c.images / "png" / "Aqua.png", c.images / "Aqua.ppm"
    hoard, tj, pb = {}, {}, {}
    for _ in range(c.reps):
        for m in HOARD_CODEC_LINE.finditer(c.run([c.tools["measure"], "codec", jpg, png], "codec")):
            hoard.setdefault(m.group(1), []).append(float(m.group(2)))
        text = c.run([PYTHON, c.peers / "tjbench_codec.py", ppm, jpg, "1"], "codec")
        for m in TJ_ENCODE_LINE.finditer(text):
            tj.setdefault("jpeg encode q90", []).append(float(m.group(1)))
        for m in TJ_DECODE_LINE.finditer(text):
            tj.setdefault(f"jpeg decode {m.group(1)}", []).append(float(m.group(2)))
        # pngbench times one decode and one encode per pass: 20 passes, their median is this round's figure.
        text = c.run([c.tools["pngbench"], "20", png], "codec")
        decodes = [float(x) for x in re.findall(r"decode ([\d.]+) MP/s", text)]
        encodes = [float(x) for x in re.findall(r"encode \(default\) ([\d.]+) MP/s", text)]
        if decodes:
            pb.setdefault("png decode", []).append(statistics.median(decodes))
            pb.setdefault("png encode", []).append(statistics.median(encodes))
    rows = []
    for work in JPEG_WORK:
        if work not in hoard or work not in tj:
            raise RuntimeError(f"no '{work}' figure from HoardMeasure or tjbench (see logs/codec.log)")
        label = work.replace("jpeg", "JPEG") + (" 4:2:0" if "encode" in work else " scale")
        rows.append(row("codec", f"{label}, Aqua 2560x1600, 1 thread", "MP/s", side("Hoard Image", hoard[work]),
                        side("tjbench (libjpeg-turbo)", tj[work]), target=0.95))
    for work, target in (("png decode", 0.95), ("png encode", None)):
        if work not in hoard or work not in pb:
            raise RuntimeError(f"no '{work}' figure from HoardMeasure or pngbench (see logs/codec.log)")
        label = "PNG decode" if work == "png decode" else "PNG encode, zlib level 6"
        note = "" if work == "png decode" else PNGBENCH_ENCODES_TWICE
        rows.append(row("codec", f"{label}, Aqua 2560x1600, 1 thread", "MP/s", side("Hoard Image", hoard[work]),
                        side("pngbench (libpng simplified API)", pb[work]), target=target, note=note))
    return rows


def measure_webp_decode(c):
    """HoardMeasure webp-decode against `dwebp -mt -v` ("Time to decode picture") on the same files."""
    other_formats(c.run, c.peers, c.images)
    files = [("lossy, cwebp -q 90", c.images / "webp" / "Aqua.webp"),
             ("lossless, cwebp -lossless", c.images / "webp" / "Aqua-lossless.webp")]
    megapixels = 2560 * 1600 / 1e6
    hoard, dwebp = {}, {}
    for _ in range(c.reps):
        for label, path in files:
            text = c.run([c.tools["measure"], "webp-decode", path], "webp-decode")
            match = re.search(r"^webp decode \S+\s+[\d.]+ fps\s+([\d.]+) MP/s", text, re.M)
            if not match:
                raise RuntimeError("no figure from HoardMeasure webp-decode (see logs/webp-decode.log)")
            hoard.setdefault(label, []).append(float(match.group(1)))
            # dwebp times its decode alone (file read before, no output written): 30 processes, the median.
            seconds = []
            for _ in range(30):
                text = c.run(["dwebp", "-mt", "-v", path], "webp-decode")
                seconds += [float(x) for x in re.findall(r"Time to decode picture: ([\d.]+)s", text)]
            if not seconds:
                raise RuntimeError("no time from dwebp -v (see logs/webp-decode.log)")
            dwebp.setdefault(label, []).append(megapixels / statistics.median(seconds))
    return [row("webp-decode", f"WebP decode ({label}), Aqua 2560x1600, 1 caller (libwebp's filter thread on both)",
                "MP/s", side("Hoard Image", hoard[label]), side("dwebp -mt -v (libwebp)", dwebp[label]), target=0.95)
            for label, _ in files]


SECTIONS = [
    Section(
        "codec", measure_codec, frozenset({"measure", "pngbench"}),
        "Same photo (Aqua, 2560x1600, prepared by `peers/prepare_images.py`), one thread, in memory, source MP/s. "
        "JPEG: Hoard's `Image(data:)` (libjpeg-turbo through the libjpeg API, RGB out, islow DCT, "
        "fancy upsampling; 1/2..1/8 via `targetSize`, i.e. libjpeg's DCT scaling) and `jpegData(quality: 90)` "
        "(4:2:0, standard Huffman tables) vs `tjbench -rgb [-scale s]` and `tjbench PPM 90 -subsamp 420 -rgb`, "
        "both `-benchtime 3 -warmup 1` (`peers/tjbench_codec.py`) against HoardMeasure's 3 s after one warm-up. "
        "PNG: Hoard's decode and `pngData()` (zlib level 6, libpng's default filters) vs `peers/pngbench.c` "
        "(libpng simplified API, RGB, default settings; median of 20 passes per process). Same system "
        "libjpeg-turbo and libpng on both sides.",
        images=True),
    Section(
        "webp-decode", measure_webp_decode, frozenset({"measure"}),
        "Aqua 2560x1600 as `cwebp -q 90` (lossy) and `cwebp -lossless`, one caller, full size, RGB out "
        "(no alpha). Hoard: `HoardMeasure webp-decode` (`Image(data:)`: WebPGetFeatures, then WebPDecode "
        "into the image's buffer), calls for 3 s after one warm-up; libwebp filters lossy files on a thread of "
        "its own (`use_threads`). Peer: `dwebp -mt -v FILE` (no output "
        "file), its \"Time to decode picture\" (WebPDecode alone, the file read before, RGB for a file "
        "without alpha as for PNG output), median of 30 processes per repetition. Same system libwebp.",
        images=True),
]
