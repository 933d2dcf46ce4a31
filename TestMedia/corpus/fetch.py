#!/usr/bin/env python3
"""Fetch the public corpora the corpus tests read (never committed: they are other people's data).

  python3 TestMedia/corpus/fetch.py [--from-git DIR ...] [--into DIR]

Brings, at pinned commits:
  exiftool/exiftool                      t/images (exiftool's own small test images, raws included)
  drewnoakes/metadata-extractor-images   jpg/ png/ tif/ cr3/ crw/ raf/ orf/ rw2/ (cameras' files, damaged ones)
into DIR (default: .build/corpus, git-ignored), one folder per repository, as
`exiftool/…` and `metadata-extractor-images/…`. Files whose contents a snapshot lacks (large
files) are skipped. With --from-git, a local clone or bare snapshot of a repository (named
OWNER+NAME or containing it) is read instead of cloning from GitHub.

Then `VIDORIENT_CORPUS=.build/corpus swift test --filter CorpusDifferentialTests` holds
vidorient's photo readers to exiftool on every file (see docs/photos.md, "The corpus test").
"""
import argparse, os, subprocess, sys, tempfile

SOURCES = {
    "exiftool": ("exiftool/exiftool", "38bdbace3037a89d2c332664fc60bddad118958a", ["t/images"]),
    "metadata-extractor-images": ("drewnoakes/metadata-extractor-images", "4beba640487802442bc9931fb01274e908102d3a",
                                  ["jpg", "png", "tif", "cr3", "crw", "raf", "orf", "rw2"]),
}


def git(*args, cwd=None, check=True, capture=True):
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=capture)


def export(repo_git, commit, folders, into):
    names = git("--git-dir", repo_git, "ls-tree", "-r", "--name-only", commit, "--", *folders).stdout.decode().splitlines()
    copied = skipped = 0
    for name in names:
        if "/metadata/" in name:  # metadata-extractor's expected outputs, not pictures
            continue
        blob = git("--git-dir", repo_git, "cat-file", "blob", f"{commit}:{name}", check=False)
        if blob.returncode != 0:
            skipped += 1
            continue
        path = os.path.join(into, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(blob.stdout)
        copied += 1
    return copied, skipped


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from-git", action="append", default=[], help="a local clone or snapshot to read")
    parser.add_argument("--into", default=os.path.join(os.path.dirname(__file__), "..", "..", ".build", "corpus"))
    args = parser.parse_args()
    for short, (repo, commit, folders) in SOURCES.items():
        into = os.path.join(args.into, short)
        local = [d for d in args.from_git if repo.replace("/", "+") in d or d.rstrip("/").endswith(repo.split("/")[1])]
        if local:
            git_dir = git("-C", local[0], "rev-parse", "--git-dir").stdout.decode().strip()
            git_dir = os.path.join(local[0], git_dir) if not os.path.isabs(git_dir) else git_dir
            copied, skipped = export(git_dir, commit, folders, into)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                git("clone", "--filter=blob:none", "--no-checkout", f"https://github.com/{repo}", tmp, capture=False)
                copied, skipped = export(os.path.join(tmp, ".git"), commit, folders, into)
        print(f"{short}: {copied} files into {into}" + (f", {skipped} not in the snapshot" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
