"""carouseld-kiosk-touch.path and .service under a real systemd (a `systemd --user` instance of
root, in a mount namespace of its own): the kiosk's turn requests start the real helper through
the project's own units, however often they come (docs/KIOSK.md, "Touch under rotation").

The units are the repository's, with only the paths moved into the test's runtime folder (the
request, the rule, the applied turn, the helper), the helper's output in the manager's log (no
journald), without ProtectControlGroups= (see install_units) and udevadm replaced by a stand-in
that succeeds: there is no udevd on a build machine. udev's part (the rule reaching libinput) is
tested in the kernel guest (tests/kernel: kiosk_touch_follows_each_turn, kiosk_touch_in_cage)."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "browser"))

from conftest import ROOT, wait_for  # noqa: E402

SYSTEMD = "/lib/systemd/systemd"
MATRICES = {"0": "1 0 0 0 1 0", "90": "0 -1 1 1 0 0", "180": "-1 0 1 0 -1 1", "270": "0 1 0 -1 0 1"}


class UserManager:
    """A `systemd --user` of root with its own XDG folders under /run (the service has
    PrivateTmp=, so nothing it reads may be in /tmp). systemd refuses a user instance on a
    machine not booted with systemd (no /run/systemd/system): a mount namespace of its own gets
    a tmpfs on /run/systemd with that folder, and nothing else of the machine changes."""

    def __init__(self):
        self.runtime = tempfile.mkdtemp(prefix="carouseld-touch-units-", dir="/run")
        self.units = os.path.join(self.runtime, "config", "systemd", "user")
        os.makedirs(self.units)
        self.env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": self.runtime, "XDG_RUNTIME_DIR": self.runtime,
                    "XDG_CONFIG_HOME": os.path.join(self.runtime, "config"),
                    "XDG_DATA_HOME": os.path.join(self.runtime, "data"), "SYSTEMD_LOG_LEVEL": "info",
                    "SYSTEMD_LOG_TARGET": "console"}
        self.log_path = os.path.join(self.runtime, "manager.log")
        self.process = None

    def start(self):
        # The inaccessible nodes are what a booted PID 1 leaves in /run/systemd for ProtectHome=
        # and ProtectKernelLogs= to mount over /home and /dev/kmsg.
        i = "/run/systemd/inaccessible"
        script = ("mount -t tmpfs -o mode=0755 tmpfs /run/systemd && mkdir /run/systemd/system && "
                  f"mkdir -p {i} && mkdir -m 0 {i}/dir && install -m 0 /dev/null {i}/reg && mkfifo -m 0 {i}/fifo && "
                  f"mknod -m 0 {i}/chr c 0 0 && mknod -m 0 {i}/blk b 0 0 && exec {SYSTEMD} --user")
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                                            env=self.env, stdout=log, stderr=subprocess.STDOUT)

        def up():
            if self.process.poll() is not None:
                raise AssertionError(f"systemd --user exited with {self.process.returncode}: {open(self.log_path).read()}")
            state = self.systemctl("is-system-running", check=False).stdout.strip()
            return state in ("running", "degraded")
        wait_for(up, 30, "systemd --user running", interval=0.1)

    def systemctl(self, *args, check=True):
        # In the manager's namespace: outside it systemctl sees an unbooted machine ("offline").
        out = subprocess.run(["nsenter", "-t", str(self.process.pid), "-m", "systemctl", "--user", "--no-pager", *args], env=self.env,
                             capture_output=True, text=True, timeout=30)
        if check:
            assert out.returncode == 0, f"systemctl --user {' '.join(args)}: {out.stderr}"
        return out

    def show(self, unit, prop):
        return self.systemctl("show", "-P", prop, unit).stdout.strip()

    def journal(self):
        """The manager's log and the helper's messages (the last 4,000 characters)."""
        return open(self.log_path, errors="replace").read()[-4000:]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # a user manager exits on SIGTERM
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.runtime, ignore_errors=True)


@pytest.fixture
def manager():
    if os.getuid() != 0:
        pytest.fail("needs root: a systemd --user instance in a mount namespace of its own (unshare --mount, a tmpfs "
                    "on /run/systemd); run tests/kiosk/run as root, as CI does")
    for tool in ("unshare", "nsenter", "systemctl", SYSTEMD):
        if not shutil.which(tool):
            pytest.fail(f"{tool} is missing (packages systemd and util-linux; scripts/bootstrap installs them)")
    m = UserManager()
    try:
        yield m
    finally:
        m.stop()


def install_units(m):
    """The repository's units with the test's paths: the request in carouseld-kiosk/ (the kiosk's
    RuntimeDirectory), the rule and the applied turn in the service's own RuntimeDirectory."""
    r = m.runtime
    libexec, bin_dir, udev = (os.path.join(r, d) for d in ("libexec", "bin", "udev"))
    for d in (libexec, bin_dir, udev, os.path.join(r, "carouseld-kiosk")):
        os.makedirs(d)
    helper = os.path.join(libexec, "carouseld-kiosk-touch")
    shutil.copy(os.path.join(ROOT, "scripts", "carouseld-kiosk-touch"), helper)  # ProtectHome= hides a checkout in /root
    with open(os.path.join(bin_dir, "udevadm"), "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(os.path.join(bin_dir, "udevadm"), 0o755)
    request = os.path.join(r, "carouseld-kiosk", "touch-rotation")
    rules = os.path.join(r, "carouseld-kiosk-touch", "95-carouseld-kiosk-touch.rules")
    applied = os.path.join(r, "carouseld-kiosk-touch", "applied")

    path_unit = open(os.path.join(ROOT, "systemd", "carouseld-kiosk-touch.path")).read()
    assert "PathChanged=/run/carouseld-kiosk/touch-rotation\n" in path_unit
    path_unit = path_unit.replace("PathChanged=/run/carouseld-kiosk/touch-rotation", f"PathChanged={request}")
    service = open(os.path.join(ROOT, "systemd", "carouseld-kiosk-touch.service")).read()
    for old, new in (("ExecStart=/usr/local/libexec/carouseld-kiosk-touch",
                      f"Environment=PATH={bin_dir}:/usr/sbin:/usr/bin:/sbin:/bin\n"
                      # No journald here: the helper's messages go to the manager's log.
                      f"StandardOutput=append:{m.log_path}\nStandardError=append:{m.log_path}\n"
                      f"ExecStart={helper} --request={request} --rules={rules} --applied={applied}"),
                     ("ReadWritePaths=/run/udev", f"ReadWritePaths={udev}"),
                     # A build machine with cgroup v1 (a tmpfs of cgroup mounts on /sys/fs/cgroup)
                     # fails the read-only remount of ProtectControlGroups= beside ReadWritePaths=
                     # (status 226/NAMESPACE); Debian 12 boots with cgroup v2, where it works.
                     ("ProtectControlGroups=yes\n", "")):
        assert old in service
        service = service.replace(old, new)
    for name, text in (("carouseld-kiosk-touch.path", path_unit), ("carouseld-kiosk-touch.service", service)):
        with open(os.path.join(m.units, name), "w") as f:
            f.write(text)
    return request, rules, applied


def write_request(request, turn):
    """As carouseld-kiosk writes it: a temporary file beside it, renamed over it."""
    tmp = f"{request}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{turn}\n")
    os.rename(tmp, request)


def read(path):
    try:
        return open(path).read()
    except FileNotFoundError:
        return None


def test_touch_follows_30_turns_in_5_s_and_every_turn_after(manager):
    """30 requests in 5 s (a device turned quickly, or the kiosk user writing in a loop) through
    the real path unit: with systemd's default start limit (5 in 10 s) the service failed
    (start-limit-hit), the path unit with it (unit-start-limit-hit), and no later turn was
    applied. Now the last request of the burst is applied, both units stay usable, and a turn
    asked for after the burst is applied too."""
    request, rules, applied = install_units(manager)
    manager.start()
    def applied_is(turn):
        def check():
            if manager.show("carouseld-kiosk-touch.path", "ActiveState") == "failed":
                raise AssertionError("carouseld-kiosk-touch.path failed (Result="
                                     f"{manager.show('carouseld-kiosk-touch.path', 'Result')}); service Result="
                                     f"{manager.show('carouseld-kiosk-touch.service', 'Result')}\n{manager.journal()}")
            if manager.show("carouseld-kiosk-touch.service", "Result") not in ("success", ""):
                raise AssertionError(f"carouseld-kiosk-touch.service: Result={manager.show('carouseld-kiosk-touch.service', 'Result')}, "
                                     f"status {manager.show('carouseld-kiosk-touch.service', 'ExecMainStatus')}"
                                     f"\n{manager.journal()}")
            return read(applied) == f"{turn}\n"
        return check
    # The kiosk's unit pulls the path unit in before the kiosk writes its first turn.
    manager.systemctl("start", "carouseld-kiosk-touch.path")
    write_request(request, 0)

    wait_for(applied_is("0"), 15, "the first turn (0) applied", interval=0.05)

    turns = ["90", "180", "270", "0"]
    started = time.monotonic()
    for i in range(30):
        write_request(request, turns[i % 4])
        time.sleep(max(0.0, started + (i + 1) * 5 / 30 - time.monotonic()))
    last = turns[29 % 4]

    wait_for(applied_is(last), 15, f"the burst's last turn ({last}) applied; applied: {read(applied)!r}", interval=0.05)
    assert read(rules).rstrip("\n").endswith(f'ENV{{LIBINPUT_CALIBRATION_MATRIX}}="{MATRICES[last]}"'), read(rules)

    assert manager.show("carouseld-kiosk-touch.path", "ActiveState") == "active"
    assert manager.show("carouseld-kiosk-touch.path", "Result") == "success"
    assert manager.show("carouseld-kiosk-touch.service", "Result") == "success"

    # Later turns, each a while after the one before (a kiosk turned again and again).
    for turn in ("270", "90"):
        write_request(request, turn)
        wait_for(applied_is(turn), 15, f"a turn ({turn}) after the burst applied; applied: {read(applied)!r}", interval=0.05)
        assert read(rules).rstrip("\n").endswith(f'ENV{{LIBINPUT_CALIBRATION_MATRIX}}="{MATRICES[turn]}"'), read(rules)
    assert manager.show("carouseld-kiosk-touch.service", "Result") == "success"
