"""scripts/demo, the README's quick start: it starts the daemon and the bridge, the URL it
prints serves the page and the daemon answers on the socket it prints, and Ctrl-C (SIGINT to
its process group, as a terminal sends it) stops both and removes its private folder."""

import os
import re
import signal
import socket
import subprocess
import urllib.request
from contextlib import contextmanager

from conftest import ROOT, free_port, wait_for


@contextmanager
def running_demo(workdir):
    """scripts/demo --no-build on a free port, in its own process group, once it has printed
    its URL: (process, port, log path, what it printed). Killed with its group on the way out
    if still running."""
    port = free_port()
    log_path = os.path.join(workdir, "demo.log")
    with open(log_path, "w") as log:
        demo = subprocess.Popen([os.path.join(ROOT, "scripts", "demo"), "--no-build", "--port", str(port)],
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        text = wait_for(lambda: "Ctrl-C stops" in open(log_path).read() and open(log_path).read(), 30, "the demo's URL")
        yield demo, port, log_path, text
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()


def test_help_is_the_usage_block_only():
    out = subprocess.run([os.path.join(ROOT, "scripts", "demo"), "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("The carousel on screen in one command"), out.stdout
    assert out.stdout.rstrip("\n").endswith("--no-build      use the carouseld already built (swift build --show-bin-path)"), out.stdout
    bad = subprocess.run([os.path.join(ROOT, "scripts", "demo"), "--bogus"], capture_output=True, text=True, timeout=30)
    assert (bad.returncode, bad.stderr) == (64, "scripts/demo: unknown argument '--bogus' (see --help)\n")


def test_a_port_the_url_cannot_name_is_a_usage_error():
    """The printed URL names the port and the bridge checks each request's Host against it, so
    0 (a port the bridge would pick) was printed as ':0/' and the page then answered 421; a
    missing or non-numeric value ended with bash's own message or blamed a port in use."""
    demo = os.path.join(ROOT, "scripts", "demo")
    for args, said in [(["--port", "0"], "--port expects a port number 1-65535, got '0'"),
                       (["--port", "abc"], "--port expects a port number 1-65535, got 'abc'"),
                       (["--port", "65536"], "--port expects a port number 1-65535, got '65536'"),
                       (["--port"], "--port needs a value (see --help)"),
                       (["--address"], "--address needs a value (see --help)")]:
        out = subprocess.run([demo, "--no-build"] + args, capture_output=True, text=True, timeout=30)
        assert (out.returncode, out.stderr) == (64, f"scripts/demo: {said}\n"), args


def test_the_demo_serves_the_page_and_ctrl_c_stops_everything(workdir):
    with running_demo(workdir) as (demo, port, log_path, text):
        assert f"The carousel is at   http://127.0.0.1:{port}/" in text, text
        socket_path = re.search(r"carouselctl watch --socket (\S+)", text).group(1)
        folder = os.path.dirname(socket_path)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert page.status == 200 and b"data-carousel" in page.read()
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(socket_path)
            assert s.makefile().readline().startswith('{"class":"VERSION"')
        os.killpg(demo.pid, signal.SIGINT)
        # 130: interrupted by SIGINT, as a shell reports it, after its cleanup ran.
        assert demo.wait(timeout=20) == 130
        assert open(log_path).read().rstrip().endswith("demo: stopped"), open(log_path).read()[-500:]
        assert not os.path.exists(folder), f"{folder} left behind"


def test_a_daemon_that_dies_stops_the_demo_and_says_so(workdir):
    """With the daemon gone the page can only say so; the demo stops the bridge and names the
    daemon's exit instead of serving a page with nothing behind it."""
    with running_demo(workdir) as (demo, port, log_path, text):
        folder = os.path.dirname(re.search(r"carouselctl watch --socket (\S+)", text).group(1))
        daemon = subprocess.run(["pgrep", "-P", str(demo.pid), "-x", "carouseld"], capture_output=True, text=True)
        os.kill(int(daemon.stdout.split()[0]), signal.SIGKILL)
        assert demo.wait(timeout=20) == 69
        text = open(log_path).read()
        assert "scripts/demo: carouseld exited (status 137; its lines are above); stopping the bridge" in text, text[-600:]
        assert text.rstrip().endswith("demo: stopped"), text[-500:]
        assert not os.path.exists(folder), f"{folder} left behind"
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0, "the bridge still listens"


def test_bootstrap_lists_what_ci_installs_and_installs_nothing_when_asked_for_help():
    """scripts/bootstrap (the quick start's first half) and .ci/run name the same packages (the
    developers' rule: a package a build or test needs goes in both); --help and --list install
    nothing, and an unknown argument is 64 before apt-get."""
    bootstrap = os.path.join(ROOT, "scripts", "bootstrap")
    listed = subprocess.run([bootstrap, "--list"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert all(line.split()[1] in ("installed", "missing") for line in listed.stdout.splitlines()), listed.stdout
    ci = open(os.path.join(ROOT, ".ci", "run")).read()
    install = re.search(r"apt-get install -y --no-install-recommends((?:.|\\\n)*?)\n(?!\s)", ci).group(1)
    ci_names = install.replace("\\\n", " ").split()
    assert sorted(names) == sorted(ci_names), (sorted(set(names) - set(ci_names)), sorted(set(ci_names) - set(names)))
    help_text = subprocess.run([bootstrap, "--help"], capture_output=True, text=True, timeout=30)
    assert help_text.returncode == 0 and help_text.stdout.startswith("Installs the Debian packages"), help_text
    bad = subprocess.run([bootstrap, "--bogus"], capture_output=True, text=True, timeout=30)
    assert (bad.returncode, bad.stderr) == (64, "scripts/bootstrap: unknown argument '--bogus' (see --help)\n")
