"""scripts/demo, the README's quick start: it starts the daemon and the bridge, the URL it
prints serves the page and the daemon answers on the socket it prints, and Ctrl-C (SIGINT to
its process group, as a terminal sends it) stops both and removes its private folder."""

import os
import re
import signal
import socket
import subprocess
import urllib.request

from conftest import ROOT, free_port, wait_for


def test_help_is_the_usage_block_only():
    out = subprocess.run([os.path.join(ROOT, "scripts", "demo"), "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("The carousel on screen in one command"), out.stdout
    assert out.stdout.rstrip("\n").endswith("--no-build      use the carouseld already built (swift build --show-bin-path)"), out.stdout
    bad = subprocess.run([os.path.join(ROOT, "scripts", "demo"), "--bogus"], capture_output=True, text=True, timeout=30)
    assert (bad.returncode, bad.stderr) == (64, "scripts/demo: unknown argument '--bogus' (see --help)\n")


def test_the_demo_serves_the_page_and_ctrl_c_stops_everything(workdir):
    port = free_port()
    log_path = os.path.join(workdir, "demo.log")
    with open(log_path, "w") as log:
        demo = subprocess.Popen([os.path.join(ROOT, "scripts", "demo"), "--no-build", "--port", str(port)],
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        text = wait_for(lambda: "Ctrl-C stops" in open(log_path).read() and open(log_path).read(), 30, "the demo's URL")
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
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()


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
