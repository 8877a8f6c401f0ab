"""The bridge itself: its command line, the origin check, and bounded memory under a page that
stops reading (the daemon's slow-reader rules reach through websocketd and socat)."""

import http.client
import os
import subprocess
import time

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "carouseld-web")


def bridge_argv(*args, env=None):
    out = subprocess.run([SCRIPT, "--print", *args], capture_output=True, text=True, timeout=10,
                         env={**os.environ, **(env or {})})
    return out


def test_the_bridge_command_line_is_loopback_same_origin_and_bounded():
    out = bridge_argv()
    assert out.returncode == 0, out.stderr
    argv = out.stdout
    for expected in ("'--address=127.0.0.1'", "'--sameorigin'", "'--maxforks=8'", "'--port=8780'",
                     "UNIX-CONNECT:/run/carouseld/carouseld.sock", "frame-ancestors 'none'"):
        assert expected in argv, f"{expected} not in {argv}"
    out = bridge_argv("--origin", "kiosk.local:8780,127.0.0.1", "--address", "::1", "--port", "9000", "--maxforks", "2")
    assert "'--origin=kiosk.local:8780,127.0.0.1'" in out.stdout and "--sameorigin" not in out.stdout
    assert "'--address=::1'" in out.stdout and "'--port=9000'" in out.stdout and "'--maxforks=2'" in out.stdout
    out = bridge_argv(env={"CAROUSELD_WEB_PORT": "9100", "CAROUSELD_WEB_SOCKET": "/tmp/x.sock"})
    assert "'--port=9100'" in out.stdout and "UNIX-CONNECT:/tmp/x.sock" in out.stdout
    for bad, why in ((["--port", "http"], "--port"), (["--maxforks", "0"], "--maxforks"),
                     (["--socket", "relative.sock"], "absolute"), (["--socket", "/tmp/a,b"], "socat"),
                     (["--frobnicate"], "unknown argument")):
        out = bridge_argv(*bad)
        assert out.returncode == 64 and why in out.stderr, (bad, out.returncode, out.stderr)


def upgrade(port, origin):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/", headers={"Upgrade": "websocket", "Connection": "Upgrade", "Origin": origin,
                                      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"})
    status = conn.getresponse().status
    conn.close()
    return status


def test_other_origins_cannot_open_the_websocket(carousel):
    daemon, bridge = carousel(name="origin")
    assert upgrade(bridge.port, "http://evil.example") == 403
    assert upgrade(bridge.port, f"http://localhost:{bridge.port + 1}") == 403
    assert upgrade(bridge.port, f"http://127.0.0.1:{bridge.port}") == 101


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


def children(pid):
    """Child processes of `pid` (websocketd forks from any of its threads)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            found.append(int(entry))
    return found


def test_a_stalled_page_does_not_grow_the_bridge(carousel, open_page):
    daemon, bridge = carousel({"carousel": {"count": "400"}}, name="stall")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    ctl = daemon.client()
    # About 40 visible items: each STATE with items is about 9 KB, 60 a second while moving.
    ctl.request({"cmd": "set_geometry", "viewport": {"width": 4000, "height": 400},
                 "item": {"width": 100, "height": 300}, "spacing": 0})
    page.wait("return window.carousel.client.layout.viewport.width === 4000", 10, "the wide layout")
    websocketd = bridge.process.pid
    socats = children(websocketd)
    assert len(socats) == 1, f"one socat for the one page, found {socats}"
    socat = socats[0]
    before = {"websocketd": rss_kib(websocketd), "socat": rss_kib(socat)}
    stall_s = int(os.environ.get("STALL_SECONDS", "8"))
    page.js(f"setTimeout(() => {{ const end = Date.now() + {stall_s * 1000}; while (Date.now() < end) {{}} }}, 50)")
    time.sleep(0.2)
    peak = dict(before)
    t_end = time.monotonic() + stall_s - 0.5
    target = 300
    while time.monotonic() < t_end:
        ctl.request({"cmd": "scroll_to", "index": target, "animated": True})
        target = 0 if target else 300
        for _ in range(4):
            time.sleep(0.25)
            for name, pid in (("websocketd", websocketd), ("socat", socat)):
                r = rss_kib(pid)
                if r:
                    peak[name] = max(peak[name], r)
    ctl.send({"cmd": "poll"})
    last = ctl.read_class("STATE")
    # The page wakes up: it must get the newest STATE soon, not seconds of backlog.
    woke = time.monotonic()
    page.wait(f"return window.carousel.drawnSeq >= {last['seq']}", 15, "the page to catch up")
    catch_up = time.monotonic() - woke
    stats = page.js("const s = window.carousel.stats; return [window.carousel.drawnSeq, s.states, s.late]")
    growth = {k: peak[k] - before[k] for k in before}
    print(f"stalled page ({stall_s} s, ~9 KB STATEs at 60 Hz): RSS before {before} KiB, peak {peak} KiB, "
          f"growth {growth} KiB; the page caught up with seq {last['seq']} {catch_up:.2f} s after it woke "
          f"(it received {stats[1]} STATEs in all, {stats[2]} of them late and coalesced by the page; "
          f"seq gaps are the daemon's coalescing)")
    assert growth["websocketd"] < 8 * 1024 and growth["socat"] < 1024, growth
    assert catch_up < 4, "the page draws the newest STATE soon after a stall, not every old one"
    assert stats[2] > 0, "the STATEs buffered during the stall arrived late and were coalesced"
    ctl.close()
