"""The bridge itself: its command line, the origin check, and bounded memory under a page that
stops reading (the daemon's slow-reader rules reach through the bridge). The hostile run's
attacks are in test_bridge_attacks.py."""

import asyncio
import http.client
import json
import os
import socket
import subprocess
import time

import websockets

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "carouseld-web")


def bridge_settings(*args, env=None):
    out = subprocess.run([SCRIPT, "--print", *args], capture_output=True, text=True, timeout=10,
                         env={**os.environ, **(env or {})})
    return out, dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)


def test_the_bridge_command_line_is_loopback_and_bounded():
    out, s = bridge_settings()
    assert out.returncode == 0, out.stderr
    assert s["addresses"] == "['127.0.0.1']" and s["port"] == "8780" and s["maxforks"] == "16"
    assert s["display_groups"] == "['carouseld-kiosk', 'carouseld']" and s["display_slots"] == "16"
    assert s["socket"] == "/run/carouseld/carouseld.sock"
    assert s["names"] == "['127.0.0.1:8780', '[::1]:8780', 'localhost:8780']"
    assert "default-src 'none'" in s["csp"] and "frame-ancestors 'none'" in s["csp"]
    out, s = bridge_settings("--origin", "kiosk.local:8780,http://Panel.example", "--address", "::1", "--port", "9000",
                             "--maxforks", "2", "--sources", "https://cdn.example", "--serve", "/cards/=/etc/carouseld/cards")
    assert out.returncode == 0, out.stderr
    assert s["names"] == "['127.0.0.1:9000', '[::1]:9000', 'kiosk.local:8780', 'localhost:9000', 'panel.example:9000']"
    assert s["addresses"] == "['::1']" and s["maxforks"] == "2"
    assert "img-src 'self' data: https://cdn.example" in s["csp"] and "connect-src 'self' https://cdn.example" in s["csp"]
    assert "('/cards/', '/etc/carouseld/cards')" in s["roots"]
    out, s = bridge_settings(env={"CAROUSELD_WEB_PORT": "9100", "CAROUSELD_WEB_SOCKET": "/tmp/x.sock",
                                  "CAROUSELD_WEB_SERVE": "/a/=/srv/a /b/=/srv/b"})
    assert s["port"] == "9100" and s["socket"] == "/tmp/x.sock" and "('/a/', '/srv/a')" in s["roots"], s
    for bad, why in ((["--port", "http"], "--port"), (["--maxforks", "0"], "--maxforks"),
                     (["--socket", "relative.sock"], "absolute"), (["--address", "kiosk.local"], "--address"),
                     (["--origin", "evil.example/path"], "--origin"), (["--sources", "data:,x"], "--sources"),
                     (["--serve", "cards=/etc"], "--serve"), (["--frobnicate"], "unknown argument")):
        out, _ = bridge_settings(*bad)
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


def test_a_stalled_page_does_not_grow_the_bridge(carousel, open_page):
    daemon, bridge = carousel({"carousel": {"count": "400"}}, name="stall")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    ctl = daemon.client()
    # About 40 visible items: each STATE with items is about 9 KB, 60 a second while moving.
    ctl.request({"cmd": "set_geometry", "viewport": {"width": 4000, "height": 400},
                 "item": {"width": 100, "height": 300}, "spacing": 0})
    page.wait("return window.carousel.client.layout.viewport.width === 4000", 10, "the wide layout")
    before = {"bridge": rss_kib(bridge.process.pid)}
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
            r = rss_kib(bridge.process.pid)
            if r:
                peak["bridge"] = max(peak["bridge"], r)
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
    assert growth["bridge"] < 8 * 1024, growth
    assert catch_up < 4, "the page draws the newest STATE soon after a stall, not every old one"
    assert stats[2] > 0, "the STATEs buffered during the stall arrived late and were coalesced"
    ctl.close()


def test_a_slow_page_gets_the_newest_state_next_not_a_backlog(carousel):
    """A page that reads slower than STATEs come (a busy device's browser) is sent the newest
    STATE when it reads again, not the ones it fell behind on: the bridge's part of the chain
    holds at most its page socket's small send buffer, its WebSocket write buffer and one
    waiting STATE (scripts/carouseld-web, PageQueue). The page here is a raw WebSocket client
    whose own receive buffer is fixed at 16 KiB (a browser's is its own), paused for 4 s while
    the carousel moves, ~60 STATEs a second with items."""
    daemon, bridge = carousel({"carousel": {"count": "400"}}, name="slowpage")
    ctl = daemon.client()

    async def run():
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
        sock.connect(("127.0.0.1", bridge.port))
        async with websockets.connect(f"ws://127.0.0.1:{bridge.port}/", sock=sock, origin=f"http://127.0.0.1:{bridge.port}",
                                      ping_interval=None, close_timeout=1, max_queue=None) as ws:
            assert json.loads(await ws.recv())["class"] == "VERSION"
            await ws.send('{"cmd":"watch","items":true}')
            while json.loads(await ws.recv())["class"] != "STATE":
                pass
            ws.transport.pause_reading()
            target, t_end = 300, time.monotonic() + 4
            while time.monotonic() < t_end:
                ctl.request({"cmd": "scroll_to", "index": target, "animated": True})
                target = 0 if target else 300
                await asyncio.sleep(0.5)
            ctl.send({"cmd": "poll"})
            newest = ctl.read_class("STATE")["seq"]
            ws.transport.resume_reading()
            stale, size, seqs = 0, 0, []
            while True:
                m = json.loads(message := await asyncio.wait_for(ws.recv(), 10))
                if m["class"] != "STATE":
                    continue
                seqs.append(m["seq"])
                if m["seq"] >= newest:
                    return stale, size, seqs
                stale += 1
                size = max(size, len(message))

    stale, size, seqs = asyncio.run(run())
    print(f"a page paused 4 s while the carousel moved: {stale} STATEs older than the daemon's newest (seq "
          f"{seqs[-1]}) came before it, each up to {size} bytes")
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "STATEs in the daemon's order, none twice"
    # The client's receive buffer (16 KiB, doubled by the kernel), the bridge's send buffer
    # (the same) and write buffer (16 KiB, and the message that crosses it), the STATE the
    # queue holds: ~85 KiB with the kernel's accounting (seen: 73 of 1196 bytes). The daemon
    # made ~240 in the pause, and the bridge before PageQueue passed all of them on (235 seen).
    assert stale * size <= 128 * 1024, f"{stale} old STATEs of up to {size} bytes waited for a paused page"
    ctl.close()
