"""The bridge's systemd unit and sysusers entry: systemd-analyze accepts them, the unit is
hardened at least as well as carouseld.service, and `make install` puts the bridge in place."""

import os
import re
import subprocess
import tempfile

from conftest import ROOT


def patched_copy(unit, exec_start, directory):
    text = open(os.path.join(ROOT, "systemd", unit)).read()
    text = re.sub(r"(?m)^ExecStart=.*$", f"ExecStart={exec_start}", text)
    path = os.path.join(directory, unit)
    with open(path, "w") as f:
        f.write(text)
    return path


def exposure(path):
    out = subprocess.run(["systemd-analyze", "security", "--offline=yes", path], capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", out.stdout)
    assert m, f"systemd-analyze security {path}: {out.stdout[-500:]} {out.stderr}"
    return float(m.group(1))


def test_unit_verifies_and_is_hardened_at_least_as_well_as_the_daemon():
    with tempfile.TemporaryDirectory() as d:
        web = patched_copy("carouseld-web.service", os.path.join(ROOT, "scripts", "carouseld-web"), d)
        daemon = patched_copy("carouseld.service", "/bin/true", d)
        # --man=no: Documentation=man:carouseld-web(1) is generated (make man), not installed here.
        out = subprocess.run(["systemd-analyze", "verify", "--man=no", web], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and out.stderr == "" and out.stdout == "", out.stderr
        web_score, daemon_score = exposure(web), exposure(daemon)
        print(f"systemd-analyze security: carouseld-web.service {web_score}, carouseld.service {daemon_score}")
        assert web_score <= daemon_score
    text = open(os.path.join(ROOT, "systemd", "carouseld-web.service")).read()
    # The memory limit (issue 30): the bridge's worst case is about 200 MB (docs/WEB.md, "Bounds").
    for line in ("User=carouseld-web", "SupplementaryGroups=carouseld carouseld-control",
                 "After=carouseld.socket", "IPAddressDeny=any", "IPAddressAllow=localhost",
                 "\nMemoryMax=256M\n", "\nMemorySwapMax=0\n", "\nRestart=on-failure\n"):
        assert line in text, line


def test_sysusers_create_the_control_group_with_the_bridge_in_it():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "etc"))
        conf = [os.path.join(ROOT, "systemd", "sysusers.d", f) for f in ("carouseld.conf", "carouseld-web.conf")]
        out = subprocess.run(["systemd-sysusers", f"--root={root}", *conf], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        groups = {l.split(":")[0]: l.strip().split(":")[3].split(",") for l in open(os.path.join(root, "etc", "group"))}
        assert "carouseld-web" in groups["carouseld-control"] and "carouseld-web" in groups["carouseld"]
    conf = open(os.path.join(ROOT, "configs", "carouseld.conf")).read()
    assert ";control_group = carouseld-control" in conf


def test_make_install_puts_the_bridge_the_page_and_the_unit_in_place():
    with tempfile.TemporaryDirectory() as dest:
        out = subprocess.run(["make", "-s", "install-web", f"DESTDIR={dest}", "PREFIX=/usr", "SYSCONFDIR=/etc"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        for path in ("usr/bin/carouseld-web", "usr/share/carouseld/web/index.html",
                     "usr/share/carouseld/web/carousel-client.js", "usr/lib/systemd/system/carouseld-web.service",
                     "usr/lib/sysusers.d/carouseld-web.conf", "etc/carouseld/carouseld-web.env"):
            assert os.path.exists(os.path.join(dest, path)), path
        unit = open(os.path.join(dest, "usr/lib/systemd/system/carouseld-web.service")).read()
        assert "ExecStart=/usr/bin/carouseld-web" in unit
        # The environment file only holds comments (the defaults), and each names a real option.
        env = open(os.path.join(dest, "etc/carouseld/carouseld-web.env")).read()
        names = re.findall(r"(?m)^#(CAROUSELD_WEB_[A-Z]+)=", env)
        script = open(os.path.join(ROOT, "scripts", "carouseld-web")).read()
        assert names and all(n in script for n in names) and not re.search(r"(?m)^CAROUSELD", env)
        # The installed script finds the installed page (bin/../share/carouseld/web).
        out = subprocess.run([os.path.join(dest, "usr/bin/carouseld-web"), "--print"], capture_output=True, text=True, timeout=10)
        assert out.returncode == 0 and f"roots=[('/', '{dest}/usr/share/carouseld/web')]" in out.stdout, out.stdout + out.stderr
        out = subprocess.run([os.path.join(dest, "usr/bin/carouseld-web"), "--version"], capture_output=True, text=True, timeout=10)
        assert out.stdout == "carouseld-web 0.1.0\n" or out.stdout.startswith("carouseld-web 0."), out.stdout + out.stderr


def syscall_groups():
    """`systemd-analyze syscall-filter` groups → their system calls, nested groups expanded."""
    out = subprocess.run(["systemd-analyze", "syscall-filter", "--no-pager"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    groups, current = {}, None
    for line in out.stdout.splitlines():
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        if not line.startswith(" ") and item.startswith("@"):
            current = groups.setdefault(item, [])
        elif current is not None:
            current.append(item)

    def expand(group):
        calls = set()
        for item in groups.get(group, []):
            calls |= expand(item) if item.startswith("@") else {item}
        return calls
    return expand


def test_the_bridge_stays_inside_the_units_system_call_filter(carousel):
    """The bridge under strace while it serves files, relays a WebSocket, refuses a request and
    closes a flood: every system call it makes is one carouseld-web.service's filter allows."""
    import asyncio
    import shutil
    import urllib.request

    import websockets

    from conftest import free_port, wait_for
    from floods import flood
    if not shutil.which("strace"):
        raise AssertionError("strace is needed (scripts/bootstrap installs it)")
    unit = open(os.path.join(ROOT, "systemd", "carouseld-web.service")).read()
    filters = re.findall(r"(?m)^SystemCallFilter=(.*)$", unit)
    assert filters == ["@system-service", "~@privileged @resources"], filters
    expand = syscall_groups()
    allowed = expand("@system-service") - expand("@privileged") - expand("@resources")
    daemon, _ = carousel(name="syscalls")
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "trace")
        port = str(free_port())
        bridge = subprocess.Popen(["strace", "-f", "-qq", "-o", trace, os.path.join(ROOT, "scripts", "carouseld-web"),
                                   "--socket", daemon.socket, "--port", port, "--loglevel", "debug"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"ws://127.0.0.1:{port}/"
            wait_for(lambda: os.path.exists(trace) and "listen(" in open(trace).read(), 20, "the bridge")
            assert urllib.request.urlopen(f"http://127.0.0.1:{port}/app.js", timeout=5).status == 200

            async def session():
                async with websockets.connect(url, origin=f"http://127.0.0.1:{port}") as ws:
                    await ws.recv()
                    for request in ('{"cmd":"watch","items":true}', '{"cmd":"reload"}'):
                        await ws.send(request)
                    await ws.recv()
                    await ws.recv()
            asyncio.run(session())
            assert asyncio.run(flood(url, "frame", 100000, origin=f"http://127.0.0.1:{port}")) == 1009
        finally:
            # The traced bridge (the trace's first pid) stops on SIGTERM; strace then exits.
            with open(trace) as f:
                os.kill(int(f.readline().split()[0]), 15)
            bridge.wait(10)
        calls = set(re.findall(r"(?m)^\d+\s+(?:<\.\.\. )?([a-z_0-9]+)[( ]", open(trace).read()))
    outside = sorted(c for c in calls if c not in allowed and c not in ("exit", "exit_group", "execve"))
    assert calls and not outside, f"system calls outside the unit's filter: {outside}"
