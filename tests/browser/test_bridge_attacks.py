"""The hostile run against the web bridge (issue 30 items 1-4, issue 29 item 8), each attack
kept as a test: memory floods in one WebSocket message, silent connections that held every slot
and locked the kiosk page out, commands the page never sends forwarded with the bridge's control
rights, DNS rebinding, and the page's own parameters (`?cards=` of any URL and any length,
`?rate=-5`, no real CSP, a listed directory)."""

import asyncio
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import websockets

from conftest import ROOT, wait_for
from floods import flood


def needs_root(what):
    if os.geteuid() != 0:
        raise AssertionError(f"this test needs root: {what} (CI runs as root)")


def status_of(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def reset_peak(pid):
    """Resets the process's peak RSS (VmHWM) to its current RSS (proc(5), clear_refs 5)."""
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")


def http_status(port, path="/", host=None, origin=None, upgrade=False):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    headers = {"Host": host or f"127.0.0.1:{port}"}
    if origin:
        headers["Origin"] = origin
    if upgrade:
        headers.update({"Upgrade": "websocket", "Connection": "Upgrade",
                        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"})
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    result = response.status, dict(response.getheaders()), response.read()
    conn.close()
    return result


def first_message(port):
    async def run():
        async with websockets.connect(f"ws://127.0.0.1:{port}/", origin=f"http://127.0.0.1:{port}",
                                      open_timeout=5) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), 5))
    return asyncio.run(run())


# ---- 1. one message cannot take the bridge's memory ----

def test_one_huge_websocket_message_does_not_grow_the_bridge(carousel):
    needs_root("it resets the bridge's peak RSS through /proc/PID/clear_refs")
    daemon, bridge = carousel(name="flood", bridge_args=["--loglevel", "access"])
    url = f"ws://127.0.0.1:{bridge.port}/"
    pid = bridge.process.pid
    # The hostile run's floods: websocketd went 649 → 3,720 MB on the first, to 162 and 486 MB
    # on the single frames.
    floods = (("fragments", 16384, "16,384 × 64 KiB continuation frames"),
              ("frame", 64 * 1024 * 1024, "one 64 MB frame"), ("frame", 256 * 1024 * 1024, "one 256 MB frame"))
    for n, (kind, amount, what) in enumerate(floods, 1):
        reset_peak(pid)
        before = status_of(pid, "VmRSS")
        started = time.monotonic()
        code = asyncio.run(flood(url, kind, amount, origin=f"http://127.0.0.1:{bridge.port}"))
        took = time.monotonic() - started
        peak = status_of(pid, "VmHWM")
        print(f"{what}: bridge RSS {before} KiB before, peak {peak} KiB (+{peak - before}); closed {code} after {took:.2f} s")
        assert code in (1009, 1006, None), code
        # The bridge closed it with 1009 (message too big), whether or not the writing client read it.
        wait_for(lambda: open(bridge.log_path).read().count("sent 1009") >= n, 10, f"{what}: the bridge's 1009")
        assert peak - before < 8 * 1024, f"{what}: the bridge grew by {peak - before} KiB"
        # The bridge still serves pages.
        assert first_message(bridge.port)["class"] == "VERSION"


def test_a_page_that_never_reads_holds_at_most_its_buffers(carousel):
    """The other direction: refusals and daemon replies to a page that sends without reading
    stop at the WebSocket's write buffer; the bridge does not queue them."""
    daemon, bridge = carousel(name="noread")
    pid = bridge.process.pid
    before = status_of(pid, "VmRSS")

    async def run():
        async with websockets.connect(f"ws://127.0.0.1:{bridge.port}/", origin=f"http://127.0.0.1:{bridge.port}",
                                      ping_interval=None, close_timeout=1) as ws:
            await ws.recv()
            ws.transport.pause_reading()  # this page never reads again
            # 20,000 polls (a STATE each) and refused reloads (an ERROR each), ~10 MB of replies.
            async def send_all():
                for _ in range(10000):
                    await ws.send('{"cmd":"poll"}')
                    await ws.send('{"cmd":"reload"}')
            try:
                await asyncio.wait_for(send_all(), 5)
            except asyncio.TimeoutError:
                pass  # the bridge stopped reading this page: backpressure reached the sender
            await asyncio.sleep(1)
            return status_of(pid, "VmRSS") - before

    grown = asyncio.run(run())
    print(f"a page that sends polls and refused reloads without reading: the bridge grew {grown} KiB")
    assert grown < 8 * 1024, f"the bridge queued replies for a page that does not read: +{grown} KiB"
    assert first_message(bridge.port)["class"] == "VERSION"


# ---- 2. silent connections cannot lock the kiosk's display out ----

HOLDER = r"""
import asyncio, socket, sys, websockets
port, count = int(sys.argv[1]), int(sys.argv[2])
async def main():
    held = []
    for _ in range(count):
        try:
            ws = await websockets.connect(f"ws://127.0.0.1:{port}/", origin=f"http://127.0.0.1:{port}",
                                          open_timeout=3, ping_interval=None)
            held.append(ws)
        except Exception:
            pass
    print(len(held), flush=True)
    await asyncio.sleep(3600)
asyncio.run(main())
"""


def test_silent_connections_of_other_users_cannot_lock_the_kiosk_page_out(carousel, open_page):
    needs_root("it holds the bridge's connections as uid 65534 with setpriv")
    # The bridge: 8 connections for everyone else; the page's user (root here) is in the
    # display group, whose pool they cannot take.
    daemon, bridge = carousel(name="lockout", bridge_args=["--maxforks", "8"])
    holder = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               "/usr/bin/python3", "-c", HOLDER, str(bridge.port), "12"],
                              stdout=subprocess.PIPE, text=True)
    try:
        held = int(holder.stdout.readline())
        assert held == 8, f"uid 65534 holds the 8 connections of its pool and no more, held {held}"
        # Even a page load by that user is refused now (its pool is full), at once.
        probe = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                "/usr/bin/python3", "-c",
                                f"import urllib.request\ntry: urllib.request.urlopen('http://127.0.0.1:{bridge.port}/', timeout=3); print('served')\n"
                                "except Exception as e: print('refused', type(e).__name__)"],
                               capture_output=True, text=True, timeout=10)
        assert probe.stdout.startswith("refused"), probe.stdout + probe.stderr
        # The kiosk's page gets in and draws while all of them are held.
        started = time.monotonic()
        page = open_page(bridge.url)
        page.wait_settled_geometry()
        page.wait("return window.carousel.client.status === 'open' && window.carousel.drawnSeq !== null", 10, "drawn")
        took = time.monotonic() - started
        print(f"the kiosk page connected and drew {took:.2f} s after loading, with 8 silent WebSockets of uid 65534 held")
        assert took < 5
        assert "connected" in page.status_text()
    finally:
        holder.kill()
        holder.wait()


def test_another_users_connection_flood_does_not_stall_the_kiosk_page(carousel, open_page):
    # The bridge read the whole /proc/self/net/tcp in its one event loop for every accepted
    # connection, refused ones too, to learn the peer's uid: another local user's loop of
    # connects and closes, with the table full of TIME_WAIT rows, made the kiosk page's loads
    # take seconds. It now asks the kernel for the one socket (sock_diag), and not at all when
    # both pools are full. 10,000 TIME_WAIT rows, then 4 threads of connect-and-close as uid
    # 65534 (the flood's code is passed with -c: nobody may not be able to read the checkout).
    needs_root("it floods the bridge as uid 65534 with setpriv")
    daemon, bridge = carousel(name="connect-flood")
    code = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "floods.py")).read()
    code = code.replace('if __name__ == "__main__":', 'if True:')
    flooder = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                "/usr/bin/python3", "-c", code, str(bridge.port), "connects", "10000", "4"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        ready = flooder.stdout.readline()
        assert ready.startswith("ready"), f"the flood did not start: {ready}{flooder.stdout.read() if flooder.poll() is not None else ''}"
        rates = []
        threading.Thread(target=lambda: [rates.append(int(line)) for line in flooder.stdout if line.strip().isdigit()],
                         daemon=True).start()
        wait_for(lambda: rates, 10, "the flood's first second")
        loads = []
        for _ in range(5):
            started = time.monotonic()
            page = open_page(bridge.url)
            page.wait_settled_geometry(30)
            page.wait("return window.carousel.client.status === 'open' && window.carousel.drawnSeq !== null",
                      30, "the page connected and drawn during the flood")
            loads.append(time.monotonic() - started)
        with open("/proc/net/tcp") as f:
            rows = sum(1 for _ in f) - 1
        loads.sort()
        print(f"page loads during the flood ({rows} rows in /proc/net/tcp, {sorted(rates)[len(rates) // 2]} connects/s "
              f"median): median {loads[2]:.2f} s, max {loads[-1]:.2f} s")
        assert flooder.poll() is None, "the flood stopped"
        assert loads[2] < 3 and loads[-1] < 6, f"page loads during the flood took {', '.join(f'{t:.2f}' for t in loads)} s"
    finally:
        flooder.kill()
        flooder.wait()


def test_a_connection_that_sends_no_request_is_closed(carousel):
    daemon, bridge = carousel(name="silent")
    s = socket.create_connection(("127.0.0.1", bridge.port))
    s.settimeout(8)
    started = time.monotonic()
    assert s.recv(1) == b"", "the bridge closes a connection without a request"
    took = time.monotonic() - started
    s.close()
    assert 4.5 < took < 7, f"closed after {took:.2f} s, not the 5 s handshake timeout"


# ---- 3. only the page's requests go through ----

def test_the_bridge_forwards_only_the_pages_requests(carousel):
    daemon, bridge = carousel(name="allow")
    refused = [
        {"cmd": "reload"}, {"cmd": "set_count", "count": 1000000000}, {"cmd": "set_style", "style": "rotary"},
        {"cmd": "remove_items", "at": 0, "count": 5}, {"cmd": "set_autoplay", "enabled": True, "interval_s": 1},
        {"cmd": "recenter_tilt"}, {"cmd": "samples", "enable": True}, {"cmd": "insert_items", "at": 0, "count": 3},
        {"cmd": "outer_scroll", "y": 50}, {"cmd": "set_tilt", "mode": "position"},
        {"cmd": "set_display_rotation", "degrees": 90, "persist": True},
        {"cmd": "set_geometry", "viewport": {"width": 500, "height": 300}, "item": {"width": 100, "height": 100},
         "axis": "vertical"},
    ]

    async def run():
        async with websockets.connect(f"ws://127.0.0.1:{bridge.port}/", origin=f"http://127.0.0.1:{bridge.port}") as ws:
            assert json.loads(await ws.recv())["class"] == "VERSION"
            replies = []
            for request in refused:
                await ws.send(json.dumps(request))
                replies.append(json.loads(await ws.recv()))
            # The page's own requests pass; two on one message are two requests.
            await ws.send('{"cmd":"set_count","count":12}\n{"cmd":"scroll_to","index":3,"animated":false}')
            await ws.send('{"cmd":"set_display_rotation","degrees":0}')
            acks = [json.loads(await ws.recv()) for _ in range(3)]
            # Duplicate keys: what is forwarded is what was checked (the last 'cmd' here).
            await ws.send('{"cmd":"reload","cmd":"poll"}')
            polled = json.loads(await ws.recv())
            await ws.send('{"cmd":"tap","location":1,"cmd":"reload"}')
            dup = json.loads(await ws.recv())
            await ws.send("not json")
            bad = json.loads(await ws.recv())
            return replies, acks, polled, dup, bad

    replies, acks, polled, dup, bad = asyncio.run(run())
    for request, reply in zip(refused, replies):
        assert reply["class"] == "ERROR" and reply["code"] == "not_allowed" and reply["cmd"] == request["cmd"], (request, reply)
        assert "web bridge" in reply["message"], reply
    assert "field 'enabled' of 'set_autoplay'" in replies[4]["message"], replies[4]
    assert "up to 1000" in replies[1]["message"], replies[1]
    assert acks == [{"class": "ACK", "cmd": "set_count"}, {"class": "ACK", "cmd": "scroll_to"},
                    {"class": "ACK", "cmd": "set_display_rotation"}], acks
    assert polled["class"] == "STATE" and dup["code"] == "not_allowed" and dup["cmd"] == "reload"
    assert bad["class"] == "ERROR" and bad["code"] == "bad_json", bad
    # The daemon's own view: none of the refused requests happened.
    ctl = daemon.client()
    ctl.send({"cmd": "watch", "enable": True})
    layout = ctl.read_class("LAYOUT")
    state = ctl.read_class("STATE")
    ctl.close()
    assert layout["style"] == "linear" and layout["axis"] == "horizontal" and layout["count"] == 12, layout
    assert state["index"] == 3 and state["autoplay"] == "off", state


def test_numbers_and_strings_the_daemon_refuses_are_refused_not_rewritten(carousel):
    """The bridge forwards the parsed request written again, so what Python's JSON reads
    differently from the daemon must be refused by the bridge itself: a lone UTF-16 surrogate
    (which cannot be written as UTF-8, and closed the page's connection without a word), a number
    that overflows (read as inf, forwarded as `Infinity`, which the daemon then called an
    unexpected character 'I' the page never sent) or underflows (forwarded as 0.0)."""
    daemon, bridge = carousel(name="numbers")
    hostile = [
        (r'{"cmd":"poll","id":"\ud800"}', "not JSON: a string holds the unpaired UTF-16 surrogate \\ud800"),
        (r'{"cmd":"scroll_to","index":"\udfff\ud800"}', "not JSON: a string holds the unpaired UTF-16 surrogate \\udfff"),
        (r'{"cmd":"scroll_to","index":1e400}', "not JSON: number 1e400 out of range"),
        (r'{"cmd":"drag","phase":"began","location":-2E+308}', "not JSON: number -2E+308 out of range"),
        (r'{"cmd":"tap","location":1e-400}', "not JSON: number 1e-400 too small (below 2.2250738585072014e-308, it underflows)"),
        (r'{"cmd":"tap","location":4.9e-324}', "not JSON: number 4.9e-324 too small (below 2.2250738585072014e-308, it underflows)"),
    ]

    async def run():
        async with websockets.connect(f"ws://127.0.0.1:{bridge.port}/", origin=f"http://127.0.0.1:{bridge.port}") as ws:
            assert json.loads(await ws.recv())["class"] == "VERSION"
            replies = []
            for message, _ in hostile:
                await ws.send(message)
                replies.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
            # An exact zero, a pair of surrogates (one character) and the largest finite numbers pass.
            await ws.send('{"cmd":"scroll_to","index":0.0e-400,"animated":false,"id":"\\ud83d\\ude00"}')
            await ws.send('{"cmd":"tap","location":1.7976931348623157e308,"cross":2.2250738585072014e-308}')
            await ws.send('{"cmd":"poll"}')
            rest = [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(3)]
            return replies, rest

    replies, rest = asyncio.run(run())
    for (message, text), reply in zip(hostile, replies):
        assert reply == {"class": "ERROR", "code": "bad_json", "message": text}, (message, reply)
    assert rest[0] == {"class": "ACK", "cmd": "scroll_to"} and rest[1] == {"class": "ACK", "cmd": "tap"}, rest
    assert rest[2]["class"] == "STATE", rest


# ---- issue 29 item 8: DNS rebinding ----

def test_dns_rebinding_names_are_refused(carousel):
    daemon, bridge = carousel(name="rebind")
    port = bridge.port
    evil = f"rebind.evil.example:{port}"
    # The hostile run's request: Host and Origin both the rebinding name → websocketd said 101.
    assert http_status(port, host=evil, origin=f"http://{evil}", upgrade=True)[0] == 421
    # The page's files too: a rebinding page could read them, and its scripts would then connect.
    assert http_status(port, host=evil)[0] == 421
    assert http_status(port, host=evil, path="/app.js")[0] == 421
    # An allowed Host with another site's Origin.
    assert http_status(port, origin="http://evil.example", upgrade=True)[0] == 403
    assert http_status(port, origin=f"http://{evil}", upgrade=True)[0] == 403
    assert http_status(port, origin=f"http://localhost:{port + 1}", upgrade=True)[0] == 403
    # The bridge's own names: loopback and what --origin lists.
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
        assert http_status(port, host=host, origin=f"http://{host}", upgrade=True)[0] == 101, host
        assert http_status(port, host=host)[0] == 200, host
    assert http_status(port, host="kiosk.example:8780", origin="http://kiosk.example:8780", upgrade=True)[0] == 421
    # A name the operator gives (--origin) is accepted as Host and Origin; others still are not.
    daemon, bridge = carousel(name="rebind-named", bridge_args=["--origin", "kiosk.example:8780"])
    port = bridge.port
    assert http_status(port, host="kiosk.example:8780", origin="http://kiosk.example:8780", upgrade=True)[0] == 101
    assert http_status(port, host="kiosk.example:8780")[0] == 200
    assert http_status(port, host=f"rebind.evil.example:{port}", origin=f"http://rebind.evil.example:{port}",
                       upgrade=True)[0] == 421


def test_a_request_with_two_host_or_origin_lines_is_refused_cleanly(carousel):
    # Two header lines of one name got 500 and a traceback in the log (the library's get() raises);
    # the bridge must answer 400 itself, keep no slot, and go on serving.
    daemon, bridge = carousel(name="duplicate-headers")
    port = bridge.port
    good = f"127.0.0.1:{port}"
    upgrade = ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               "Sec-WebSocket-Version: 13\r\n")
    for extra in (f"Host: {good}\r\nHost: {good}\r\n",
                  f"Host: {good}\r\nOrigin: http://{good}\r\nOrigin: http://{good}\r\n" + upgrade,
                  f"Host: {good}\r\nHost: rebind.evil.example:{port}\r\n" + upgrade):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(f"GET / HTTP/1.1\r\n{extra}\r\n".encode())
            reply = b""
            while b"\r\n" not in reply:
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 400 "), (extra, reply[:200])
    assert http_status(port)[0] == 200
    assert http_status(port, origin=f"http://{good}", upgrade=True)[0] == 101

def test_malformed_host_and_origin_values_are_refused_cleanly(carousel):
    # An Origin that is no URL (`http://[::1`: urlsplit raises) and a Host or Origin with a
    # byte that is not UTF-8 (the library keeps it as a surrogate, which the reply's text could
    # not encode) got 500 and a traceback in the log. Each is now refused by the bridge itself,
    # the value quoted with such bytes as \xNN, and the bridge goes on serving.
    daemon, bridge = carousel(name="malformed-headers", bridge_args=("--loglevel", "access"))
    port = bridge.port
    good = f"127.0.0.1:{port}".encode()
    upgrade = (b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               b"Sec-WebSocket-Version: 13\r\n")
    cases = [
        (b"Host: " + good + b"\r\nOrigin: http://[::1\r\n" + upgrade,
         b"403 ", b"pages from 'http://[::1' may not connect (see --origin)\n"),
        (b"Host: " + good + b"\xff\r\n",
         b"421 ", b"this bridge is not reached as '" + good + b"\\xff'\n"),
        (b"Host: " + good + b"\r\nOrigin: http://\xfe" + good + b"\r\n" + upgrade,
         b"403 ", b"pages from 'http://\\xfe" + good + b"' may not connect (see --origin)\n"),
    ]
    for headers, status, body in cases:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET / HTTP/1.1\r\n" + headers + b"\r\n")
            reply = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 " + status), (headers, reply[:300])
        assert reply.endswith(b"\r\n\r\n" + body), (headers, reply[-300:])
    assert http_status(port)[0] == 200
    assert http_status(port, origin=f"http://127.0.0.1:{port}", upgrade=True)[0] == 101
    log = open(bridge.log_path, "rb").read()
    assert b"Traceback" not in log and b"\xff" not in log and b"\xfe" not in log, log[-2000:]
    assert b"refused Origin 'http://[::1'" in log and b"refused Host '127.0.0.1:%d\\xff'" % port in log, log[-2000:]


# ---- 4. the page's parameters, its policy and its files ----

def test_the_page_has_a_real_policy_and_no_listings(carousel):
    daemon, bridge = carousel(name="policy")
    status, headers, body = http_status(bridge.port)
    assert status == 200 and b"data-carousel" in body
    csp = headers["Content-Security-Policy"]
    for directive in ("default-src 'none'", "script-src 'self'", "connect-src 'self'", "img-src 'self' data:",
                      "frame-ancestors 'none'", "base-uri 'none'"):
        assert directive in csp, (directive, csp)
    assert headers["X-Content-Type-Options"] == "nosniff"
    for path in ("/demo/", "/demo", "/.git/config", "/%2e%2e/README.md", "/demo/../app.js", "/../scripts/demo"):
        assert http_status(bridge.port, path=path)[0] == 404, path
    assert http_status(bridge.port, path="/demo/card-1.svg")[1]["Content-Type"] == "image/svg+xml"


def test_card_lists_are_http_same_origin_and_bounded(carousel, open_page, workdir):
    lists = tempfile.mkdtemp(prefix="lists-", dir=workdir)
    os.chmod(lists, 0o755)
    with open(os.path.join(lists, "million.json"), "w") as f:
        json.dump([{"title": f"Card {i + 1}"} for i in range(1001)], f)
    with open(os.path.join(lists, "thousand.json"), "w") as f:
        json.dump([{"title": f"T{i + 1}", "image": "data:image/svg+xml,<svg/>"} for i in range(1000)], f)
    daemon, bridge = carousel(name="lists", bridge_args=["--serve", f"/lists/={lists}"])
    note = "return document.querySelector('[data-carousel-status]').textContent"

    def refused(url, says):
        page = open_page(bridge.url + "?cards=" + url)
        page.wait(f"{note}.includes({json.dumps(says)})", 10, f"the note for {url}")
        page.wait_settled_geometry()
        assert not [s for s in page.sent() if s["request"]["cmd"] == "set_count"], page.sent()
        assert page.js("return document.querySelector('[data-carousel] [data-index] .number') !== null")
        return page

    refused("data:application/json,[{%22title%22:%22pwned%22}]", "only http(s) lists are loaded")
    refused("lists/million.json", "1001 entries, more than the 1000")
    other = f"http://localhost:{bridge.port}/demo-cards.json"  # another origin than 127.0.0.1:PORT
    refused(other, "not loaded from another origin")
    # 1000 is the bound: it loads, and pictures that are not http(s) are dropped.
    page = open_page(bridge.url + "?cards=lists/thousand.json")
    page.wait("return window.carousel.client.state && window.carousel.client.state.count === 1000", 10, "count 1000")
    assert page.js("return document.querySelectorAll('[data-carousel] img').length") == 0


def test_a_bad_parameter_is_shown_and_the_page_still_draws(carousel, open_page):
    daemon, bridge = carousel(name="params")
    for query, says in (("?rate=-5", "?rate=-5: expected a rate in Hz above 0"),
                        ("?rate=abc&geometry=of", "?geometry=of: expected off"),
                        ("?ws=javascript:alert(1)", "?ws=javascript:alert(1): expected a ws: or wss: URL")):
        page = open_page(bridge.url + query)
        page.wait("return window.carousel.client.status === 'open' && window.carousel.drawnSeq !== null", 10,
                  f"the page drawn with {query}")
        assert says in page.status_text(), (query, page.status_text())
        assert page.js("return document.querySelectorAll('[data-carousel] [data-index]:not([hidden])').length") > 0
        watch = [s["request"] for s in page.sent() if s["request"]["cmd"] == "watch"][0]
        assert "max_rate_hz" not in watch, watch


def test_a_display_group_member_has_the_display_pool_then_the_other(carousel):
    needs_root("it connects as uid 65534 with setpriv")
    # nobody's primary group nogroup as the display group: 2 display slots, then 2 of the others.
    daemon, bridge = carousel(name="pools", bridge_args=["--display-group", "no-such-group,nogroup",
                                                         "--display-slots", "2", "--maxforks", "2"])
    holder = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               "/usr/bin/python3", "-c", HOLDER, str(bridge.port), "6"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert int(holder.stdout.readline()) == 4
    finally:
        holder.kill()
        holder.wait()


def test_the_owners_pages_keep_their_own_styles_and_are_never_framed(carousel, workdir):
    owner = tempfile.mkdtemp(prefix="owner-", dir=workdir)
    os.chmod(owner, 0o755)
    with open(os.path.join(owner, "offer.html"), "w") as f:
        f.write('<!doctype html><p style="color:red">offer</p>\n')
    daemon, bridge = carousel(name="owner", bridge_args=["--serve", f"/owner/={owner}"])
    status, headers, _ = http_status(bridge.port, path="/owner/offer.html")
    assert status == 200 and headers["Content-Security-Policy"] == "frame-ancestors 'none'", headers
    assert "default-src 'none'" in http_status(bridge.port, path="/index.html")[1]["Content-Security-Policy"]
    assert "default-src 'none'" in http_status(bridge.port, path="/demo/card-1.svg")[1]["Content-Security-Policy"]


def test_a_fifo_among_the_served_files_does_not_stop_the_bridge(carousel, workdir):
    # The bridge opened a served file before checking that it is a regular one: a FIFO in a
    # served folder (a cards folder is the owner's to fill) made that open wait for a writer,
    # and with it the bridge's one event loop, for every page. It is now 404 like any other
    # non-file, and the bridge goes on serving.
    served = tempfile.mkdtemp(prefix="served-", dir=workdir)
    os.chmod(served, 0o755)
    os.mkfifo(os.path.join(served, "cards.json"))
    with open(os.path.join(served, "real.json"), "w") as f:
        f.write("[]\n")
    daemon, bridge = carousel(name="fifo", bridge_args=["--serve", f"/served/={served}"])
    assert http_status(bridge.port, path="/served/cards.json")[0] == 404
    assert http_status(bridge.port, path="/served/real.json")[0] == 200
    assert first_message(bridge.port)["class"] == "VERSION"


def test_a_fifo_as_the_owners_card_list_does_not_keep_the_bridge_from_starting(carousel, workdir):
    # The start-up check of cards/cards.json opened it blocking: a FIFO there kept the bridge
    # from ever listening. It is now named as unusable and the bridge serves.
    static = tempfile.mkdtemp(prefix="static-", dir=workdir)
    shutil.copytree(os.path.join(ROOT, "web"), static, dirs_exist_ok=True)
    shutil.rmtree(os.path.join(static, "cards"), ignore_errors=True)
    os.mkdir(os.path.join(static, "cards"))
    os.mkfifo(os.path.join(static, "cards", "cards.json"))
    daemon, bridge = carousel(name="fifo-cards", bridge_args=["--static", static])
    assert first_message(bridge.port)["class"] == "VERSION"
    log = open(bridge.log_path).read()
    assert (f"carouseld-web: card list {static}/cards/cards.json: not readable (not a regular file); "
            "pages show numbered cards") in log, log
