"""The kiosk for real: `carouseld-kiosk` as `make install-kiosk` installs it starts cage (wlroots'
headless backend and pixman renderer: no GPU, no screen) with Chromium in kiosk mode on the page
served by the real bridge, from the owner's card folder, in front of the real daemon. grim takes
screenshots through cage's screencopy; Chromium's DevTools port (the kiosk's extra flags) lets
the test read the DOM and tap like a finger (Input.dispatchTouchEvent).

cage is started with the output turned (--rotate): cage 0.1.4 (Debian 12) hands a full-screen
client's buffer straight to the output when output and buffer have the same transform, and on
the headless backend screencopy then keeps returning the last frame cage composited itself (the
browser's first, small window). A turned output is always composited, so grim sees what a
screen would show. 90 is a landscape panel mounted upright (a portrait kiosk, 720 x 1280), 180
a landscape one (1280 x 720)."""

import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "browser"))

from conftest import ROOT, Bridge, Daemon, free_port, listening, require_reachable_by_others, wait_for  # noqa: E402
from owner_cards import install_web  # noqa: E402

NOBODY = 65534
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, whatever http_proxy says
OUTPUT = (1280, 720)  # wlroots 0.15's headless output (WLR_HEADLESS_OUTPUTS=1)


@pytest.fixture(scope="session")
def workdir():
    base = os.environ.get("KIOSK_TEST_OUTPUT") or tempfile.mkdtemp(prefix="carouseld-kiosk-")
    os.makedirs(base, exist_ok=True)
    os.chmod(base, 0o755)
    return base


def as_kiosk_user(argv):
    """cage refuses to run as root (it could not drop it): the kiosk runs as nobody, as
    carouseld-kiosk.service runs it as its own user."""
    if os.getuid() != 0:
        return argv
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG (grim writes one)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"{path}: depth {depth}, colour type {colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def session_processes(sid):
    """The processes of session `sid` (/proc/PID/stat's sixth field), as 'pid command' strings."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()   # after "pid (comm) "
        if fields[0] != "Z" and int(fields[3]) == sid:
            found.append(f"{pid} {stat[stat.index('(') + 1:stat.rindex(')')]}")
    return found


def assert_nothing_left(sid, what, timeout=10):
    """Waits up to `timeout` s (Chromium's processes end after cage) until no process of the
    kiosk's session is left."""
    left = []

    def gone():
        left[:] = session_processes(sid)
        return not left
    try:
        wait_for(gone, timeout, what, interval=0.1)
    except AssertionError:
        raise AssertionError(f"{what}: still running in the kiosk's session: {left}") from None


def near(pixel, rgb, tolerance=40):
    return all(abs(p - q) <= tolerance for p, q in zip(pixel, rgb))


class Kiosk:
    """carouseld-kiosk (installed by make install-kiosk) in cage on the headless backend."""

    def __init__(self, workdir, script, url, rotate, extra_env=None):
        self.dir = tempfile.mkdtemp(prefix="kiosk-", dir=workdir)
        self.runtime = os.path.join(self.dir, "runtime")
        os.mkdir(self.runtime, 0o700)
        if os.getuid() == 0:
            os.chown(self.runtime, NOBODY, NOBODY)
            os.chown(self.dir, NOBODY, NOBODY)
        self.devtools = free_port()
        self.log_path = os.path.join(self.dir, "cage.log")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.dir, "XDG_RUNTIME_DIR": self.runtime,
               "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
               "WLR_HEADLESS_OUTPUTS": "1",
               "CAROUSELD_KIOSK_URL": url, "CAROUSELD_KIOSK_PROFILE": os.path.join(self.dir, "browser"),
               "CAROUSELD_KIOSK_WAIT": "10",
               # The test's only additions to the kiosk's own flags: a DevTools port on loopback to
               # read the DOM and tap, and no GPU process (there is no GPU).
               "CAROUSELD_KIOSK_FLAGS": f"--remote-debugging-address=127.0.0.1 --remote-debugging-port={self.devtools}"}
        # Touch: the script asks for the touchscreens' turn in its runtime folder and waits for
        # the answer; a thread here answers as carouseld-kiosk-touch.path would (no systemd and
        # no touchscreen here: tests/kernel's kiosk_touch_* run the real helper on udev).
        env["CAROUSELD_KIOSK_TOUCH"] = os.path.join(self.runtime, "touch-rotation")
        env["CAROUSELD_KIOSK_TOUCH_APPLIED"] = os.path.join(self.dir, "touch-applied")
        env.update(extra_env or {})
        self.touch_requests, self.answering = [], True
        self.answerer = threading.Thread(target=self._answer_touch, args=(env["CAROUSELD_KIOSK_TOUCH"], env["CAROUSELD_KIOSK_TOUCH_APPLIED"]), daemon=True)
        self.answerer.start()
        self.log = open(self.log_path, "ab")
        # Its own session (and process group), so that stop() ends all of it.
        self.process = subprocess.Popen(as_kiosk_user([script, "--rotate", str(rotate)]), env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.size = OUTPUT if rotate in (0, 180) else OUTPUT[::-1]
        self.driver = None
        self.browser_id = None
        self.attach()

    def _answer_touch(self, request, applied):
        """Each new request (a rename over the file: a new inode) is recorded and answered."""
        seen = None
        while self.answering:
            try:
                st = os.stat(request)
                if (st.st_ino, st.st_mtime_ns) != seen:
                    seen = (st.st_ino, st.st_mtime_ns)
                    turn = open(request).read().strip()
                    self.touch_requests.append(turn)
                    with open(applied + ".tmp", "w") as f:
                        f.write(turn + "\n")
                    os.rename(applied + ".tmp", applied)
            except FileNotFoundError:
                pass
            time.sleep(0.05)

    def attach(self):
        """Attaches to the browser cage runs (again, after the kiosk restarted it): once a
        browser other than the one attached before answers on the DevTools port. A port that
        accepts connections is not enough: on a loaded machine the old browser (its cage being
        stopped) still listens for a while after the kiosk logged the turn, and a browser just
        started listens before it answers; chromedriver attached to either failed with
        "cannot connect to chrome"."""
        before = self.browser_id
        if self.driver:
            try:
                self.driver.quit()
            except Exception:
                pass
        steady = {"id": None, "since": None, "starts": None}

        def settled_browser():
            # The same new browser answering for 1 s, with no start of cage in between: a browser
            # whose cage is being replaced (the kiosk's first start at 0° while the orientation
            # is still unknown, replaced at once) stops answering within that second.
            browser, starts = self._new_browser(before), self.starts()
            if not browser or browser != steady["id"] or starts != steady["starts"]:
                steady.update(id=browser, since=time.monotonic(), starts=starts)
                return None
            return browser if time.monotonic() - steady["since"] >= 1.0 else None
        self.browser_id = wait_for(settled_browser, 60, "a new Chromium answering on its DevTools port in cage",
                                   interval=0.1)
        self.driver = self._attach()

    def starts(self):
        """How many times the kiosk has started cage (its log's lines)."""
        with open(self.log_path, errors="replace") as f:
            return f.read().count("starting cage turned")

    def _new_browser(self, before):
        """The id of the browser answering on the DevTools port (`/json/version`'s
        webSocketDebuggerUrl, new for each browser started), when it is not `before`."""
        if not listening(self.process, self.devtools, "carouseld-kiosk", self.log_path):
            return None
        try:
            with NO_PROXY.open(f"http://127.0.0.1:{self.devtools}/json/version", timeout=5) as r:
                browser = json.load(r).get("webSocketDebuggerUrl")
        except (OSError, ValueError):
            return None
        return browser if browser and browser != before else None

    def _attach(self):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        options = webdriver.ChromeOptions()
        options.debugger_address = f"127.0.0.1:{self.devtools}"
        return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)

    def js(self, script):
        return self.driver.execute_script(script)

    def wait(self, script, timeout=15, what=None):
        return wait_for(lambda: self.js(script), timeout, what or script, interval=0.1)

    def grab(self):
        """grim through cage's screencopy, as the kiosk user (the Wayland socket is theirs): the
        output's picture now, as PNG bytes (also left in the runtime folder as shot.png)."""
        out = subprocess.run(as_kiosk_user(["grim", os.path.join(self.runtime, "shot.png")]),
                             env={"PATH": os.environ.get("PATH", ""), "XDG_RUNTIME_DIR": self.runtime,
                                  "WAYLAND_DISPLAY": "wayland-0"}, capture_output=True, text=True, timeout=20)
        assert out.returncode == 0, f"grim: {out.stderr}"
        with open(os.path.join(self.runtime, "shot.png"), "rb") as f:
            return f.read()

    def still(self, timeout=10):
        """Until two grabs in a row are the same picture: what the page drew has reached the
        output (cage composites after the page's frame, so a picture taken at once may be the
        one before)."""
        last = [self.grab()]

        def unchanged():
            now = self.grab()
            was, last[0] = last[0], now
            return now == was
        wait_for(unchanged, timeout, "the output's picture to stop changing", interval=0.05)

    def screenshot(self, path):
        """The output's picture saved at `path` (grab): (width, height, rows of RGB)."""
        self.grab()
        shutil.copyfile(os.path.join(self.runtime, "shot.png"), path)
        print(f"screenshot: {path}", file=sys.stderr)
        return png_pixels(path)

    def tap(self, x, y):
        """A finger's tap at (x, y) CSS pixels of the page (Input.dispatchTouchEvent)."""
        for kind, points in (("touchStart", [{"x": x, "y": y, "id": 1}]), ("touchEnd", [])):
            self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def stop(self):
        """Ends the kiosk's whole process group, even when the script itself has already exited
        (whatever it left would be there still), then checks that nothing of its session is left."""
        try:
            if self.driver:
                self.driver.quit()  # detaches chromedriver; the browser is cage's
        except Exception:
            pass
        for sig in (15, 9):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(10)
                # What the script started may outlive it by a moment (its own TERM to them).
                wait_for(lambda: not session_processes(self.process.pid), 2, "the session to end", interval=0.05)
                break
            except (subprocess.TimeoutExpired, AssertionError):
                pass
        self.process.wait()
        self.answering = False
        self.log.close()
        assert_nothing_left(self.process.pid, "after the kiosk's process group was stopped", timeout=5)


@pytest.fixture(scope="session")
def installed(workdir):
    """The page, the owner's cards and the kiosk script, installed into a temporary prefix."""
    dest = tempfile.mkdtemp(prefix="prefix-", dir=workdir)
    static, folder = install_web(dest)
    out = subprocess.run(["make", "-s", "-C", ROOT, "install-kiosk", f"PREFIX={dest}/usr", f"SYSCONFDIR={dest}/etc"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"make install-kiosk: {out.stdout} {out.stderr}"
    os.chmod(dest, 0o755)
    return static, folder, os.path.join(dest, "usr", "bin", "carouseld-kiosk")


@pytest.fixture
def kiosk(workdir, installed):
    started = []

    def make(query, rotate=90, config=None, extra_env=None):
        static, folder, script = installed
        daemon = Daemon(workdir, "kiosk", config or {})
        started.append(daemon)
        bridge = Bridge(workdir, socket_path=daemon.socket, extra=["--static", static])
        started.append(bridge)
        k = Kiosk(workdir, script, bridge.url + query, rotate, {"CAROUSELD_KIOSK_SOCKET": daemon.socket, **(extra_env or {})})
        started.append(k)
        return daemon, bridge, k

    yield make
    for thing in reversed(started):
        thing.stop()


def settled(k, count):
    k.wait(f"""const c = window.carousel && window.carousel.client;
        return c && c.state && c.state.count === {count} && c.state.phase === 'idle' && c.layout
          && [...document.images].every(i => i.complete && i.naturalWidth > 0)""", 30, f"the carousel at rest with {count} cards")
    # Two frames after the last change, then until the output shows one picture steadily.
    k.driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done()))")
    k.still()


def test_the_kiosk_shows_the_owners_cards_full_screen_and_a_tap_follows_the_link(kiosk, workdir):
    daemon, bridge, k = kiosk("?status=off&cards=cards/cards.json", rotate=90)
    settled(k, 3)
    w, h = k.size
    # Full screen: the page's viewport is the whole output, the status line is hidden, and the
    # carousel fills the page (the daemon's viewport is the page's).
    viewport = k.js("return [innerWidth, innerHeight, document.querySelector('[data-carousel-status]').hidden]")
    assert viewport == [w, h, True], f"the page is {viewport}, the output {w} x {h}"
    layout = k.js("return window.carousel.client.layout.viewport")
    assert (layout["width"], layout["height"]) == (w, h)
    card = k.js("""const e = document.querySelector('[data-carousel] [data-index="0"][aria-current="true"]');
        const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height, e.querySelector('img').alt, e.dataset.link]""")
    x, y, cw, ch, alt, link = card
    assert alt == "A red card with the letter A" and link == bridge.url + "cards/target.html?from=card1"
    shot = os.path.join(workdir, "1-portrait-own-cards.png")
    sw, sh, rows = k.screenshot(shot)
    assert (sw, sh) == (w, h), f"the screenshot is {sw} x {sh}, not the {w} x {h} output"
    # The centered card's middle is the red picture (#d62828), the top and bottom edges of the
    # screen the page's dark background: the page, not a window, covers the output.
    cx, cy = int(x + cw / 2), int(y + ch * 0.15)
    assert near(rows[cy][cx], (0xd6, 0x28, 0x28)), f"centre of card 1 at {cx},{cy} is {rows[cy][cx]}"
    for px, py in ((2, 2), (w - 3, 2), (2, h - 3), (w - 3, h - 3)):
        assert max(rows[py][px]) < 60, f"corner {px},{py} is {rows[py][px]}, not the page's dark background"
    # A finger's tap on the centered card follows its link: the linked page (all yellow) fills the screen.
    k.tap(x + cw / 2, y + ch / 2)
    wait_for(lambda: k.driver.current_url == bridge.url + "cards/target.html?from=card1", 15, "the linked page")
    k.wait("return document.readyState === 'complete' && document.querySelector('[data-linked-page]')", 15, "the linked page drawn")
    k.still()
    sw, sh, rows = k.screenshot(os.path.join(workdir, "2-portrait-after-tap.png"))
    yellow = sum(near(rows[py][px], (0xff, 0xd6, 0x0a)) for px in range(0, sw, 40) for py in range(0, sh, 40))
    total = len(range(0, sw, 40)) * len(range(0, sh, 40))
    assert yellow >= 0.9 * total, f"{yellow} of {total} sampled pixels are the linked page's yellow"


def test_landscape_kiosk_with_the_status_line_and_numbered_cards(kiosk, workdir):
    # A load timeout of 6 s, which the real Chromium outlasts below: its WebSocket to the
    # bridge is found among its processes' established connections (/proc), so it is left alone.
    started = time.monotonic()
    daemon, bridge, k = kiosk("", rotate=180, config={"carousel": {"count": "12"}},
                              extra_env={"CAROUSELD_KIOSK_LOAD_TIMEOUT": "6"})
    settled(k, 12)
    w, h = k.size
    status = k.js("""const s = document.querySelector('[data-carousel-status]'), r = s.getBoundingClientRect();
        return [innerWidth, innerHeight, s.hidden, r.top, r.height, s.textContent]""")
    assert status[:3] == [w, h, False] and status[3] + status[4] == h, status
    assert "connected" in status[5], status[5]
    sw, sh, rows = k.screenshot(os.path.join(workdir, "3-landscape-numbered-with-status.png"))
    assert (sw, sh) == (w, h)
    # The status line's band at the bottom differs from the stage above it (a visible line).
    band = rows[int(status[3] + status[4] / 2)]
    assert any(max(p) > 120 for p in band[:400]), "no text in the status line's band"
    time.sleep(max(0.0, started + 9 - time.monotonic()))
    assert k.process.poll() is None and "was not loaded" not in open(k.log_path).read(), open(k.log_path).read()[-1500:]
    assert k.js("return 1") == 1


def test_the_unit_verifies_and_sysusers_make_the_kiosk_user_outside_carouselds_groups():
    with tempfile.TemporaryDirectory() as d:
        text = open(os.path.join(ROOT, "systemd", "carouseld-kiosk.service")).read()
        touch_service = open(os.path.join(ROOT, "systemd", "carouseld-kiosk-touch.service")).read()
        touch_path = open(os.path.join(ROOT, "systemd", "carouseld-kiosk-touch.path")).read()
        scripts = os.path.join(ROOT, "scripts")
        units = []
        for name, body in (("carouseld-kiosk.service", text.replace("ExecStart=/usr/local/bin/", f"ExecStart={scripts}/")),
                           ("carouseld-kiosk-touch.service", touch_service.replace("ExecStart=/usr/local/libexec/", f"ExecStart={scripts}/")),
                           ("carouseld-kiosk-touch.path", touch_path),
                           ("carouseld-kiosk-touch-pointer.service",
                            open(os.path.join(ROOT, "systemd", "carouseld-kiosk-touch-pointer.service")).read().replace("=/usr/local/libexec/", f"={scripts}/"))):
            units.append(os.path.join(d, name))
            with open(units[-1], "w") as f:
                f.write(body)
        # --man=no: Documentation=man:carouseld-kiosk(1) is generated (make man), not installed here.
        out = subprocess.run(["systemd-analyze", "verify", "--man=no", *units], capture_output=True, text=True, timeout=60, cwd=d)
        assert out.returncode == 0 and out.stderr == "", out.stderr
        root = os.path.join(d, "root")
        os.makedirs(os.path.join(root, "etc"))
        conf = [os.path.join(ROOT, "systemd", "sysusers.d", f) for f in ("carouseld.conf", "carouseld-web.conf", "carouseld-kiosk.conf")]
        out = subprocess.run(["systemd-sysusers", f"--root={root}", *conf], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        users = {l.split(":")[0]: l.strip().split(":") for l in open(os.path.join(root, "etc", "passwd"))}
        assert users["carouseld-kiosk"][5] == "/var/lib/carouseld-kiosk"
        member = {l.split(":")[0] for l in open(os.path.join(root, "etc", "group")) if "carouseld-kiosk" in l.strip().split(":")[3].split(",")}
        assert member == {"video", "render"}, member
    for line in ("User=carouseld-kiosk", "PAMName=carouseld-kiosk", "TTYPath=/dev/tty7", "StandardInput=tty-fail",
                 "Conflicts=getty@tty7.service", "Restart=always", "StateDirectory=carouseld-kiosk",
                 "Wants=carouseld-kiosk-touch.path", "RuntimeDirectory=carouseld-kiosk", "RuntimeDirectoryPreserve=yes",
                 "KillMode=mixed"):
        assert line in text.splitlines(), line
    # The kiosk writes the request where the path unit watches; root's helper runs once per
    # request (no [Install]: the kiosk's Wants= starts the path unit) and reads the turn from
    # the same default file.
    assert "PathChanged=/run/carouseld-kiosk/touch-rotation" in touch_path.splitlines() and "[Install]" not in touch_path
    for line in ("Type=oneshot", "ExecStart=/usr/local/libexec/carouseld-kiosk-touch", "ReadWritePaths=/run/udev",
                 "RuntimeDirectory=carouseld-kiosk-touch", "EnvironmentFile=-/etc/carouseld/carouseld-kiosk.env"):
        assert line in touch_service.splitlines(), line
    helper = open(os.path.join(scripts, "carouseld-kiosk-touch")).read()
    assert "request=/run/carouseld-kiosk/touch-rotation\n" in helper and "applied=/run/carouseld-kiosk-touch/applied\n" in helper
    assert "${RUNTIME_DIRECTORY%%:*}/touch-rotation" in open(os.path.join(scripts, "carouseld-kiosk")).read()
    # Every setting the environment file shows is an option the script reads.
    env = open(os.path.join(ROOT, "configs", "carouseld-kiosk.env")).read()
    names = set(re.findall(r"(?m)^#(CAROUSELD_KIOSK_[A-Z_]+)=", env))
    script = open(os.path.join(ROOT, "scripts", "carouseld-kiosk")).read()
    assert names == {"CAROUSELD_KIOSK_URL", "CAROUSELD_KIOSK_BROWSER", "CAROUSELD_KIOSK_ROTATE", "CAROUSELD_KIOSK_FLAGS",
                     "CAROUSELD_KIOSK_WAIT", "CAROUSELD_KIOSK_SOCKET", "CAROUSELD_KIOSK_TOUCH_MATRIX",
                     "CAROUSELD_KIOSK_LOAD_TIMEOUT", "CAROUSELD_KIOSK_TOUCH_POINTER"}
    helper = open(os.path.join(ROOT, "scripts", "carouseld-kiosk-touch")).read()
    pointer = open(os.path.join(ROOT, "scripts", "carouseld-kiosk-touch-pointer")).read()
    reads = {"CAROUSELD_KIOSK_TOUCH_MATRIX": lambda n: f"${{{n}:-" in helper,
             "CAROUSELD_KIOSK_TOUCH_POINTER": lambda n: f'os.environ.get("{n}", "auto")' in pointer}
    assert all(reads.get(n, lambda n: f"${{{n}:-" in script)(n) for n in names)
    # The touch pointer's unit: only where --needed says so, ended with the kiosk, root for
    # /dev/uinput and the input nodes only; the kiosk's unit pulls it in.
    pointer_service = open(os.path.join(ROOT, "systemd", "carouseld-kiosk-touch-pointer.service")).read()
    for line in ("ExecCondition=/usr/local/libexec/carouseld-kiosk-touch-pointer --needed",
                 "ExecStart=/usr/local/libexec/carouseld-kiosk-touch-pointer", "PartOf=carouseld-kiosk.service",
                 "DevicePolicy=closed", "DeviceAllow=/dev/uinput rw", "DeviceAllow=char-input r",
                 "EnvironmentFile=-/etc/carouseld/carouseld-kiosk.env"):
        assert line in pointer_service.splitlines(), line
    assert "[Install]" not in pointer_service and "Wants=carouseld-kiosk-touch-pointer.service" in text.splitlines()


def turn_recording(path, hold_s=10.0, turn_s=0.5, after_s=20.0, elevation_deg=45.0, rate_hz=100):
    """A native recording (timestamp_ns,accel_x,...,gyro_z; m/s², rad/s) of a tablet held
    bottom-up (upside down) at 45° for `hold_s`, then turned by +90° about the screen normal in
    `turn_s` to left-up, and held there. As TurningRecording (docs/ORIENTATION.md): up vector
    u = (cos e sin φ, cos e cos φ, sin e), accelerometer 9.81·u, gyroscope (0, 0, φ̇), with
    φ(τ) = φ0 + 90° (1 − cos πτ) / 2; φ0 = 180° is bottom-up, 270° left-up."""
    import math
    e, q = math.radians(elevation_deg), math.pi / 2
    lines = ["timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z"]
    for k in range(int((hold_s + turn_s + after_s) * rate_hz)):
        t = k / rate_hz
        tau = min(max((t - hold_s) / turn_s, 0.0), 1.0)
        phi = math.pi + q * (1 - math.cos(math.pi * tau)) / 2
        rate = q * math.pi * math.sin(math.pi * tau) / (2 * turn_s) if 0 < tau < 1 else 0.0
        u = (math.cos(e) * math.sin(phi), math.cos(e) * math.cos(phi), math.sin(e))
        lines.append(f"{round(t * 1e9)},{9.81 * u[0]:.6f},{9.81 * u[1]:.6f},{9.81 * u[2]:.6f},0,0,{rate:.6f}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def test_rotate_auto_turns_the_output_when_the_device_turns(kiosk, workdir):
    """A replayed turn through the real daemon and the real `carouselctl watch --orientation`:
    the daemon replays the tablet upside down (bottom-up) for 10 s, then turned to left-up; the
    kiosk starts turned 180° and, on the turn, restarts cage turned 90°."""
    recording = os.path.join(tempfile.mkdtemp(prefix="turn-", dir=workdir), "turn.csv")
    turn_recording(recording)
    os.chmod(os.path.dirname(recording), 0o755)
    bin_dir = os.environ.get("CAROUSELD_BIN_DIR") or os.path.join(ROOT, ".build", "debug")
    if os.getuid() == 0:
        require_reachable_by_others(os.path.join(bin_dir, "carouselctl"), "runs carouselctl as the kiosk user (nobody)",
                                    executable=True)
    daemon, bridge, k = kiosk("?status=off&cards=cards/cards.json", rotate="auto",
                              config={"sensor": {"source": "replay", "replay_file": recording},
                                      "tilt": {"enabled": "yes"},
                                      # The kiosk, as another user, watches (read-only) like the
                                      # kiosk user in group carouseld.
                                      "server": {"socket_mode": "0666"}},
                              extra_env={"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"})
    wait_for(lambda: "starting cage turned" in open(k.log_path).read(), 15, "the kiosk's first start")
    first = open(k.log_path).read()
    assert "starting cage turned 180°" in first, first[-2000:]
    settled(k, 3)
    assert k.js("return [innerWidth, innerHeight]") == [1280, 720]
    sw, sh, rows = k.screenshot(os.path.join(workdir, "4-auto-bottom-up-landscape.png"))
    assert (sw, sh) == OUTPUT
    # The recording turns the tablet at 10 s: left-up, 90°.
    wait_for(lambda: "orientation left-up" in open(k.log_path).read(), 30, "the kiosk to see the turn")
    k.attach()
    k.wait("return innerWidth === 720 && innerHeight === 1280", 30, "the page in portrait")
    settled(k, 3)
    layout = k.js("return window.carousel.client.layout.viewport")
    assert (layout["width"], layout["height"]) == (720, 1280), layout
    card = k.js("""const e = document.querySelector('[data-carousel] [aria-current="true"]'), r = e.getBoundingClientRect();
        return [r.left, r.top, r.width, r.height]""")
    sw, sh, rows = k.screenshot(os.path.join(workdir, "5-auto-left-up-portrait.png"))
    assert (sw, sh) == (720, 1280)
    # Upright: the centered card's red picture is where the page drew it, in the screenshot's
    # own (upright) coordinates, and the card is taller than wide, as on the page.
    cx, cy = int(card[0] + card[2] / 2), int(card[1] + card[3] * 0.15)
    assert near(rows[cy][cx], (0xd6, 0x28, 0x28)), f"centre of card 1 at {cx},{cy} is {rows[cy][cx]}"
    assert card[3] > card[2]
    assert "starting cage turned 90°" in open(k.log_path).read()
    # The touchscreens were asked to turn before each start of cage, with that start's turn,
    # last 180°, then 90° (the test answers for carouseld-kiosk-touch.path, which needs
    # systemd; an orientation still undefined when the kiosk starts makes a first start at 0°).
    starts = re.findall(r"starting cage turned (\d+)°", open(k.log_path).read())
    assert k.touch_requests == starts and starts[-2:] == ["180", "90"], (k.touch_requests, starts)
    assert "touch may not match" not in open(k.log_path).read()
    # SIGTERM to the script alone (as systemd's stop sends it with KillMode=mixed): it ends
    # the browser, so that cage exits by itself (every restart for a turn above did the same:
    # no cage aborted), and its orientation watcher (and that its carouselctl), then ends by
    # the SIGTERM.
    assert k.process.poll() is None, (k.process.returncode, "the kiosk had ended before the SIGTERM", open(k.log_path).read()[-2000:])
    os.kill(k.process.pid, 15)
    # (143, when bash acts on its own SIGTERM only after the trap: the unit's SuccessExitStatus.)
    assert k.process.wait(15) in (-15, 143), open(k.log_path).read()[-2000:]
    assert "wl_display_terminate" not in open(k.log_path).read(), open(k.log_path).read()[-2000:]
    assert_nothing_left(k.process.pid, "after SIGTERM to carouseld-kiosk --rotate auto")


def test_rotate_auto_exits_with_cage_and_leaves_nothing_behind(workdir, installed):
    """cage fails at once (no wlroots backend by that name): `--rotate auto` exits with cage's
    status 1, and its orientation watcher (the loop around `carouselctl watch`, connected to
    the real daemon) goes with it instead of looping on."""
    _, _, script = installed
    daemon = Daemon(workdir, "kiosk-fail", {"server": {"socket_mode": "0666"}})
    bin_dir = os.environ.get("CAROUSELD_BIN_DIR") or os.path.join(ROOT, ".build", "debug")
    if os.getuid() == 0:
        require_reachable_by_others(os.path.join(bin_dir, "carouselctl"), "runs carouselctl as the kiosk user (nobody)",
                                    executable=True)
    d = tempfile.mkdtemp(prefix="kiosk-fail-", dir=workdir)
    os.chmod(d, 0o755)
    runtime = os.path.join(d, "runtime")
    os.mkdir(runtime, 0o700)
    if os.getuid() == 0:
        os.chown(runtime, NOBODY, NOBODY)
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "HOME": d, "XDG_RUNTIME_DIR": runtime,
           "WLR_BACKENDS": "no-such-backend", "CAROUSELD_KIOSK_SOCKET": daemon.socket, "CAROUSELD_KIOSK_TOUCH": "off",
           "CAROUSELD_KIOSK_URL": "http://127.0.0.1:9/", "CAROUSELD_KIOSK_WAIT": "0"}
    try:
        process = subprocess.Popen(as_kiosk_user([script, "--rotate", "auto"]), env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            raise AssertionError("carouseld-kiosk --rotate auto, or something it started, still holds its output 30 s "
                                 f"after cage failed: {process.communicate()[0][-1500:]}")
        assert process.returncode == 1, out[-1500:]
        assert "starting cage turned 0°" in out, out[-1500:]
        assert_nothing_left(process.pid, "after cage failed under carouseld-kiosk --rotate auto", timeout=3)
    finally:
        try:
            os.killpg(process.pid, 9)
        except (ProcessLookupError, UnboundLocalError):
            pass
        daemon.stop()


def test_print_shows_lines_a_shell_takes_back_word_for_word():
    """--print quotes a word the shell would act on: the owner's URL with &cards=… (docs/KIOSK.md),
    pasted unquoted, put the browser in the background and ran cards=… as a command of its own.
    The default line, without such words, is as before."""
    kiosk = os.path.join(ROOT, "scripts", "carouseld-kiosk")
    url = "http://127.0.0.1:8780/?status=off&cards=cards/owner's.json"
    out = subprocess.run([kiosk, "--url", url, "--flags", "--class=a;b", "--print"], capture_output=True, text=True,
                         timeout=30, env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent"})
    browser = out.stdout.splitlines()[1]
    assert browser.endswith(" '--class=a;b' 'http://127.0.0.1:8780/?status=off&cards=cards/owner'\\''s.json' "), browser
    words = subprocess.run(["bash", "-c", 'eval "set -- $1"; printf "%s\\n" "$@"', "_", browser],
                           capture_output=True, text=True, timeout=30).stdout.splitlines()
    assert words[0] == "chromium" and words[-2:] == ["--class=a;b", url], words
    default = subprocess.run([kiosk, "--print"], capture_output=True, text=True, timeout=30,
                             env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent"}).stdout.splitlines()[1]
    assert default.endswith(" --password-store=basic http://127.0.0.1:8780/?status=off "), default


def test_chromium_composites_in_software_when_cage_draws_with_pixman():
    """cage on pixman offers no linux-dmabuf: Chromium gets --disable-gpu (before the owner's
    flags, which may say otherwise), else its GPU process fails again and again and the page
    is never painted (the system suite's virtio-gpu guest: a white screen for 5 minutes), and
    --disable-gpu-watchdog (a busy guest's GPU process was killed by it at start, with the
    page load). With the GPU renderer, Chromium keeps its GPU and the watchdog."""
    kiosk = os.path.join(ROOT, "scripts", "carouseld-kiosk")

    def browser_words(**env):
        out = subprocess.run([kiosk, "--flags", "--enable-gpu-rasterization", "--print"], capture_output=True, text=True,
                             timeout=30, env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", **env})
        assert out.returncode == 0, out.stderr
        return out.stdout.splitlines()[1].split()
    pixman = browser_words(WLR_RENDERER="pixman")
    assert pixman[-5:] == ["--password-store=basic", "--disable-gpu", "--disable-gpu-watchdog", "--enable-gpu-rasterization",
                           "http://127.0.0.1:8780/?status=off"], pixman
    for env in ({"WLR_RENDERER": "gles2"}, {}):
        words = browser_words(**env)
        assert not [w for w in words if w.startswith("--disable-gpu")] and words[-3:] == [
            "--password-store=basic", "--enable-gpu-rasterization", "http://127.0.0.1:8780/?status=off"], (env, words)
    cog = subprocess.run([kiosk, "--browser", "cog", "--print"], capture_output=True, text=True, timeout=30,
                         env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "WLR_RENDERER": "pixman"})
    assert cog.stdout.splitlines()[1].split() == ["cog", "--platform=wl", "http://127.0.0.1:8780/?status=off"], cog.stdout


def test_a_bad_setting_names_where_the_owner_wrote_it():
    """The unit passes the environment file's settings as variables: a bad one names the variable
    and the file (the owner never typed --rotate), a bad option the option; both exit 64, which
    the unit does not restart on. (`--print` checks the settings and starts nothing.)"""
    kiosk = os.path.join(ROOT, "scripts", "carouseld-kiosk")
    helper = os.path.join(ROOT, "scripts", "carouseld-kiosk-touch")
    where = "(in the environment; the unit reads /etc/carouseld/carouseld-kiosk.env)"

    def run(script, *args, env=None):
        out = subprocess.run([script, *args, "--print"], capture_output=True, text=True, timeout=30,
                             env={"PATH": os.environ.get("PATH", ""), **(env or {})})
        return out.returncode, out.stderr
    for variable, value, expected in (
            ("CAROUSELD_KIOSK_ROTATE", "left", "expected 0, 90, 180, 270 or auto, got 'left'"),
            ("CAROUSELD_KIOSK_WAIT", "1m", "expected a number of seconds, got '1m'"),
            ("CAROUSELD_KIOSK_BROWSER", "firefox", "expected chromium or cog, got 'firefox'"),
            ("CAROUSELD_KIOSK_URL", "127.0.0.1:8780", "expected an http:// or https:// URL, got '127.0.0.1:8780'")):
        assert run(kiosk, env={variable: value}) == (64, f"carouseld-kiosk: {variable} {where}: {expected}\n")
    # An option given on the command line wins over the variable, and is what the error names.
    assert run(kiosk, "--rotate", "45", env={"CAROUSELD_KIOSK_ROTATE": "90"}) == \
        (64, "carouseld-kiosk: --rotate: expected 0, 90, 180, 270 or auto, got '45'\n")
    assert run(helper, "--turn", "90", env={"CAROUSELD_KIOSK_TOUCH_MATRIX": "1,0,0,0,1,0"}) == \
        (65, f"carouseld-kiosk-touch: CAROUSELD_KIOSK_TOUCH_MATRIX {where}: expected six numbers 'a b c d e f', got '1,0,0,0,1,0'\n")
    assert run(helper, "--turn", "90", "--matrix", "1 0 0") == \
        (65, "carouseld-kiosk-touch: --matrix: expected six numbers 'a b c d e f', got '1 0 0'\n")


def test_the_touch_helper_composes_the_panels_calibration_with_the_turn(tmp_path):
    """carouseld-kiosk-touch --print (no root, no udev): libinput's matrices per turn (docs/KIOSK.md
    derives them), the panel's own calibration B composed as R · B, and what it refuses."""
    helper = os.path.join(ROOT, "scripts", "carouseld-kiosk-touch")

    def helper_run(*args, env=None):
        return subprocess.run([helper, *args], capture_output=True, text=True, timeout=30,
                              env={"PATH": os.environ.get("PATH", ""), **(env or {})})
    for turn, matrix in ((0, "1 0 0 0 1 0"), (90, "0 -1 1 1 0 0"), (180, "-1 0 1 0 -1 1"), (270, "0 1 0 -1 0 1")):
        out = helper_run("--turn", str(turn), "--print")
        assert (out.returncode, out.stdout) == (0, matrix + "\n"), (turn, out.stdout, out.stderr)
    # A controller that mirrors x (B: x -> 1 - x), turned 90 (R: (x, y) -> (1 - y, x)):
    # R(B(x, y)) = (1 - y, 1 - x). A half-size controller (B: x -> 2x, y -> 2y), turned 180:
    # (1 - 2x, 1 - 2y). The panel's matrix from the environment file's variable.
    assert helper_run("--turn", "90", "--matrix", "-1 0 1 0 1 0", "--print").stdout == "0 -1 1 -1 0 1\n"
    assert helper_run("--turn", "180", "--print", env={"CAROUSELD_KIOSK_TOUCH_MATRIX": "2 0 0 0 2 0"}).stdout == "-2 0 1 0 -2 1\n"
    for args, status, words in ((["--turn", "45"], 64, "expected 0, 90, 180 or 270"),
                                (["--turn", "90", "--matrix", "1 0 0"], 65, "six numbers"),
                                (["--turn", "90", "--matrix", "1 0 0 0 1 x"], 65, "six numbers")):
        out = helper_run(*args, "--print")
        assert out.returncode == status and words in out.stderr, (args, out.returncode, out.stderr)
    # A request that is a symbolic link is not read; one that is not a turn is not echoed.
    secret = tmp_path / "secret"
    secret.write_text("90\n")
    request = tmp_path / "touch-rotation"
    request.symlink_to(secret)
    out = helper_run("--request", str(request), "--print")
    assert out.returncode == 65 and "symbolic link" in out.stderr, out.stderr
    request.unlink()
    request.write_text("rm -rf\n")
    out = helper_run("--request", str(request), "--print")
    assert out.returncode == 65 and "rm -rf" not in out.stderr and "nothing changed" in out.stderr, out.stderr
    request.write_text("270\n")
    assert helper_run("--request", str(request), "--print").stdout == "0 1 0 -1 0 1\n"
    # Where it cannot write (as a user other than root, /run/udev; here a folder no one can
    # create), it says why and how to look without writing, instead of mkdir's own line.
    out = helper_run("--turn", "90", "--rules", "/proc/carouseld-test/95-touch.rules")
    assert out.returncode == 69 and out.stderr == (
        "carouseld-kiosk-touch: cannot create /proc/carouseld-test: writing the udev rule needs root, as "
        "carouseld-kiosk-touch.service runs it (--print shows the matrix without writing)\n"), out.stderr


# A stand-in for systemd's "(sd-pam)": with PAMName= systemd forks it off the service's process
# before the exec, so it is a child of whatever the unit runs, alive until that process exits
# (PR_SET_PDEATHSIG, SIGTERM), holding none of its output.
SD_PAM_STAND_IN = (
    "import ctypes, os, signal, sys, time\n"
    "if os.fork() == 0:\n"
    "    ctypes.CDLL(None).prctl(1, signal.SIGTERM)\n"
    "    null = os.open(os.devnull, os.O_RDWR)\n"
    "    for fd in (0, 1, 2):\n"
    "        os.dup2(null, fd)\n"
    "    time.sleep(120)\n"
    "    os._exit(0)\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n")


def test_a_cage_that_cannot_start_ends_the_kiosk_with_its_status(tmp_path):
    """cage 0.1.4, failing before it starts the browser (no DRM session, no backend), waits for
    any child of its own process: run as the unit's main process it would wait for (sd-pam)
    forever and Restart= would never fire. carouseld-kiosk must end with cage's status instead."""
    env = dict(os.environ, WLR_BACKENDS="none-such", XDG_RUNTIME_DIR=str(tmp_path),
               CAROUSELD_KIOSK_TOUCH="off", CAROUSELD_KIOSK_WAIT="0")
    os.chmod(tmp_path, 0o700)
    if os.getuid() == 0:
        os.chown(tmp_path, NOBODY, NOBODY)
    started = time.monotonic()
    try:
        p = subprocess.run(as_kiosk_user([sys.executable, "-c", SD_PAM_STAND_IN,
                                          os.path.join(ROOT, "scripts", "carouseld-kiosk")]),
                           env=env, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("carouseld-kiosk still runs 30 s after cage failed (cage waits for the (sd-pam) stand-in)")
    assert p.returncode == 1, (p.returncode, p.stderr[-600:])
    assert "Unable to create the wlroots backend" in p.stderr
    # The script's own line after cage's: the status and how long cage ran, for the journal.
    assert re.search(r"carouseld-kiosk: cage exited with status 1 after \d+ s \(its reason is in the lines above", p.stderr), p.stderr[-600:]
    assert time.monotonic() - started < 30


def _in_compositor(tmp_path, browser_body, load_timeout):
    """carouseld-kiosk --in-compositor (what cage runs) with a stand-in `chromium` on PATH, on a
    page served on a loopback port; (process, port, file the stand-in writes its PID to)."""
    import http.server
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pid_file = tmp_path / "browser.pid"
    (bin_dir / "chromium").write_text(f"#!/bin/sh\necho $$ > {pid_file}\n{browser_body}\n")
    (bin_dir / "chromium").chmod(0o755)
    kiosk = os.path.join(ROOT, "scripts", "carouseld-kiosk")
    proc = subprocess.Popen([kiosk, "--in-compositor", "--url", f"http://127.0.0.1:{port}/", "--wait", "5",
                             "--load-timeout", str(load_timeout), "--profile", str(tmp_path / "profile")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "HOME": str(tmp_path)})
    proc.server = server
    return proc, port, pid_file


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return open(f"/proc/{pid}/stat").read().split()[2] == "Z"


def test_a_browser_that_never_loads_the_page_is_ended_after_the_load_timeout(tmp_path):
    """A first boot's Chromium whose network service crashed as the first navigation began held
    no connection to the page and showed white for good; with --load-timeout the browser is
    ended (status 75, a line naming the page and port) so that cage exits and the unit starts
    both again."""
    proc, port, pid_file = _in_compositor(tmp_path, "exec sleep 300", 2)
    try:
        t = time.monotonic()
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - t
    finally:
        proc.kill()
        proc.server.shutdown()
    assert proc.returncode == 75, (proc.returncode, err)
    assert f"the page http://127.0.0.1:{port}/ was not loaded 2 s after the browser started (no connection to port {port})" in err, err
    assert 2 <= took < 10, took
    pid = int(pid_file.read_text())
    wait_for(lambda: _gone(pid), 5, "the stand-in browser to end with the kiosk script")


def test_a_browser_holding_the_page_is_left_running_and_stops_on_sigterm(tmp_path):
    """The page keeps a WebSocket to its port: a browser holding a connection there is left
    alone past --load-timeout, and SIGTERM ends it and the script (143)."""
    body = ('exec python3 -c "import socket, sys, time; s = socket.create_connection((\'127.0.0.1\', '
            'int(sys.argv[-1].split(\':\')[2].strip(\'/\')))); time.sleep(300)" "$@"')
    proc, port, pid_file = _in_compositor(tmp_path, body, 1)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=3)            # three times the load timeout: still running
        wait_for(lambda: pid_file.exists(), 5, "the stand-in browser to start")
        pid = int(pid_file.read_text())
        assert not _gone(pid)
        proc.terminate()
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.server.shutdown()
    assert proc.returncode == 143, (proc.returncode, proc.stderr.read())
    wait_for(lambda: _gone(pid), 5, "the browser to end with the kiosk script's SIGTERM")


def stop_kiosk_with_stand_in_browser(browser_body):
    """carouseld-kiosk (the checkout's script, --rotate 0 as installed) in cage on the headless
    backend, with a stand-in `chromium` (shell, `browser_body`) first in PATH; once cage has
    started it, SIGTERM to the script alone, as carouseld-kiosk.service's KillMode=mixed stops
    it. (returncode, seconds from the SIGTERM to its end, its output, what was left in its
    session)."""
    import pathlib
    # Not pytest's tmp_path: its parent is root's alone, and the kiosk runs as nobody.
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="carouseld-kiosk-stop-"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "chromium").write_text("#!/bin/sh\n" + browser_body + "\n")
    (bin_dir / "chromium").chmod(0o755)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    for p in (tmp_path, bin_dir):
        p.chmod(0o755)
    if os.getuid() == 0:
        os.chown(runtime, NOBODY, NOBODY)
        os.chown(tmp_path, NOBODY, NOBODY)
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(runtime),
           "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_HEADLESS_OUTPUTS": "1",
           "CAROUSELD_KIOSK_TOUCH": "off", "CAROUSELD_KIOSK_WAIT": "0", "CAROUSELD_KIOSK_PROFILE": str(tmp_path / "profile")}
    log = tmp_path / "kiosk.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(as_kiosk_user([os.path.join(ROOT, "scripts", "carouseld-kiosk")]), env=env,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        try:
            wait_for(lambda: any(p.endswith(" sleep") for p in session_processes(process.pid)), 20,
                     "cage to start the stand-in browser", interval=0.05)
        except AssertionError as e:
            raise AssertionError(f"{e}: {log.read_text()[-1500:]}") from None
        started = time.monotonic()
        os.kill(process.pid, 15)
        try:
            status = process.wait(20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"carouseld-kiosk still runs 20 s after SIGTERM: {log.read_text()[-1500:]}")
        took = time.monotonic() - started
        # cage's children go after it (a killed cage leaves them to init at once).
        left = []
        try:
            wait_for(lambda: not left.__setitem__(slice(None), session_processes(process.pid)) and not left, 2,
                     "the kiosk's session to empty", interval=0.05)
        except AssertionError:
            pass
        return status, took, log.read_text(), left
    finally:
        try:
            os.killpg(process.pid, 9)
        except ProcessLookupError:
            pass
        shutil.rmtree(tmp_path, ignore_errors=True)


def test_a_stop_ends_the_browser_so_that_cage_exits_cleanly():
    """Debian 12's cage 0.1.4 aborts on SIGTERM (an assertion in libwayland's
    wl_display_terminate, status 134) and leaves its client running, so a stop that signals cage
    leaves carouseld-kiosk.service "failed". The script, told to stop, ends the browser; cage
    exits by itself, and the script ends by the SIGTERM (a clean stop to systemd), at once."""
    status, took, log, left = stop_kiosk_with_stand_in_browser("exec sleep 300")
    assert "Assertion" not in log and "wl_display_terminate" not in log, log[-1500:]
    assert status in (-15, 143), (status, log[-1500:])
    assert left == [], (left, log[-1500:])
    assert took < 3, (took, log[-1500:])


def test_a_browser_that_ignores_sigterm_is_killed_after_5_s():
    """The bound on a stop: a browser that does not end on SIGTERM (here one that ignores it) is
    killed after 5 s, the log says so, cage exits by itself and nothing of the kiosk is left."""
    status, took, log, left = stop_kiosk_with_stand_in_browser("trap '' TERM\nexec sleep 300")
    # cage's client is the script's --in-compositor part (the page's load timeout is on by
    # default), which kills the browser it started; were it stuck, the script would kill cage
    # and all below it after 7 s.
    assert "the browser did not exit within 5 s of SIGTERM; killing it" in log, log[-1500:]
    assert "Assertion" not in log, log[-1500:]
    assert status in (-15, 143), (status, log[-1500:])
    assert left == [], (left, log[-1500:])
    assert 4.5 < took < 8, (took, log[-1500:])
