#!/usr/bin/env python3
"""The decode paths on mutated files, black-box (docs/hostile-input.md, round 5).

The fuzz targets run the readers in-process; the decoders behind `thumbnail`, `inspect --deep` and
`inspect --content` are reached only through the program. This makes mutants of TestMedia's files
(and ../shared/media's, when present): the file cut; random bytes; a box's size or a field near
the start of its payload (ISOBMFF), the bytes after a JPEG marker, a PNG or WebP chunk's header and
first bytes set to edge values. Each mutant goes through the three commands; a signal, an exit
status outside 0/1/2, over 20 s, over 400 MB, or (exit 2) more than one line on stderr or nothing on
either stream is printed as a JSON line and the mutant kept. With --batch, the mutants go into one
folder instead, through `audit --content --jsonl --jobs 2` (every file must have a record) and
`thumbnail DIR --out-dir --jobs 2`.

    python3 Fuzz/decode-sweep.py .build/release/vidorient /tmp/sweep --mutants 500 --seed 11
    python3 Fuzz/decode-sweep.py .build/release/vidorient /tmp/sweep --mutants 300 --seed 21 --batch

Run from the repository root (the bases are named relative to it). Needs GNU time (/usr/bin/time).
"""
import argparse, json, os, random, shutil, struct, subprocess, sys, time

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("binary")
ap.add_argument("out", help="a scratch folder (emptied)")
ap.add_argument("--mutants", type=int, default=300)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--batch", action="store_true")
args = ap.parse_args()
BIN, OUT, N, SEED = os.path.abspath(args.binary), args.out, args.mutants, args.seed
rng = random.Random(SEED)
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)

BASES = [
    "TestMedia/orient-6.heic", "TestMedia/orient-5.avif", "TestMedia/heic-thumbnail-6.heic",
    "TestMedia/heic-meta-last.heic", "TestMedia/orient-6.jpg", "TestMedia/orient-6.png",
    "TestMedia/orient-6.webp", "TestMedia/orient-6-ii.tif", "TestMedia/orient-6.mp4",
    "TestMedia/orient-6-hevc.mov", "TestMedia/anamorphic-6.mp4",
]
shared = "../shared/media"
for name in ["IMG_2682.heic", "samsung-one-ui-6.heic", "8bit-sRGB.avif", "iphone_rotated.mov", "Landscape_6.jpg"]:
    if os.path.exists(os.path.join(shared, name)):
        BASES.append(os.path.join(shared, name))

CONTAINERS = {b"meta": 4, b"iprp": 0, b"ipco": 0, b"moov": 0, b"trak": 0, b"mdia": 0, b"minf": 0,
              b"stbl": 0, b"dinf": 0, b"iinf": 6, b"edts": 0, b"udta": 0, b"stsd": 8}


def boxes(data, start, end, depth=0, out=None):
    out = [] if out is None else out
    pos = start
    while pos + 8 <= end and depth < 8:
        size = struct.unpack(">I", data[pos:pos + 4])[0]
        typ = bytes(data[pos + 4:pos + 8])
        header = 8
        if size == 1 and pos + 16 <= end:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            break
        out.append((typ, pos, header, size))
        if typ in CONTAINERS:
            skip = CONTAINERS[typ]
            if typ == b"iinf":
                skip = 6 if data[pos + header] == 0 else 8
            boxes(data, pos + header + skip, pos + size, depth + 1, out)
        pos += size
    return out


INTERESTING = [0, 1, 2, 7, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 16384, 65536]


def put_int(data, off, width):
    if off + width > len(data):
        return
    v = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
    data[off:off + width] = v.to_bytes(width, "big")


def mutate_isobmff(data):
    bs = boxes(data, 0, len(data))
    if not bs:
        return "none"
    typ, pos, header, size = rng.choice(bs)
    kind = rng.random()
    if kind < 0.2:
        put_int(data, pos, 4)  # the size
        return f"{typ.decode('latin1')}@{pos} size"
    # a field in the payload: 1, 2 or 4 bytes
    if size - header <= 0:
        return "empty"
    off = pos + header + rng.randrange(0, max(1, min(size - header, 64)))
    put_int(data, off, rng.choice([1, 2, 4]))
    return f"{typ.decode('latin1')}@{pos}+{off - pos}"


def mutate_jpeg(data):
    marks = [i for i in range(len(data) - 1) if data[i] == 0xFF and data[i + 1] in
             (0xC0, 0xC1, 0xC2, 0xC4, 0xDB, 0xDA, 0xDD, 0xE1, 0xE2)]
    if not marks:
        return "none"
    i = rng.choice(marks)
    off = i + 2 + rng.randrange(0, 12)
    put_int(data, off, rng.choice([1, 2]))
    return f"marker {data[i + 1]:02x}@{i}+{off - i}"


def mutate_png(data):
    pos, chunks = 8, []
    while pos + 12 <= len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        chunks.append((pos, n))
        pos += 12 + n
        if n > len(data):
            break
    if not chunks:
        return "none"
    pos, n = rng.choice(chunks)
    off = pos + rng.randrange(0, 8 + min(n, 16))
    put_int(data, off, rng.choice([1, 2, 4]))
    return f"chunk@{pos}+{off - pos}"


def mutate_riff(data):
    pos, chunks = 12, []
    while pos + 8 <= len(data):
        n = struct.unpack("<I", data[pos + 4:pos + 8])[0]
        chunks.append((pos, n))
        pos += 8 + n + (n & 1)
    if not chunks:
        return "none"
    pos, n = rng.choice(chunks)
    off = pos + rng.randrange(0, 8 + min(n, 16))
    width = rng.choice([1, 2, 4])
    if off + width <= len(data):
        v = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
        data[off:off + width] = v.to_bytes(width, "little")
    return f"riff@{pos}+{off - pos}"


def flips(data):
    for _ in range(rng.randrange(1, 16)):
        i = rng.randrange(len(data))
        data[i] = rng.randrange(256)
    return "flips"


def mutate(path):
    data = bytearray(open(path, "rb").read())
    ext = path.rsplit(".", 1)[-1].lower()
    r = rng.random()
    if r < 0.15:
        return data[:rng.randrange(1, len(data))], "cut"
    if r < 0.3:
        return data, flips(data)
    if ext in ("heic", "avif", "mp4", "mov"):
        how = mutate_isobmff(data)
        if rng.random() < 0.3:
            how += "+" + mutate_isobmff(data)
    elif ext == "jpg":
        how = mutate_jpeg(data)
    elif ext == "png":
        how = mutate_png(data)
    elif ext == "webp":
        how = mutate_riff(data)
    else:
        how = flips(data)
    return data, how


def batch():
    folder, thumbs = os.path.join(OUT, "in"), os.path.join(OUT, "thumbs")
    os.makedirs(folder)
    for k in range(N):
        base = rng.choice(BASES)
        data, _ = mutate(base)
        open(os.path.join(folder, f"m{k}.{base.rsplit('.', 1)[-1]}"), "wb").write(data)
    for command in (["audit", folder, "--content", "--jsonl", "--jobs", "2", "--no-progress"],
                    ["thumbnail", folder, "--out-dir", thumbs, "--jobs", "2", "--quiet"]):
        started = time.time()
        p = subprocess.run(["/usr/bin/time", "-f", "RSS %M", BIN] + command, capture_output=True, timeout=1800)
        err = p.stderr.decode("utf-8", "replace").splitlines()
        rss = [int(line.split()[1]) for line in err if line.startswith("RSS ")]
        said = [line for line in err if line.startswith("vidorient: ")]
        other = [line for line in err if not line.startswith(("vidorient: ", "RSS ", "Command exited"))]
        print(f"{command[0]}: exit {p.returncode}, {time.time() - started:.1f} s, {rss[0] if rss else '?'} KB, "
              f"{len(said)} lines from vidorient, other stderr lines: {other[:5]}", flush=True)
        if command[0] == "audit":
            paths = {json.loads(line)["path"] for line in p.stdout.decode().splitlines() if line.startswith("{")}
            print(f"  records for {len(paths)} of {N} files", flush=True)
        else:
            print(f"  {len(os.listdir(thumbs)) if os.path.isdir(thumbs) else 0} thumbnails made", flush=True)


if args.batch:
    batch()
    sys.exit(0)

COMMANDS = [
    lambda m, o: ["thumbnail", m, "-o", o + ".png"],
    lambda m, o: ["inspect", "--deep", "--json", m],
    lambda m, o: ["inspect", "--content", "--json", m],
]

found = []
start = time.time()
for k in range(N):
    base = rng.choice(BASES)
    data, how = mutate(base)
    ext = base.rsplit(".", 1)[-1]
    m = os.path.join(OUT, f"m{SEED}-{k}.{ext}")
    open(m, "wb").write(data)
    bad = False
    for c in COMMANDS:
        args = c(m, os.path.join(OUT, f"o{SEED}-{k}"))
        t0 = time.time()
        try:
            p = subprocess.run(["/usr/bin/time", "-f", "RSS %M", BIN] + args, capture_output=True, timeout=60)
            rc = p.returncode
            err = p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = "timeout", ""
            p = None
        dt = time.time() - t0
        rss = 0
        for line in err.splitlines():
            if line.startswith("RSS "):
                rss = int(line.split()[1])
        sig = any(s in err for s in ("Command terminated by signal", "Fatal error", "Illegal instruction"))
        lines = [l for l in err.splitlines() if l and not l.startswith("RSS ") and not l.startswith("Command exited")]
        problem = None
        if rc == "timeout" or dt > 20:
            problem = f"slow {dt:.1f}s"
        elif sig or rc not in (0, 1, 2):
            problem = f"rc {rc}"
        elif rss > 400_000:
            problem = f"rss {rss}"
        elif rc == 2 and (len(lines) > 1 or (not lines and not p.stdout.strip())):
            problem = f"{len(lines)} stderr lines"
        if problem:
            bad = True
            found.append({"mutant": m, "base": base, "how": how, "args": args[0:2], "problem": problem,
                          "stderr": lines[-3:]})
            print(json.dumps(found[-1]), flush=True)
    if not bad:
        os.remove(m)
    for f in os.listdir(OUT):
        if f.startswith(f"o{SEED}-{k}"):
            os.remove(os.path.join(OUT, f))
print(f"done: {N} mutants, {len(found)} problems, {time.time() - start:.0f} s", flush=True)
