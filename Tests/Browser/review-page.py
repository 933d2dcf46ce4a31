#!/usr/bin/env python3
"""Drives the audit's review page in Debian's headless chromium, through the DevTools protocol
over --remote-debugging-pipe (no port, no download, nothing but python3's standard library).

    review-page.py CHROMIUM PAGE.html DOWNLOADS

Filters to the rows with a suggested fix, approves the first row with a click and the second
with the keys (j, a), rejects the third (j, r), reloads, reads what the page kept, exports, and
waits for both downloads. Prints one JSON object of what it saw; ReportBrowserTests judges it.
Every wait is bounded: the whole run ends within about 15 seconds or fails.
"""
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

chromium, page, downloads = sys.argv[1:4]
deadline = time.monotonic() + 15


def fail(message):
    print(json.dumps({"error": message}))
    sys.exit(1)


# fd 3: the commands chromium reads; fd 4: what it answers.
to_browser_read, to_browser_write = os.pipe()
from_browser_read, from_browser_write = os.pipe()


def give_pipes():
    commands, answers = os.dup(to_browser_read), os.dup(from_browser_write)
    os.dup2(commands, 3)
    os.dup2(answers, 4)


profile = tempfile.mkdtemp(prefix="vidorient-review-")
browser = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
     "--disable-extensions", "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    preexec_fn=give_pipes, close_fds=False)
os.close(to_browser_read)
os.close(from_browser_write)

pending = b""
events = []
next_id = 0


def read_message():
    global pending
    while b"\0" not in pending:
        left = deadline - time.monotonic()
        if left <= 0:
            fail("timed out waiting for chromium")
        ready, _, _ = select.select([from_browser_read], [], [], left)
        if ready:
            chunk = os.read(from_browser_read, 1 << 16)
            if not chunk:
                fail("chromium closed its pipe")
            pending += chunk
    message, pending = pending.split(b"\0", 1)
    return json.loads(message)


def send(method, params=None, session=None):
    global next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    os.write(to_browser_write, json.dumps(message).encode() + b"\0")
    while True:
        answer = read_message()
        if answer.get("id") == next_id:
            if "error" in answer:
                fail(method + ": " + json.dumps(answer["error"]))
            return answer.get("result", {})
        events.append(answer)


def wait_for(method):
    while True:
        for n, event in enumerate(events):
            if event.get("method") == method:
                del events[: n + 1]
                return event
        events.append(read_message())


try:
    target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads, "eventsEnabled": True})
    send("Page.enable", session=session)

    def load(url=None):
        events.clear()
        if url:
            send("Page.navigate", {"url": url}, session=session)
        else:
            send("Page.reload", {}, session=session)
        wait_for("Page.loadEventFired")

    def js(expression):
        result = send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
        if "exceptionDetails" in result:
            fail("script: " + json.dumps(result["exceptionDetails"]))
        return result["result"].get("value")

    def key(letter):
        for kind in ("keyDown", "keyUp"):
            send("Input.dispatchKeyEvent", {"type": kind, "key": letter, "text": letter if kind == "keyDown" else "",
                                            "code": "Key" + letter.upper()}, session=session)

    shown = """[...document.querySelectorAll('tr.file')].map(tr => ({
        path: tr.querySelector('td.path').textContent, decision: tr.dataset.decision,
        current: tr.classList.contains('current')}))"""
    seen = {}
    load("file://" + os.path.abspath(page))
    injected = "window.__vidorient_injected === true || document.querySelector('img[src=x]') !== null"
    seen["count"] = js("document.getElementById('count').textContent")
    seen["injected_first"] = js(injected)
    js("document.getElementById('fixable').click()")
    seen["filtered"] = js(shown)
    seen["filtered_count"] = js("document.getElementById('count').textContent")
    js("document.querySelector('tr.file button.approve').click()")
    key("j")
    key("a")
    key("j")
    key("r")
    seen["decided"] = js(shown)
    # The page writes each decision to localStorage at once, but the browser may hand it to a new
    # renderer after a reload only a moment later: on a loaded machine the first reload can come
    # first (the decisions then read back empty). Reload until they are there, for 3 s at most
    # (within the run's bound); a page that never kept them still fails.
    decided = [row["decision"] for row in seen["decided"]]
    reloads_until = time.monotonic() + 3
    while True:
        load()
        seen["after_reload"] = js(shown)
        if [row["decision"] for row in seen["after_reload"]] == decided or time.monotonic() > reloads_until:
            break
        time.sleep(0.25)
    seen["decided_line"] = js("document.getElementById('decided').textContent")
    seen["hash"] = js("location.hash")
    # A name with markup must have stayed text: no element made from it, no script run.
    seen["injected"] = js(injected)
    events.clear()
    js("document.getElementById('export').click()")
    done = set()
    while len(done) < 2:
        event = wait_for("Browser.downloadProgress")
        if event["params"]["state"] == "completed":
            done.add(event["params"]["guid"])
        elif event["params"]["state"] == "canceled":
            fail("a download was canceled")
    seen["downloads"] = sorted(os.listdir(downloads))
    print(json.dumps(seen))
finally:
    browser.kill()
    browser.wait()
    shutil.rmtree(profile, ignore_errors=True)
