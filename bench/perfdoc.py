#!/usr/bin/env python3
"""Replace one benchmark's block of docs/performance.md, leaving the rest alone.

    perfdoc.py splice DOC NAME RESULTS.md

NAME is the script, e.g. bench/thumbnail.sh: the block runs from
`<!-- BEGIN NAME results -->` to `<!-- END NAME results -->`. The document is read right
before it is written (others edit other sections of it at the same time); when the block is
absent it is appended at the end. The write is atomic (a temporary file renamed into place).
"""

import os
import sys
import tempfile


def markers(name):
    return f"<!-- BEGIN {name} results -->", f"<!-- END {name} results -->"


def splice(doc, name, results):
    begin, end = markers(name)
    block = begin + "\n\n" + results.strip("\n") + "\n\n" + end
    text = open(doc, encoding="utf-8").read() if os.path.exists(doc) else ""
    nb, ne = text.count(begin), text.count(end)
    if nb == 0 and ne == 0:
        new = text.rstrip("\n") + ("\n\n" if text.strip() else "") + block + "\n"
    elif nb == 1 and ne == 1 and text.index(begin) < text.index(end):
        b, e = text.index(begin), text.index(end) + len(end)
        new = text[:b] + block + text[e:]
    else:
        sys.exit(f"perfdoc.py: {doc} has {nb} '{begin}' and {ne} '{end}' markers, "
                 "not one pair in order; fix it by hand, nothing was written")
    d = os.path.dirname(os.path.abspath(doc))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".performance.", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(new)
        if os.path.exists(doc):
            os.chmod(tmp, os.stat(doc).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, doc)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def check(doc, name):
    """Exit non-zero, saying why, when splice would refuse."""
    begin, end = markers(name)
    if not os.path.exists(doc):
        return
    text = open(doc, encoding="utf-8").read()
    nb, ne = text.count(begin), text.count(end)
    if not ((nb == 0 and ne == 0) or (nb == 1 and ne == 1 and text.index(begin) < text.index(end))):
        sys.exit(f"perfdoc.py: {doc} has {nb} '{begin}' and {ne} '{end}' markers, not one pair in order")


def main(argv):
    if len(argv) == 5 and argv[1] == "splice":
        splice(argv[2], argv[3], open(argv[4], encoding="utf-8").read())
    elif len(argv) == 4 and argv[1] == "check":
        check(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
