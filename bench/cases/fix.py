# `vidorient fix --rotation 90` on a QuickTime file of 1 GiB (issue 4) beside `exiftool -Rotation=90
# -overwrite_original` (rewrites the whole file) and an `ffmpeg -c copy` remux (writes a new one; FFmpeg
# 5.1's rotate tag is counter-clockwise, so -90 gives the same matrix). Two more rows show where the time
# goes: `vidorient --version` (start-up alone) and a program that plans and writes the fix as VideoFix does from the
# VidorientCore, VidorientIO and VidorientISOBMFF sources alone (no FFmpeg). Every run starts from the same file (reset to orientation 1,
# `sync`ed, in the page cache) and must leave a 90° matrix (ffprobe: rotation -90).
# Run: python3 bench/run.py fix [--write | --quick]
import glob
import os
import subprocess

NEEDS = ["exiftool", "ffmpeg", "ffprobe", "swiftc"]
MIB = 64 if QUICK else 1024
BIG, REMUX, B = f"{WORK}/fix-big.mov", f"{WORK}/fix-remux.mov", f"{WORK}/fix-build"
REPEATS, WARMUP = 7, 1
# 1920x1080 uncompressed (2vuy, 4147200 bytes a frame): every byte of mdat is media a remux must copy;
# moov after mdat, as cameras write it.
FRAMES = (MIB * 1048576 + 4147199) // 4147200


def SETUP(v):
    os.makedirs(B, exist_ok=True)
    # The modules a video fix needs and nothing else (VidorientFix's MatrixFix.fix is this, plus its
    # result): built as one package so that their `package` declarations are seen.
    flags = ("-swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature "
             "InternalImportsByDefault -package-name vidorient -O -parse-as-library -wmo").split()
    for m in ("VidorientCore", "VidorientIO", "VidorientISOBMFF"):
        sh(["swiftc", *flags, "-I", B, "-module-name", m, "-emit-module", "-emit-module-path", f"{B}/{m}.swiftmodule",
            "-c", "-o", f"{B}/{m}.o", *sorted(glob.glob(f"{REPO}/Sources/{m}/*.swift"))])
    open(f"{B}/main.swift", "w").write(
        "import VidorientCore\nimport VidorientIO\nimport VidorientISOBMFF\n\n@main struct FixInPlace {\n"
        "    // FILE [reset]: orientation 6 (90° clockwise), or 1 with `reset`, written in place, locked,\n"
        "    // read back as the command does (VidorientFix/VideoFix.swift).\n"
        "    static func main() throws {\n        let a = CommandLine.arguments\n"
        "        let lock = try FileLock(path: a[1])\n        let input = try FileBytes(path: a[1])\n"
        "        let movie = try MovieStructure(input)\n"
        "        let plan = try MatrixFix(movie, change: a.count > 2 ? .reset : .set(.right))\n"
        "        let expected = plan.expectedStructure(from: movie)\n"
        "        _ = try EditWriter.write(plan.edit, path: a[1], mode: .inPlace, lock: lock) { written in\n"
        "            guard try MovieStructure(path: written) == expected else { throw VidorientError(\"not as planned\") }\n"
        "        }\n    }\n}\n")
    sh(["swiftc", *flags[:-1], "-static-stdlib", "-I", B, f"{B}/main.swift", f"{B}/VidorientISOBMFF.o",
        f"{B}/VidorientIO.o", f"{B}/VidorientCore.o", "-o", f"{B}/fix-in-place"])
    sh(f"ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=1920x1080:r=30 -frames:v {FRAMES} -c:v rawvideo "
       f"-pix_fmt uyvy422 {BIG}")
    frames = sh(f"ffprobe -v error -select_streams v:0 -show_entries stream=nb_frames -of csv=p=0 {BIG}").strip()
    if frames != str(FRAMES):
        raise SystemExit(f"bench: error: ffprobe reads {frames} frames in {BIG}, expected {FRAMES}")
    GROUPS[0]["about"] = f"The file: {os.path.getsize(BIG) / 2**30:.2f} GiB ({FRAMES} frames), ext4 or whatever bench/work is on."
    return {}


def rotated(label, v):
    """What every command but --version must leave: ffprobe reads a rotation of -90."""
    if label.startswith("vidorient --version"):
        return None
    f = REMUX if label.startswith("ffmpeg") else BIG
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                        "stream_side_data=rotation", "-of", "csv=p=0", f], capture_output=True, text=True).stdout.split()
    return None if r[:1] == ["-90"] else f"{f} has rotation {r[:1] or 'none'}, expected -90"


def TEARDOWN():
    subprocess.run(["rm", "-rf", BIG, REMUX, B] + glob.glob(f"{WORK}/.fix-big.mov.vidorient-*"))


EXIF = "exiftool -Rotation=90 -overwrite_original"
GROUPS = [{
    "title": f"Fixing a {MIB} MiB file", "ref": EXIF, "after": rotated, "written": True,
    "before": f"sh -c '{B}/fix-in-place {BIG} reset && rm -f {REMUX} && sync'",
    "targets": [("ratio", "vidorient fix --rotation 90 --in-place", EXIF, round(1 / 300, 5))],
    "commands": {
        "vidorient fix --rotation 90": f"{{vidorient}} fix {BIG} --rotation 90",
        "vidorient fix --rotation 90 --in-place": f"{{vidorient}} fix {BIG} --rotation 90 --in-place",
        EXIF: f"exiftool -q -Rotation=90 -overwrite_original {BIG}",
        "ffmpeg -c copy -metadata:s:v:0 rotate=-90 (remux)":
            f"ffmpeg -nostdin -v error -y -i {BIG} -map 0 -c copy -metadata:s:v:0 rotate=-90 {REMUX}",
        "vidorient --version (start-up alone)": "{vidorient} --version",
        "MatrixFix in place, Core, IO and ISOBMFF alone (no FFmpeg)": f"{B}/fix-in-place {BIG}"}}]
