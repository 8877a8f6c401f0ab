#!/usr/bin/env python3
"""The arm64 smoke test: the cross-built carouseld replays configs/demo.conf under qemu-user
(qemu-aarch64-static -L TREE, the Debian 13 arm64 tree), and the cross-built carouselctl asks it
for `status --json` and watches it (`watch --json --count N`).

  smoke.py BINDIR TREE        prints one line per check ("ok ..." / "FAIL ...") and
                              "N passed, N failed"; exits 1 when a check fails

What it checks, each against a value known without the daemon: the status names the
configuration file it was given and the release in Sources/CarouselProtocol/Release.swift; the
carousel has configs/demo.conf's 20 cards; watching makes the daemon read the recording, so the
STATE messages carry a tilt estimate whose roll lies within ±70° (the recording's tilts reach
about ±62°, configs/demo.conf) and whose index lies in 0..19; SIGTERM ends the daemon with
status 0.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
passed, failed = 0, 0


def check(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok %s" % what, flush=True)
    else:
        failed += 1
        print("FAIL %s%s" % (what, (": " + detail) if detail else ""), flush=True)
    return cond


def main(bindir, tree):
    qemu = ["qemu-aarch64-static", "-L", tree]
    release = re.search(r'carouseldRelease = "(.*)"', open(os.path.join(REPO, "Sources/CarouselProtocol/Release.swift")).read()).group(1)
    config = os.path.join(REPO, "configs", "demo.conf")
    work = tempfile.mkdtemp(prefix="carouseld-arm64-smoke-")
    sock = os.path.join(work, "carouseld.sock")
    env = dict(os.environ, TMPDIR=work)
    start = time.monotonic()
    daemon = subprocess.Popen(qemu + [os.path.join(bindir, "carouseld"), "--config", config, "--socket", sock, "--foreground"],
                              stdout=open(os.path.join(work, "daemon.log"), "w"), stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(sock) and daemon.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if not check(os.path.exists(sock), "carouseld listens on its socket (%.1f s after start, emulated)" % (time.monotonic() - start),
                     open(os.path.join(work, "daemon.log")).read()[-2000:]):
            return
        ctl = qemu + [os.path.join(bindir, "carouselctl")]
        st = subprocess.run(ctl + ["status", "--json", "--socket", sock], capture_output=True, text=True, timeout=120)
        check(st.returncode == 0, "carouselctl status --json exits 0", st.stderr[-500:])
        try:
            doc = json.loads(st.stdout)
        except ValueError as e:
            check(False, "carouselctl status --json prints JSON", "%s: %r" % (e, st.stdout[:300]))
            return
        status, state = doc.get("status", {}), doc.get("state", {})
        text = json.dumps(status)
        check(release in text, "status names release %s" % release, text[:300])
        check(config in text, "status names the configuration %s" % config, text[:300])
        check(state.get("count") == 20, "the carousel has demo.conf's 20 cards", "count %r" % state.get("count"))
        w = subprocess.run(ctl + ["watch", "--json", "--count", "40", "--socket", sock], capture_output=True, text=True, timeout=300)
        check(w.returncode == 0, "carouselctl watch --json --count 40 exits 0", w.stderr[-500:])
        states = []
        for line in w.stdout.splitlines():
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("class") == "STATE":
                states.append(m)
        check(len(states) == 40, "watch printed 40 STATE messages", "got %d" % len(states))
        rolls = [s["tilt"]["roll_deg"] for s in states if isinstance(s.get("tilt"), dict) and isinstance(s["tilt"].get("roll_deg"), (int, float))]
        check(rolls and all(-70 <= r <= 70 for r in rolls), "STATE tilt rolls lie within the recording's range",
              "rolls %s" % rolls[:10])
        check(all(0 <= s.get("index", -1) <= 19 for s in states), "STATE indexes lie in 0..19", str([s.get("index") for s in states][:10]))
        daemon.send_signal(signal.SIGTERM)
        code = daemon.wait(timeout=60)
        check(code == 0, "carouseld exits 0 on SIGTERM", "status %d; log: %s" % (code, open(os.path.join(work, "daemon.log")).read()[-1000:]))
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: smoke.py BINDIR TREE")
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as e:   # a broken run is a failure, with its cause
        check(False, "smoke test ran", "%s: %s" % (type(e).__name__, e))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)
