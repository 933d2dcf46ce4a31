#!/usr/bin/env python3
"""The one benchmark driver: runs a benchmark described by a file in bench/cases/.

    python3 bench/run.py CASE [--write] [--quick] [--repeats N]

CASE is a name (inspect, thumbnail, audit, fix, photo-inspect, ...) or a path. It prints the
results as markdown on stdout (progress on stderr); --write also replaces the block between
`<!-- BEGIN bench/cases/CASE.py results -->` and `<!-- END ... -->` in docs/performance.md
(appended when absent), and refuses --quick and --repeats. --quick is a short run to see that a
benchmark works: 3 repeats, 1 warm-up, and the case's small file sets.

One timing method for every benchmark: the commands of a group run one after the other in a
repeat, the order rotating from repeat to repeat (A B, B A, ... for two), after warm-up runs.
Wall time is taken around each process; CPU time and blocks written come from wait4's rusage;
peak RSS from /usr/bin/time -f %M (separate runs, or around every timed run with rss_every). A
ratio A ÷ B is the ratio of the mean wall times, with a ~95 % bootstrap interval over the repeats
(the runs of one repeat resampled together, 2000 resamples, fixed seed). Every command runs once
before it is timed; one that fails is reported as failed, with its first line of stderr, and
left out.

Environment: VIDORIENT_BIN (measure this binary, do not build), BENCH_MAX_LOAD (wait while the
1-minute load average is above it, default 1.5), BENCH_MAX_WAIT (at most this many seconds,
default 600; 0 for a short run), BENCH_WORK (generated files, default bench/work).

A case file (bench/cases/NAME.py) is Python run with testmedia(), shared(), made(), sh(), REPO,
WORK, SHARED, QUICK and NPROC defined; bench/cases/inspect.py is an example. It may set:
  NEEDS      commands that must be on PATH
  FILES      input files, from testmedia(NAMES), shared(NAMES) (optional) and made(NAME, COMMANDS)
  TOOLS      {label: command} run on every file; the first is the subject, the others its peers
  TARGETS    {peer: the most subject ÷ peer may be}
  REPEATS, WARMUP, OK (exit statuses that count as success; default (0,))
  GROUPS     [{title, commands: {label: command}, and optionally: about, ref (the label ratios
             divide by; default the first), repeats, warmup, ok, files (a count, or {label: count},
             for files/s), before (a command run untimed before each run), after(label, v) (a
             problem a run left, or None), rss_every, written (show bytes written), requires
             (paths; skipped without them), targets: [("ratio", A, B, most A ÷ B) |
             ("rate", A, least files/s) | ("rss", A, B, most A ÷ B)]}]
  SETUP(v), PER_FILE(path, v)   more {name: value} for the commands, once / per file
  CHECK(cmd, stdout_path, v)    a note on what a command wrote in its checking run
  TEARDOWN()
Commands are strings split like sh; {name} is replaced by its value, and a word that is only
{name} of a list becomes its words. Names: vidorient, tmp, work, repo, nproc, file, out, and the
case's own.
"""

import argparse
import fcntl
import os
import random
import re
import runpy
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
SHARED = os.path.join(os.path.dirname(REPO), "shared", "media")
DOC = os.path.join(REPO, "docs", "performance.md")
WORK = os.path.abspath(os.environ.get("BENCH_WORK", os.path.join(BENCH, "work")))


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def die(msg):
    sys.exit(f"bench: error: {msg}")


# ------------------------------------------------------------------------- files ---

class File:
    """One input file: a label for the tables and a path; `make` lists the commands that make it."""

    def __init__(self, label, path, make=None, optional=False):
        self.label, self.path, self.make, self.optional = label, path, make or [], optional
        self.note = None


def testmedia(*names):
    return [File(f"TestMedia/{n}", os.path.join(REPO, "TestMedia", n)) for n in names]


def shared(*names):
    return [File(f"shared/media/{n}", os.path.join(SHARED, n), optional=True) for n in names]


def made(name, *commands, label=None):
    """A file the benchmark makes under bench/work/ with COMMANDS ({out} is the file), once."""
    return [File(label or f"bench/work/{name}", os.path.join(WORK, name), make=list(commands))]


def sh(command, **v):
    """Runs a command (a template) during set-up; stops the benchmark when it fails."""
    argv = expand(command, v)
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        die(f"set-up command failed ({r.returncode}): {shlex.join(argv)}\n{r.stderr[-2000:]}")
    return r.stdout


def expand(template, v):
    words = []
    for w in shlex.split(template) if isinstance(template, str) else template:
        m = re.fullmatch(r"\{(\w+)\}", w)
        if m and isinstance(v.get(m.group(1)), (list, tuple)):
            words += [str(x) for x in v[m.group(1)]]
        else:
            words.append(re.sub(r"\{(\w+)\}", lambda m: str(v[m.group(1)]) if m.group(1) in v else m.group(0), w))
    return words


def prepare(files):
    """Makes the files that are made, drops the optional ones that are absent (with a note)."""
    kept, notes = [], []
    for f in files:
        if f.make and not os.path.exists(f.path):
            os.makedirs(os.path.dirname(f.path), exist_ok=True)
            log(f"making {f.label}")
            tmp = f.path + ".partial" + os.path.splitext(f.path)[1]
            for c in f.make:
                argv = expand(c, {"out": tmp, "work": WORK, "repo": REPO})
                r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
                if r.returncode != 0:
                    notes.append(f"{f.label} could not be made: `{shlex.join(argv)}` exited {r.returncode}: "
                                 f"{first_line(r.stderr)}")
                    break
            else:
                os.replace(tmp, f.path)
        if os.path.exists(f.path):
            kept.append(f)
        elif not f.make:
            if not f.optional:
                die(f"{f.path} is missing (bash TestMedia/generate.sh?)")
            notes.append(f"{f.label} is absent; skipped")
    return kept, notes


def first_line(text):
    lines = [x for x in (text or "").strip().splitlines() if x.strip()]
    return lines[0][:200] if lines else "(no message)"


# ---------------------------------------------------------------------- measuring ---

class Cmd:
    def __init__(self, label, argv, file=None, ok=(0,), before=None):
        self.label, self.argv, self.file, self.ok, self.before = label, argv, file, ok, before
        self.runs = []  # (wall s, cpu s, max rss KiB from rusage (not used: see rss_of), bytes written)
        self.rss = []  # KiB, from /usr/bin/time -f %M
        self.failed = None
        self.check = None
        self.after_each = None  # () -> a problem left by a run, or None


def run_once(argv, stdout=None, stderr=None):
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL
    err = open(stderr, "wb") if stderr else subprocess.DEVNULL
    try:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
    finally:
        for f in (out, err):
            if f is not subprocess.DEVNULL:
                f.close()
    return p.returncode, (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, ru.ru_oublock * 512)


def busy_cpu():
    with open("/proc/stat") as f:
        x = [int(n) for n in f.readline().split()[1:]]
    return (x[0] + x[1] + x[2] + x[5] + x[6] + x[7]) / os.sysconf("SC_CLK_TCK")


def rss_of(argv, tmp):
    """Peak RSS in KiB, by /usr/bin/time -f %M: Python starts a child by vfork, whose high-water
    mark would include Python's own pages, so it is never read from our own wait4."""
    rc, _ = run_once(["/usr/bin/time", "-f", "%M", "-o", f"{tmp}/rss"] + argv)
    return rc, int(open(f"{tmp}/rss").read().split()[-1])


def measure(cmds, repeats, warmup, tmp, case, rss_runs=3, rss_every=False):
    """Every command once (the checking run), then the paired, rotating runs, then peak RSS
    (rss_runs runs each, or every timed run under /usr/bin/time with rss_every). Returns the
    share of the machine's cores that other processes took while the timed runs ran."""
    live = []
    for c in cmds:
        if c.before:
            run_once(c.before)
        out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        rc, _ = run_once(c.argv, out, err)
        c.failed = (f"exited {rc}: {first_line(open(err, errors='replace').read()).replace(REPO + '/', '')}" if rc not in c.ok
                    else c.after_each and c.after_each())
        if c.failed:
            log(f"FAILED, left out: {shlex.join(c.argv)}: {c.failed}")
            continue
        if case.get("CHECK"):
            try:
                c.check = case["CHECK"](c, out, case["_v"])
            except (Exception, SystemExit) as e:  # a check that cannot tell is a note, not the end of the run
                c.check = f"**could not check: {(str(e).strip().splitlines() or [type(e).__name__])[-1][:160]}**"
        live.append(c)
    own, t0, b0 = 0.0, time.perf_counter(), busy_cpu()
    n = len(live)
    for k in range(-warmup, repeats):
        for j in range(n):
            c = live[(j + k) % n] if k % 2 == 0 else live[(k - j) % n]
            if c.failed:
                continue
            if c.before:
                run_once(c.before)
            wrap = ["/usr/bin/time", "-f", "%M", "-o", f"{tmp}/rss"] if rss_every else []
            rc, r = run_once(wrap + c.argv)
            own += r[1]
            # a timed run that fails (or leaves the wrong result) drops the command, with the reason
            c.failed = f"exited {rc} on a timed run" if rc not in c.ok else c.after_each and c.after_each()
            if c.failed:
                log(f"FAILED while timing, left out: {shlex.join(c.argv)}: {c.failed}")
            elif k >= 0:
                c.runs.append(r)
                c.rss += [int(open(f"{tmp}/rss").read().split()[-1])] if rss_every else []
    wall, b1 = time.perf_counter() - t0, busy_cpu()
    for c in [] if rss_every else live:
        for _ in range(0 if c.failed else rss_runs):
            if c.before:
                run_once(c.before)
            c.rss.append(rss_of(c.argv, tmp)[1])
    return max(0.0, (b1 - b0 - own) / wall) if wall > 0 else 0.0


# ------------------------------------------------------------------------ figures ---

def mean(xs):
    return statistics.fmean(xs)


def walls(c):
    return [r[0] for r in c.runs]


def ratio_interval(a, b, resamples=2000):
    """mean(a)/mean(b) and its ~95 % bootstrap interval, resampling the repeats together."""
    rng = random.Random(20251122)
    n = min(len(a), len(b))
    out = sorted(sum(a[i] for i in idx) / sum(b[i] for i in idx)
                 for idx in ([rng.randrange(n) for _ in range(n)] for _ in range(resamples)))
    return mean(a[:n]) / mean(b[:n]), out[int(0.025 * resamples)], out[int(0.975 * resamples) - 1]


def up3(x):
    """Rounded up to three decimals, so that a ratio is never shown better than it is."""
    return f"{-(-x * 1000 // 1) / 1000:.3f}"


def verdict_max(lo, hi, limit):
    return "met" if hi <= limit else "**not met**" if lo > limit else "at the line"


def ms_sd(c):
    w = walls(c)
    sd = statistics.stdev(w) if len(w) > 1 else 0.0
    if mean(w) >= 1:
        return f"{mean(w):.2f} s ± {sd:.2f}"
    return f"{mean(w) * 1000:.1f} ± {sd * 1000:.1f}"


def rss_mib(c):
    return statistics.median(c.rss) / 1024


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def ratio_cell(a, b, limit=None):
    if a.failed or b.failed or not a.runs or not b.runs:
        return "—"
    r, lo, hi = ratio_interval(walls(a), walls(b))
    cell = f"{up3(r)}× ({up3(lo)}–{up3(hi)})"
    return cell + (f" {verdict_max(lo, hi, limit)}" if limit is not None else "")


def failed_cell(c):
    return f"failed ({c.failed[:120]})" if c.failed else None


# ---------------------------------------------------------------------- versions ---

def version_of(tool):
    """The Debian package version of a tool, or its own --version line."""
    path = shutil.which(tool)
    if not path:
        return "not installed"
    r = subprocess.run(["dpkg", "-S", os.path.realpath(path)], capture_output=True, text=True)
    if r.returncode == 0:
        pkg = r.stdout.split(":")[0]
        v = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True)
        return f"{v.stdout} ({pkg})"
    return first_line(subprocess.run([tool, "--version"], capture_output=True, text=True).stdout)


def machine(tools, v, load_start, waited):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
    mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")) / 1048576
    swift = shutil.which("swift")
    swiftv = first_line(subprocess.run([swift, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True).stdout) if swift else "—"
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    if subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--", "Sources", "Package.swift"],
                      capture_output=True, text=True).stdout.strip():
        commit += " (with uncommitted changes to Sources/ or Package.swift)"
    vv = first_line(subprocess.run([v["vidorient"], "--version"], capture_output=True, text=True).stdout)
    rows = [("CPU", f"{cpu}, `nproc` = {os.cpu_count()}"),
            ("memory, kernel", f"{mem:.1f} GiB, {os.uname().sysname} {os.uname().release}"),
            ("load average (1, 5, 15 min) at start / end",
             f"{load_start} / {loadavg()}" + (f" (waited {waited} s for it to drop first)" if waited else "")),
            ("Swift", swiftv), ("vidorient", f"{vv}, {v['build']}"), ("commit", commit or "unknown")]
    rows += [(t, version_of(t)) for t in sorted(tools)]
    return ["| | |", "| --- | --- |"] + [f"| {k} | {x} |" for k, x in rows]


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


# ------------------------------------------------------------------------- driver ---

def build_vidorient(tmp):
    given = os.environ.get("VIDORIENT_BIN")
    if given:
        if not os.access(given, os.X_OK):
            die(f"VIDORIENT_BIN={given} is not an executable file")
        path, note = os.path.abspath(given), "given as VIDORIENT_BIN"
    else:
        cmd = ["swift", "build", "-c", "release", "--static-swift-stdlib", "--scratch-path", ".build-release"]
        log("building: " + shlex.join(cmd))
        for attempt in (1, 2):
            if subprocess.run(cmd, cwd=REPO, stdout=sys.stderr).returncode == 0:
                break
            if attempt == 2:
                die("the release build failed twice (set VIDORIENT_BIN to measure a binary you built)")
            log("the build failed; trying again in 60 s (someone may be mid-edit)")
            time.sleep(60)
        path, note = os.path.join(REPO, ".build-release", "release", "vidorient"), "built by `" + shlex.join(cmd) + "`"
    # a private copy: a rebuild by someone else during the run cannot swap the binary half-way
    shutil.copy(path, os.path.join(tmp, "vidorient"))
    # the content engine is opened from beside the program (`--content`): copied with it, and the
    # model found in the checkout's .build-models (a copied program has no ../share/vidorient)
    if os.path.isdir(os.path.join(REPO, ".build-models")):
        os.environ.setdefault("VIDORIENT_MODEL_DIR", os.path.join(REPO, ".build-models"))
    engine = os.path.join(os.path.dirname(path), "libVidorientContentEngine.so")
    if os.path.exists(engine):
        shutil.copy(engine, tmp)
    return os.path.join(tmp, "vidorient"), note


def wait_for_quiet(max_load, max_wait):
    waited = 0
    while float(loadavg().split()[0]) > max_load and waited < max_wait:
        if waited == 0:
            log(f"load average {loadavg()} is above {max_load}; waiting (at most {max_wait} s)")
        time.sleep(20)
        waited += 20
    return waited


def shown(argv, v):
    """A command as a reader can run it: paths relative to the repository, vidorient by name."""
    if len(argv) > 20:  # a batch: the first files stand for the rest
        argv = argv[:10] + [f"… ({len(argv) - 10} more words)"]
    s = shlex.join(argv).replace(v["vidorient"], "vidorient").replace(v["tmp"], "$TMP")
    return s.replace(REPO + "/", "").replace(os.path.dirname(REPO) + "/shared/", "../shared/")


def main(argv):
    ap = argparse.ArgumentParser(usage="python3 bench/run.py CASE [--write] [--quick] [--repeats N]",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int)
    opts = ap.parse_args(argv[1:])
    args = argv[1:]
    name, write, quick, repeats = opts.case, opts.write, opts.quick, opts.repeats
    if write and (quick or repeats):
        die("--write takes the full run: no --quick, no --repeats")
    # One run at a time: two at once share WORK's folders (the fix case resets its library before
    # each run) and time each other.
    os.makedirs(WORK, exist_ok=True)
    lock = open(os.path.join(WORK, ".run.lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        die(f"another bench/run.py is running on {WORK}; wait for it (or set BENCH_WORK)")
    path = name if name.endswith(".py") else os.path.join(BENCH, "cases", name + ".py")
    if not os.path.isfile(path):
        die(f"no benchmark {path}; the cases are: "
            + ", ".join(sorted(f[:-3] for f in os.listdir(os.path.join(BENCH, "cases")) if f.endswith(".py"))))
    key = os.path.splitext(os.path.basename(path))[0]
    if not shutil.which("swift") and os.path.exists("/opt/swift/usr/bin/swift"):
        os.environ["PATH"] = "/opt/swift/usr/bin:" + os.environ["PATH"]
    os.makedirs(WORK, exist_ok=True)
    helpers = dict(testmedia=testmedia, shared=shared, made=made, sh=sh, REPO=REPO, WORK=WORK, SHARED=SHARED,
                   QUICK=quick, NPROC=os.cpu_count())
    case = runpy.run_path(path, init_globals=helpers)
    missing = [t for t in case.get("NEEDS", []) if not shutil.which(t)]
    if missing:
        die("missing what this benchmark needs (bash .ci/setup --bench installs it): " + ", ".join(missing))

    if write:
        splice(DOC, f"bench/cases/{key}.py", None)  # stops now, not after the run, when the markers are wrong
    tmp = tempfile.mkdtemp(prefix=f"vidorient-bench-{key}.")
    try:
        vid, build = build_vidorient(tmp)
        v = dict(vidorient=vid, build=build, tmp=tmp, work=WORK, repo=REPO, nproc=os.cpu_count())
        files, notes = prepare(case.get("FILES", []))
        case["_v"] = v
        if case.get("SETUP"):
            v.update(case["SETUP"](dict(v, files=[f.path for f in files], notes=notes)) or {})
        warmup = 1 if quick else case.get("WARMUP", 3)
        reps = repeats or (3 if quick else case.get("REPEATS", 20))
        waited = wait_for_quiet(float(os.environ.get("BENCH_MAX_LOAD", 1.5)),
                                0 if quick or repeats else int(os.environ.get("BENCH_MAX_WAIT", 600)))
        load_start, started = loadavg(), time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        tools, out, others = set(), [], []

        if case.get("TOOLS") and files:
            labels = list(case["TOOLS"])
            per_file = []
            for i, f in enumerate(files):
                fv = dict(v, file=f.path, out=os.path.join(tmp, f"out-{i}"), i=i)
                fv.update(case.get("PER_FILE", lambda f, v: {})(f.path, fv))
                cmds = [Cmd(t, expand(c, fv), f, case.get("OK", (0,))) for t, c in case["TOOLS"].items()]
                tools.update(c.argv[0] for c in cmds[1:])
                log(f"{f.label}: {', '.join(labels)} ({reps} repeats)")
                others.append((f.label, measure(cmds, reps, warmup, tmp, case, 1 if quick else 5)))
                per_file.append((f, cmds))
            out += render_per_file(case, labels, per_file)
        for g in case.get("GROUPS", []):
            gv = v
            absent = [p for p in g.get("requires", []) if not os.path.exists(p)]
            if absent:
                out += [f"#### {g['title']}", "", "Not run: " + ", ".join(absent) + " absent.", ""]
                continue
            ok = g.get("ok", case.get("OK", (0,)))
            before = expand(g["before"], gv) if g.get("before") else None
            cmds = [Cmd(label, expand(c, gv), None, ok, before) for label, c in g["commands"].items()]
            for c in cmds:
                c.after_each = (lambda c=c: g["after"](c.label, gv)) if g.get("after") else None
            tools.update(c.argv[0] for c in cmds if c.argv[0] != vid)
            greps = repeats or (min(3, g.get("repeats", reps)) if quick else g.get("repeats", reps))
            gwarm = min(warmup, g.get("warmup", warmup))
            log(f"{g['title']} ({greps} repeats)")
            others.append((g["title"], measure(cmds, greps, gwarm, tmp, case, 1 if quick else 3, g.get("rss_every"))))
            out += render_group(g, cmds, gv)
        body = [f"Run of {started}, by `python3 bench/run.py {' '.join(args)}`"
                + (" (a short run: not for publishing)." if quick or repeats else "."), ""]
        body += [f"Note: {n}" for n in notes] + ([""] if notes else [])
        body += ["#### Machine and versions", ""] + machine({t for t in tools if "/" not in t} - {"sh", "xargs"}, v, load_start, waited)
        body += ["", f"Timing: {reps} repeats after {warmup} warm-up runs (groups may say fewer), the commands of a "
                 "group taking turns run by run, the order rotating; “other processes” is how many of the "
                 f"{os.cpu_count()} cores the rest of the machine took meanwhile (/proc/stat, minus our own runs): "
                 + "; ".join(f"{t} {o:.2f}" for t, o in others) + ".", ""]
        text = "\n".join(body + out).rstrip() + "\n"
        sys.stdout.write(text)
        if write:
            splice(DOC, f"bench/cases/{key}.py", text)
            log(f"wrote the bench/cases/{key}.py block of {DOC}")
    finally:
        if case.get("TEARDOWN"):
            case["TEARDOWN"]()
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------- rendering ---

def render_per_file(case, labels, per_file):
    targets = case.get("TARGETS", {})
    subject, peers = labels[0], labels[1:]
    o = ["#### One file per process: wall time, mean ± σ (ms)", "",
         "| file | size | " + " | ".join(labels) + " |", "| --- | ---: |" + " ---: |" * len(labels)]
    for f, cmds in per_file:
        o.append(f"| {f.label} | {human(os.path.getsize(f.path))} | "
                 + " | ".join(failed_cell(c) or ms_sd(c) for c in cmds) + " |")
    o += ["", f"#### Ratios: {subject}'s mean wall time ÷ each peer's (~95 % interval; rounded up; lower is "
          "better for " + subject + ")", "",
          "| file | " + " | ".join(f"÷ {p}" + (f" (target ≤ {targets[p]})" if p in targets else "") for p in peers)
          + " |", "| --- |" + " ---: |" * len(peers)]
    met = {p: 0 for p in targets}
    for f, cmds in per_file:
        cells = []
        for c in cmds[1:]:
            cell = ratio_cell(cmds[0], c, targets.get(c.label))
            met[c.label] = met.get(c.label, 0) + cell.endswith(" met")
            cells.append(cell)
        o.append(f"| {f.label} | " + " | ".join(cells) + " |")
    done = {p: sum(1 for _, cs in per_file if not cs[0].failed and not any(c.failed for c in cs if c.label == p))
            for p in targets}
    o += [""] + [f"Target {subject} ÷ {p} ≤ {t}: met on {met[p]} of the {done[p]} files measured (“met” needs the "
                 "whole interval at or under the target, “not met” all of it over)." for p, t in targets.items()]
    o += ["", "#### CPU time (user + system, mean, ms) / peak RSS (median, MiB)", "",
          "| file | " + " | ".join(labels) + " |", "| --- |" + " ---: |" * len(labels)]
    for f, cmds in per_file:
        o.append(f"| {f.label} | " + " | ".join(
            "—" if c.failed else f"{mean(r[1] for r in c.runs) * 1000:.1f} / {rss_mib(c):.1f}" for c in cmds) + " |")
    if any(c.check for _, cmds in per_file for c in cmds):
        o += ["", "#### What each command wrote (checking run)", "",
              "| file | " + " | ".join(labels) + " |", "| --- |" + " --- |" * len(labels)]
        for f, cmds in per_file:
            o.append(f"| {f.label} | " + " | ".join(c.check or "—" for c in cmds) + " |")
    f, cmds = per_file[0]
    o += ["", "The commands (on the first file):", "", "```sh"] + [shown(c.argv, case["_v"]) for c in cmds] + ["```", ""]
    return o


def render_group(g, cmds, v):
    by = {c.label: c for c in cmds}
    ref = by[g.get("ref", cmds[0].label)]
    nf = g.get("files")
    count = (lambda c: nf.get(c.label)) if isinstance(nf, dict) else (lambda c: nf)
    n = nf
    o = [f"#### {g['title']}", ""] + ([g["about"], ""] if g.get("about") else [])
    wr = g.get("written")
    o += ["| command | runs | wall mean ± σ (ms) | CPU user+sys (ms) | peak RSS (MiB) | " + ("bytes written | " if wr else "")
          + ("files/s | " if n else "") + f"÷ {ref.label} (~95 % interval) |",
          "| --- | ---: | ---: | ---: | ---: |" + (" ---: |" if wr else "") + (" ---: |" if n else "") + " ---: |"]
    for c in cmds:
        if c.failed:
            o.append(f"| `{c.label}` | failed ({c.failed}) |")
            continue
        rate = (f"{count(c) / mean(walls(c)):,.0f} | " if count(c) else "— | ") if n else ""
        o.append(f"| `{c.label}` | {len(c.runs)} | {ms_sd(c)} | {mean(r[1] for r in c.runs) * 1000:.0f} | "
                 f"{rss_mib(c):.1f} | " + (f"{human(statistics.median(r[3] for r in c.runs))} | " if wr else "") + rate
                 + ("—" if c is ref else ratio_cell(c, ref)) + " |")
    if any(c.check for c in cmds):
        o += ["", "Checking run: " + "; ".join(f"`{c.label}`: {c.check}" for c in cmds if c.check) + "."]
    rows = []
    for t in g.get("targets", []):
        a = by.get(t[1])
        b = by.get(t[2]) if t[0] in ("ratio", "rss") else None
        if not a or a.failed or not a.runs or (t[0] != "rate" and (not b or b.failed or not b.runs)):
            rows.append(f"| {' '.join(str(x) for x in t[1:])} | not measured (a command failed) | — |")
        elif t[0] == "ratio":
            r, lo, hi = ratio_interval(walls(a), walls(b))
            said = "no slower" if t[3] == 1 else f"≥ {1 / t[3]:.3g}× faster"
            rows.append(f"| `{a.label}` ÷ `{b.label}` ≤ {t[3]} ({said}) | {up3(r)}× "
                        f"({up3(lo)}–{up3(hi)}) | {verdict_max(lo, hi, t[3])} |")
        elif t[0] == "rate":
            ws = walls(a)
            lo, mid, hi = count(a) / max(ws), count(a) / mean(ws), count(a) / min(ws)
            verdict = "met" if lo >= t[2] else "**not met**" if hi < t[2] else "at the line"
            rate = lambda x: f"{x:,.0f}" if x >= 100 else f"{x:.3g}"
            rows.append(f"| `{a.label}` ≥ {rate(t[2])} files/s | {rate(mid)} ({rate(lo)}–{rate(hi)} over the runs) | {verdict} |")
        else:
            r = rss_mib(a) / rss_mib(b)
            rows.append(f"| peak RSS of `{a.label}` ≤ {t[3]}× `{b.label}`'s | {rss_mib(a):.1f} ÷ {rss_mib(b):.1f} MiB "
                        f"= {r:.2f}× | {'met' if r <= t[3] else '**not met**'} |")
    if rows:
        o += ["", "| target | measured | result |", "| --- | --- | --- |"] + rows
    o += ["", "```sh"] + [shown(c.argv, v) for c in cmds] + ["```", ""]
    return o


def splice(doc, name, text):
    """Replaces the block between this benchmark's markers (read right before it is written:
    others edit other sections), or appends it; the write is atomic. With text None, only checks."""
    begin, end = f"<!-- BEGIN {name} results -->", f"<!-- END {name} results -->"
    block = begin + "\n\n" + (text or "").strip("\n") + "\n\n" + end
    old = open(doc, encoding="utf-8").read() if os.path.exists(doc) else ""
    nb, ne = old.count(begin), old.count(end)
    if nb == ne == 0:
        new = old.rstrip("\n") + "\n\n" + block + "\n"
    elif nb == ne == 1 and old.index(begin) < old.index(end):
        new = old[:old.index(begin)] + block + old[old.index(end) + len(end):]
    else:
        die(f"{doc} has {nb} '{begin}' and {ne} '{end}' markers, not one pair in order; nothing was written")
    if text is None:
        return
    fd, t = tempfile.mkstemp(dir=os.path.dirname(doc), prefix=".performance.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(new)
    os.chmod(t, 0o644)
    os.replace(t, doc)


if __name__ == "__main__":
    main(sys.argv)
