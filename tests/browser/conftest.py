"""Fixtures for the browser tests: a real carouseld (built by tests/browser/run), the real bridge
(scripts/carouseld-web: python3-websockets) on loopback with an ephemeral port, and Debian's
Chromium driven headless through chromedriver (python3-selenium). Nothing here is mocked except
`scripted_bridge`: the bridge in front of a scripted NDJSON server, for the two cases a real
daemon never produces (garbage lines, another proto_major)."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("CAROUSELD_BIN_DIR", os.path.join(ROOT, ".build", "debug"))
HERE = os.path.dirname(os.path.abspath(__file__))


def fail_setup(message):
    pytest.fail(message, pytrace=False)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(process, port, name, log_path):
    """Whether 127.0.0.1:port accepts a connection; fails the setup when `process` (which
    should listen there) has exited, with the end of its log."""
    if process.poll() is not None:
        fail_setup(f"{name} exited with {process.returncode}: {open(log_path).read()[-3000:]}")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def unreachable_by_others(path, executable=False):
    """Why another user (uid 65534) cannot reach `path`: the first folder on the way that others
    may not enter (no o+x), or `path` itself when `executable` and others may not run it; None
    when they can (or `path` is missing: the caller's own error says so)."""
    folder = "/"
    for part in os.path.abspath(path).strip("/").split("/")[:-1]:
        folder = os.path.join(folder, part)
        try:
            mode = os.stat(folder).st_mode
        except OSError:
            return None
        if not mode & 0o001:
            return f"{folder} is mode {mode & 0o7777:o}, which other users may not enter"
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if executable and not mode & 0o001:
        return f"{path} is mode {mode & 0o7777:o}, which other users may not run"
    return None


def require_reachable_by_others(path, purpose, executable=False):
    """Fails, saying why, when uid 65534 cannot reach `path` (as needs_root says a test needs
    root): `purpose` completes "it ...", e.g. "runs the bridge as uid 65534"."""
    why = unreachable_by_others(path, executable)
    if why:
        raise AssertionError(f"this test needs {path} reachable by other users: it {purpose}, and {why} (a "
                             "checkout under a 0700 folder, as mktemp -d makes; run the tests from a checkout "
                             "whose folders are searchable by others, or chmod o+x that folder)")


def wait_for(predicate, timeout, what, interval=0.02):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


@pytest.fixture(scope="session")
def workdir():
    base = os.environ.get("BROWSER_TEST_OUTPUT") or tempfile.mkdtemp(prefix="carouseld-browser-")
    os.makedirs(base, exist_ok=True)
    os.chmod(base, 0o755)  # the control-rights test runs a bridge as uid 65534
    return base


@pytest.fixture(scope="session")
def screenshot_dir(workdir):
    d = os.path.join(workdir, "screenshots")
    os.makedirs(d, exist_ok=True)
    print(f"\nbrowser tests: screenshots in {d}", file=sys.stderr)
    return d


class Daemon:
    """A carouseld on its own socket, with a configuration written for the test."""

    def __init__(self, workdir, name, config):
        self.dir = tempfile.mkdtemp(prefix=f"{name}-", dir=workdir)
        os.chmod(self.dir, 0o755)  # a bridge run as another user reaches the socket (socket_mode decides)
        self.socket = os.path.join(self.dir, "carouseld.sock")
        self.config_path = os.path.join(self.dir, "carouseld.conf")
        sections = {
            "sensor": {"source": "iio", "device": "carouseld-browser-test-no-such-sensor"},
            "tilt": {"enabled": "no"},
            "carousel": {"count": "10"},
            "server": {"socket": self.socket, "socket_mode": "0600"},
            "calibration": {"file": os.path.join(self.dir, "no-calibration.conf")},
        }
        for section, keys in config.items():
            sections.setdefault(section, {}).update(keys)
        with open(self.config_path, "w") as f:
            for section, keys in sections.items():
                f.write(f"[{section}]\n")
                for k, v in keys.items():
                    f.write(f"{k} = {v}\n")
        self.log_path = os.path.join(self.dir, "carouseld.log")
        self.process = None
        self.start()

    def start(self):
        exe = os.path.join(BIN, "carouseld")
        if not os.access(exe, os.X_OK):
            fail_setup(f"{exe} is not built: run tests/browser/run (it builds carouseld and carouselctl)")
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen([exe, "--config", self.config_path, "--foreground"],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(lambda: os.path.exists(self.socket) or self.process.poll() is not None, 10, "carouseld's socket")
        if self.process.poll() is not None:
            fail_setup(f"carouseld exited with {self.process.returncode}: {open(self.log_path).read()}")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        self.log.close()

    def client(self):
        return SocketClient(self.socket)


class SocketClient:
    """An NDJSON client of the daemon's Unix socket (the test's own view of the truth)."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.settimeout(10)
        self.buffer = b""
        self.version = self.read()

    def send(self, obj):
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def read(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("carouseld closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def read_class(self, cls):
        while True:
            m = self.read()
            if m.get("class") == cls:
                return m

    def request(self, obj):
        """Sends a control request and returns its ACK (or raises on ERROR)."""
        self.send(obj)
        while True:
            m = self.read()
            if m.get("class") == "ACK":
                return m
            if m.get("class") == "ERROR":
                raise AssertionError(f"carouseld refused {obj}: {m}")

    def close(self):
        self.sock.close()


class Bridge:
    """scripts/carouseld-web on 127.0.0.1 with an ephemeral port, in front of `socket_path`."""

    def __init__(self, workdir, socket_path, extra=(), as_uid=None, loglevel="error"):
        self.port = free_port()
        self.log_path = os.path.join(workdir, f"bridge-{self.port}.log")
        self.log = open(self.log_path, "ab")
        argv = [os.path.join(ROOT, "scripts", "carouseld-web"), "--socket", socket_path,
                "--port", str(self.port), "--address", "127.0.0.1", "--loglevel", loglevel, *extra]
        if as_uid is not None:
            # The bridge as its own user, as carouseld-web.service runs it (needs root).
            for path in (argv[0], os.path.join(ROOT, "web", "index.html")):
                require_reachable_by_others(path, f"runs the bridge as uid {as_uid}", executable=path == argv[0])
            argv = ["setpriv", f"--reuid={as_uid}", f"--regid={as_uid}", "--clear-groups", *argv]
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        wait_for(self._listening, 10, f"the bridge on port {self.port}")
        self.url = f"http://127.0.0.1:{self.port}/"

    def _listening(self):
        return listening(self.process, self.port, "the bridge", self.log_path)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def carousel(workdir):
    """carousel(config) → (daemon, bridge), both stopped after the test."""
    started = []

    def make(config=None, name="carousel", bridge_uid=None, bridge_args=()):
        daemon = Daemon(workdir, name, config or {})
        started.append(daemon)
        bridge = Bridge(workdir, socket_path=daemon.socket, as_uid=bridge_uid, extra=bridge_args)
        started.append(bridge)
        return daemon, bridge

    yield make
    for thing in reversed(started):
        thing.stop()


class ScriptedServer:
    """tests/browser/scripted_server.py on its own Unix socket, in place of carouseld."""

    def __init__(self, workdir, lines):
        self.dir = tempfile.mkdtemp(prefix="scripted-", dir=workdir)
        os.chmod(self.dir, 0o755)
        script = os.path.join(self.dir, "script.ndjson")
        with open(script, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        self.received = script + ".received"
        self.socket = os.path.join(self.dir, "scripted.sock")
        self.process = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "scripted_server.py"),
                                         self.socket, script, self.received])
        wait_for(lambda: os.path.exists(self.socket) or self.process.poll() is not None, 10, "the scripted server")

    def stop(self):
        self.process.kill()
        self.process.wait()


@pytest.fixture
def scripted_bridge(workdir):
    """scripted_bridge(script_lines) → the bridge in front of tests/browser/scripted_server.py."""
    started = []

    def make(lines):
        server = ScriptedServer(workdir, lines)
        started.append(server)
        bridge = Bridge(workdir, socket_path=server.socket)
        started.append(bridge)
        bridge.received = server.received
        return bridge

    yield make
    for thing in reversed(started):
        thing.stop()


@pytest.fixture(scope="session")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        fail_setup("chromium and chromedriver are needed (apt-get install chromium chromium-driver; scripts/bootstrap does it)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1000,700", "--force-device-scale-factor=1", "--hide-scrollbars",
              "--disable-background-timer-throttling", "--disable-renderer-backgrounding"]:
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_script_timeout(20)
    yield driver
    driver.quit()


class Page:
    """The reference page open in the browser, with helpers that read the DOM contract."""

    def __init__(self, driver, url):
        self.driver = driver
        self.url = url
        driver.get(url)
        driver.get_log("browser")  # start each page with an empty console log

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, script, timeout=10, what=None, *args):
        return wait_for(lambda: self.js(script, *args), timeout, what or script)

    def state(self):
        return self.js("return window.carousel && window.carousel.client.state")

    def layout(self):
        return self.js("return window.carousel && window.carousel.client.layout")

    def sent(self):
        return self.js("return window.carousel.sent.map(s => ({t: s.t, request: s.request}))")

    def status_text(self):
        return self.js("return document.querySelector('[data-carousel-status]').textContent")

    def wait_settled_geometry(self, timeout=10):
        """Until the daemon's LAYOUT is the geometry this page last sent (the page settled)."""
        return self.wait("""
            const c = window.carousel && window.carousel.client;
            if (!c || !c.layout || !c.state) return false;
            const g = window.carousel.sent.filter(s => s.request.cmd === 'set_geometry').pop();
            if (!g) return false;
            const r = g.request, l = c.layout;
            return r.viewport.width === l.viewport.width && r.viewport.height === l.viewport.height
                && r.item.width === l.item.width && r.item.height === l.item.height && r.spacing === l.spacing;
        """, timeout, "the page's set_geometry in the daemon's LAYOUT")

    def cards(self):
        """Every shown card element: index, instance, rect relative to [data-carousel], computed
        transform, transform-origin, opacity, z-index."""
        return self.js("""
            const root = document.querySelector('[data-carousel]');
            const r0 = root.getBoundingClientRect();
            return [...root.querySelectorAll('[data-index]')].filter(e => !e.hidden).map(e => {
                const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
                return {index: +e.dataset.index, instance: +e.dataset.instance,
                        rect: [r.left - r0.left, r.top - r0.top, r.width, r.height],
                        box: [e.offsetLeft, e.offsetTop, e.offsetWidth, e.offsetHeight],
                        transform: cs.transform, origin: cs.transformOrigin,
                        opacity: +cs.opacity, z: cs.zIndex};
            });
        """)

    def console_errors(self):
        return [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]


@pytest.fixture
def open_page(browser):
    def make(url):
        return Page(browser, url)
    return make
