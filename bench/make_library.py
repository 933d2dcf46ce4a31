#!/usr/bin/env python3
"""Generate a media library for bench/cases/audit.py and photo-audit.py.

    make_library.py mixed OUT --files N --testmedia DIR [--shared DIR]
        N files spread over OUT/YYYY/MM/ (and a few album folders), copied (not linked) from
        phone-sized clips (85 %), JPEG photos (14 %) and bad files (1 %). The clips are
        ../shared/media's iphone_rotated.mov, dolbyVision-hdr.MOV,
        sample_rotate_and_reflect.mp4 and sample.mp4 when --shared is given, else
        TestMedia's clips. Copies, so that every file is its own inode and its own pages in
        the page cache, and so that nothing done to the library can reach the originals.

    make_library.py photos OUT --files N
        N small photos spread over OUT/YYYY/MM/ like `mixed`, copied from 20 sources made once into
        OUT-sources/ from ffmpeg's testsrc2 pattern at four sizes (480x360, 360x480, 512x384,
        384x512): HEIC by heif-enc (half with a 160 px thumbnail item), JPEG by ffmpeg (half with
        EXIF orientation 6 or 8, set by exiftool), PNG and TIFF (deflate) by ffmpeg, WebP by cwebp.

    make_library.py clips OUT --files N --from LIB
        N hard links to the clips (.mov/.mp4, any case) of the library LIB, cycled, spread
        over OUT/YYYY/MM/: a clips-only library for the "phone-sized clips" target.

    make_library.py times OUT --copies K --from LIB
        K hard-linked copies of the library LIB (OUT/copy-00/..., ...): K times the files in
        almost no disk space, for the memory check.

    make_library.py subset OUT --every K --from LIB
        hard links to every K-th file of the library LIB (in walk order), in the same folders:
        a fixed sample of LIB with its mix of kinds, for tools too slow to run on all of it.

A library is reused when OUT.json (beside OUT, not in it) says it was made with the same parameters and
sources (names, sizes); otherwise OUT is deleted and made again. Prints one line of JSON
on stdout: the file counts by kind and the bytes.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

CLIP_EXT = (".mov", ".mp4")


def sources_mixed(testmedia, shared):
    tm = lambda n: os.path.join(testmedia, n)
    if shared:
        clips = [os.path.join(shared, n) for n in
                 ("iphone_rotated.mov", "dolbyVision-hdr.MOV", "sample_rotate_and_reflect.mp4", "sample.mp4")]
        photos = [os.path.join(shared, f"Landscape_{i}.jpg") for i in range(9)]
    else:
        clips = [tm(f"orient-{i}.mp4") for i in range(1, 9)] + [tm(f"orient-{i}-hevc.mov") for i in range(1, 9)]
        clips += [tm("audio-first.mov"), tm("anamorphic-6.mp4")]
        photos = []
    photos += [tm(f"orient-{i}.jpg") for i in range(1, 9)]
    bad = [tm(n) for n in ("bad-empty.mp4", "bad-random.mp4", "bad-text.mp4", "bad-truncated.mp4")]
    for p in clips + photos + bad:
        if not os.path.isfile(p):
            sys.exit(f"make_library.py: missing source file {p}")
    return clips, photos, bad


def sources_photos(d):
    os.makedirs(d, exist_ok=True)
    out = []
    for i, (w, h) in enumerate([(480, 360), (360, 480), (512, 384), (384, 512)]):
        b = os.path.join(d, f"src-{i}")
        ff = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", b + ".png"]
        steps = [
            (".png", [["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=s={w}x{h}",
                       "-vf", f"hue=h={i * 60}", "-frames:v", "1", b + ".png"]]),
            (".jpg", [ff + ["-q:v", "4", b + ".jpg"]]
             + ([["exiftool", "-q", "-overwrite_original", f"-Orientation#={6 + i}", b + ".jpg"]] if i % 2 else [])),
            (".tif", [ff + ["-compression_algo", "deflate", b + ".tif"]]),
            (".webp", [["cwebp", "-quiet", "-q", "75", b + ".png", "-o", b + ".webp"]]),
            (".heic", [["heif-enc", "-q", "50", b + ".png", "-o", b + ".heic"] + (["-t", "160"] if i % 2 else [])]),
        ]
        for ext, commands in steps:
            if not os.path.exists(b + ext):
                for c in commands:
                    r = subprocess.run(c, stdin=subprocess.DEVNULL, capture_output=True, text=True)
                    if r.returncode:
                        sys.exit(f"make_library.py: {' '.join(c)} exited {r.returncode}: {r.stderr.strip()[:300]}")
            out.append(b + ext)
    return out


def folder_for(i):
    # 10 years x 12 months, and every 25th file in one of 6 album folders, two levels deeper
    if i % 25 == 7:
        return os.path.join("Albums", f"album-{i % 6}", f"{2015 + i % 10}")
    return os.path.join(f"{2015 + i % 10}", f"{(i // 10) % 12 + 1:02d}")


def plan_mixed(n, clips, photos, bad):
    n_bad = max(4, n // 100)
    n_photo = n * 14 // 100
    n_clip = n - n_bad - n_photo
    kinds = ["clip"] * n_clip + ["photo"] * n_photo + ["bad"] * n_bad
    # interleave deterministically: spread photos and bad files through the library
    order = sorted(range(n), key=lambda i: (i * 7919) % n)
    plan = []
    counters = {"clip": 0, "photo": 0, "bad": 0}
    pools = {"clip": clips, "photo": photos, "bad": bad}
    for idx, i in enumerate(order):
        kind = kinds[i]
        pool = pools[kind]
        src = pool[counters[kind] % len(pool)]
        counters[kind] += 1
        ext = os.path.splitext(src)[1]
        name = ("IMG_" if kind != "bad" else "BROKEN_") + f"{idx:06d}{ext}"
        plan.append((src, os.path.join(folder_for(idx), name), kind))
    return plan


def signature(mode, args, sources):
    return {
        "mode": mode,
        "files": getattr(args, "files", None),
        "copies": getattr(args, "copies", None),
        # name, size and inode: a linked library is remade when the library it links to was
        "sources": [[os.path.basename(s), os.path.getsize(s), os.stat(s).st_ino] for s in sources],
        "version": 2,
    }


def reuse(out, sig):
    try:
        with open(out.rstrip("/") + ".json") as f:
            old = json.load(f)
        if old.get("signature") != sig:
            return None
        # still all there?
        return old if sum(1 for _ in library_files(out)) == old.get("files") else None
    except (OSError, ValueError):
        return None


def finish(out, sig, plan):
    counts = {}
    size = 0
    for src, rel, kind in plan:
        counts[kind] = counts.get(kind, 0) + 1
        size += os.path.getsize(os.path.join(out, rel))
    dirs = len({os.path.dirname(rel) for _, rel, _ in plan})
    info = {"signature": sig, "files": len(plan), "by_kind": counts, "bytes": size, "folders": dirs,
            "sources": sorted({os.path.basename(s) for s, _, _ in plan}) if sig["mode"] == "mixed" else None}
    with open(out.rstrip("/") + ".json", "w") as f:
        json.dump(info, f)
    return info


def build(out, plan, link):
    if os.path.exists(out):
        shutil.rmtree(out)
    made = set()
    for src, rel, _ in plan:
        dst = os.path.join(out, rel)
        d = os.path.dirname(dst)
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        if link:
            os.link(src, dst)
        else:
            shutil.copyfile(src, dst)


def library_files(lib):
    for root, dirs, files in os.walk(lib):
        dirs.sort()
        for f in sorted(files):
            yield os.path.join(root, f)


def kind_of(p):
    name = os.path.basename(p)
    return "bad" if name.startswith("BROKEN_") else "clip" if name.lower().endswith(CLIP_EXT) else "photo"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["mixed", "photos", "clips", "times", "subset"])
    ap.add_argument("out")
    ap.add_argument("--files", type=int)
    ap.add_argument("--copies", type=int)
    ap.add_argument("--every", type=int)
    ap.add_argument("--testmedia")
    ap.add_argument("--shared")
    ap.add_argument("--from", dest="src")
    args = ap.parse_args()
    out = os.path.abspath(args.out)

    if args.mode == "mixed":
        if not args.files or not args.testmedia:
            ap.error("mixed needs --files and --testmedia")
        clips, photos, bad = sources_mixed(args.testmedia, args.shared)
        sig = signature("mixed", args, clips + photos + bad)
        plan = plan_mixed(args.files, clips, photos, bad)
        link = False
    elif args.mode == "photos":
        if not args.files:
            ap.error("photos needs --files")
        pool = sources_photos(out.rstrip("/") + "-sources")
        sig = signature("photos", args, pool)
        plan = [(pool[i % len(pool)], os.path.join(folder_for(i), f"IMG_{i:06d}{os.path.splitext(pool[i % len(pool)])[1]}"),
                 os.path.splitext(pool[i % len(pool)])[1][1:]) for i in range(args.files)]
        link = False
    elif args.mode == "clips":
        if not args.files or not args.src:
            ap.error("clips needs --files and --from")
        pool = [p for p in library_files(args.src) if p.lower().endswith(CLIP_EXT)
                and not os.path.basename(p).startswith("BROKEN_")]
        if not pool:
            sys.exit(f"make_library.py: no clips in {args.src}")
        sig = signature("clips", args, pool[:50]) | {"from": os.path.abspath(args.src), "pool": len(pool)}
        plan = []
        for i in range(args.files):
            src = pool[i % len(pool)]
            plan.append((src, os.path.join(folder_for(i), f"IMG_{i:06d}{os.path.splitext(src)[1]}"), "clip"))
        link = True
    elif args.mode == "subset":
        if not args.every or not args.src:
            ap.error("subset needs --every and --from")
        base = list(library_files(args.src))
        if not base:
            sys.exit(f"make_library.py: {args.src} is empty")
        sig = signature("subset", args, base[:50]) | {"from": os.path.abspath(args.src), "base": len(base),
                                                       "every": args.every}
        plan = [(p, os.path.relpath(p, args.src), kind_of(p)) for p in base[:: args.every]]
        link = True
    else:
        if not args.copies or not args.src:
            ap.error("times needs --copies and --from")
        base = list(library_files(args.src))
        if not base:
            sys.exit(f"make_library.py: {args.src} is empty")
        sig = signature("times", args, base[:50]) | {"from": os.path.abspath(args.src), "base": len(base)}
        plan = [(p, os.path.join(f"copy-{k:02d}", os.path.relpath(p, args.src)), kind_of(p))
                for k in range(args.copies) for p in base]
        link = True

    info = reuse(out, sig)
    if info is None:
        build(out, plan, link)
        info = finish(out, sig, plan)
        info["reused"] = False
    else:
        info["reused"] = True
    info.pop("signature", None)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
