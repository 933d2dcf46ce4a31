#!/usr/bin/env python3
"""Materialise the photo and video sets listed beside this script.

Every listed file is read from its repository at the commit that sources.tsv
names, checked against the sha256 that the list names, and written to the cache
folder:

    .build-models/photos/<source>/<path>   (models/photos/photos.tsv)
    .build-models/videos/<source>/<path>   (models/videos/videos.tsv, held out, and
                                            models/videos/choose.tsv, the clips rules are chosen on)

A repository is read from a local snapshot when one is there (a git directory
at <mirrors>/<owner>+<name>/repo or .../repo/.git, as this workplace's fetch
tool makes them) and otherwise from a blob-less `git clone` of the public
repository, kept under .build-models/git/. Python 3 standard library only.

    models/photos/fetch.py                     # photos and videos
    models/photos/fetch.py --set photos --split test
    models/photos/fetch.py --source coco128 --cache /tmp/photos

Exit status 0 when every selected file is in the cache with the right bytes,
1 when some could not be had (they are named on stderr), 64 on bad usage.
"""

import argparse
import csv
import hashlib
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# Each set: its folder, its list, the list of its sources, and its cache folder under .build-models.
SETS = {
    "photos": (os.path.join(ROOT, "models", "photos"), "photos.tsv", "sources.tsv", "photos"),
    "videos": (os.path.join(ROOT, "models", "videos"), "videos.tsv", "sources.tsv", "videos"),
    "videos-choose": (os.path.join(ROOT, "models", "videos"), "choose.tsv", "choose-sources.tsv", "videos"),
}


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def git(gitdir, *args, **kw):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw).stdout


def has_commit(gitdir, commit):
    r = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e", commit + "^{commit}"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0


def local_snapshot(mirrors, repository, commit):
    base = os.path.join(mirrors, repository.replace("/", "+"), "repo")
    for gitdir in (os.path.join(base, ".git"), base):
        if os.path.isfile(os.path.join(gitdir, "HEAD")) and has_commit(gitdir, commit):
            return gitdir
    return None


def cloned(clones, repository, commit, log):
    """A blob-less clone that holds `commit`, made or updated under `clones`."""
    gitdir = os.path.join(clones, repository.replace("/", "+") + ".git")
    url = "https://github.com/%s.git" % repository
    if not os.path.isdir(gitdir):
        log("cloning %s (no blobs until needed)" % url)
        os.makedirs(clones, exist_ok=True)
        subprocess.run(["git", "clone", "--quiet", "--bare", "--filter=blob:none", url, gitdir], check=True)
    if not has_commit(gitdir, commit):
        subprocess.run(["git", "--git-dir", gitdir, "fetch", "--quiet", "--filter=blob:none", "origin", commit],
                       check=True)
    return gitdir


class BlobReader:
    """`git cat-file --batch` over one repository."""

    def __init__(self, gitdir):
        self.p = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read(self, commit, path):
        self.p.stdin.write(("%s:%s\n" % (commit, path)).encode("utf-8"))
        self.p.stdin.flush()
        header = self.p.stdout.readline().split()
        if len(header) != 3:
            return None  # "<name> missing" (or ambiguous)
        size = int(header[2])
        data = self.p.stdout.read(size)
        self.p.stdout.read(1)
        return data

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_atomically(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".fetch-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=list(SETS) + ["all"], default="all")
    ap.add_argument("--split", choices=["train", "validation", "test", "test2", "test3", "test4", "text-choose"],
                    help="photos of one split only (videos have no split)")
    ap.add_argument("--source", action="append", help="only this source id (repeatable)")
    ap.add_argument("--cache", help="cache folder (default .build-models/photos or .build-models/videos at the project root; "
                    "with --set all, DIR/photos and DIR/videos)")
    ap.add_argument("--mirrors", default=os.environ.get("VIDORIENT_MIRRORS", "/work/.mirror"),
                    help="folder of local repository snapshots (default $VIDORIENT_MIRRORS or /work/.mirror)")
    ap.add_argument("--no-clone", action="store_true", help="use local snapshots only")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr)

    sets = list(SETS) if args.set == "all" else [args.set]
    if args.source:
        known = set()
        for name in sets:
            listing = os.path.join(SETS[name][0], SETS[name][2])
            if os.path.exists(listing):
                known |= {s["id"] for s in read_tsv(listing)}
        unknown = set(args.source) - known
        if unknown:
            print("fetch.py: unknown source %s" % ", ".join(sorted(unknown)), file=sys.stderr)
            return 64
    clones = os.path.join(ROOT, ".build-models", "git")
    failed = []
    total_got = total_want = 0
    for name in sets:
        folder, listing, source_listing, cache_name = SETS[name]
        if not os.path.exists(os.path.join(folder, listing)):
            log("%s: no %s, skipped" % (name, os.path.join(folder, listing)))
            continue
        sources = {s["id"]: s for s in read_tsv(os.path.join(folder, source_listing))}
        rows = read_tsv(os.path.join(folder, listing))
        if args.source:
            rows = [r for r in rows if r["source"] in args.source]
        if args.split:
            if name != "photos":
                continue
            rows = [r for r in rows if sources[r["source"]]["split"] == args.split]
        cache = args.cache if args.cache and len(sets) == 1 else os.path.join(ROOT, ".build-models", cache_name)
        if args.cache and len(sets) > 1:
            cache = os.path.join(args.cache, cache_name)
        by_source = {}
        for r in rows:
            by_source.setdefault(r["source"], []).append(r)
        got = 0
        for sid, items in sorted(by_source.items()):
            src = sources[sid]
            todo = []
            for r in items:
                dest = os.path.join(cache, sid, r["path"])
                if os.path.isfile(dest) and sha256_file(dest) == r["sha256"]:
                    got += 1
                else:
                    todo.append((r, dest))
            if not todo:
                continue
            gitdir = local_snapshot(args.mirrors, src["repository"], src["commit"])
            if gitdir is None and not args.no_clone:
                try:
                    gitdir = cloned(clones, src["repository"], src["commit"], log)
                except (subprocess.CalledProcessError, OSError) as e:
                    log("%s: cannot clone %s: %s" % (sid, src["repository"], e))
            if gitdir is None:
                failed += ["%s/%s: no copy of %s@%s" % (sid, r["path"], src["repository"], src["commit"][:12])
                           for r, _ in todo]
                continue
            reader = BlobReader(gitdir)
            try:
                for r, dest in todo:
                    data = reader.read(src["commit"], r["path"])
                    if data is None:
                        failed.append("%s/%s: not in %s@%s" % (sid, r["path"], src["repository"], src["commit"][:12]))
                    elif hashlib.sha256(data).hexdigest() != r["sha256"]:
                        failed.append("%s/%s: sha256 differs from the list" % (sid, r["path"]))
                    else:
                        write_atomically(dest, data)
                        got += 1
            finally:
                reader.close()
        log("%s: %d of %d files in %s" % (name, got, len(rows), cache))
        total_got += got
        total_want += len(rows)
    for f in failed:
        print("fetch.py: " + f, file=sys.stderr)
    print("%d of %d files fetched and verified" % (total_got, total_want))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
