"""The system suite's guest: Debian 12 booted under qemu-system-x86_64 (TCG) from a qcow2
overlay on the cached image, driven over ssh (user-mode network, hostfwd on 127.0.0.1) and
QMP (screendump, system_wakeup). Used by tests/system/system_tests.py."""
import json
import re
import os
import socket
import struct
import subprocess
import time
import zlib


class BootError(Exception):
    pass


class SelfWakeup(BootError):
    """The guest left S3 by itself (a wakeup source of its own), not by QMP system_wakeup."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class QMP:
    """QEMU's machine protocol on a Unix socket: one command at a time; events are kept in
    `events` as (time.monotonic() when read, name), read while waiting for replies."""

    def __init__(self, path, timeout=60):
        self.events = []
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self._read()                      # greeting
        self.command("qmp_capabilities")

    def _read(self):
        while True:
            line = self.file.readline()
            if not line:
                raise BootError("QMP socket closed")
            msg = json.loads(line)
            if "event" not in msg:
                return msg
            self.events.append((time.monotonic(), msg["event"]))

    def command(self, name, **args):
        self.file.write(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        self.file.flush()
        reply = self._read()
        if "error" in reply:
            raise BootError("QMP %s: %s" % (name, reply["error"]))
        return reply.get("return")

    def close(self):
        self.sock.close()


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM (P6, maxval 255) as QMP screendump writes it."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError("%s: not a P6 PPM with maxval 255" % path)
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h * 3]


def write_png(path, w, h, rgb):
    """A PNG (8-bit RGB, no filter) of `rgb`, written atomically."""
    raw = b"".join(b"\0" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
    with open(path + ".tmp", "wb") as f:
        f.write(png)
    os.replace(path + ".tmp", path)


class VM:
    def __init__(self, image_dir, out, memory_mb=3072, smp=2):
        self.image_dir = image_dir
        self.out = out
        self.key = os.path.join(image_dir, "id_ed25519")
        self.overlay = os.path.join(out, "overlay.qcow2")
        self.qmp_path = os.path.join(out, "qmp.sock")
        self.console = os.path.join(out, "console.log")
        self.control = os.path.join(out, "ssh-control")
        self.port = free_port()
        self.memory_mb = memory_mb
        self.smp = int(os.environ.get("SYSTEM_TEST_SMP", smp))
        self.proc = None
        self.qmp = None
        self.started = None

    def create_overlay(self):
        if os.path.exists(self.overlay):
            os.unlink(self.overlay)
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
                        os.path.join(self.image_dir, "base.raw"), self.overlay], check=True)

    def start(self):
        for p in (self.qmp_path,):
            if os.path.exists(p):
                os.unlink(p)
        # -vga virtio: virtio-gpu without 3D, a display with no GPU acceleration (its render
        # node has only Mesa's software GL). Not -vga std: bochs-drm has no DRM PRIME import,
        # which Debian 12's cage (wlroots 0.15) requires of every display (docs/KIOSK.md). The
        # kernel's console goes to the serial port (console.log). no_timer_check: on a loaded
        # host TCG is too slow for the kernel's early IO-APIC timer test, which then panics
        # ("IO-APIC + timer doesn't work!"), as the kernel suite's guest does.
        cmd = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg", "-cpu", "max",
               "-m", str(self.memory_mb), "-smp", str(self.smp), "-nodefaults",
               "-vga", os.environ.get("SYSTEM_TEST_VGA", "virtio"), "-display", "none",
               "-kernel", os.path.join(self.image_dir, "vmlinuz"),
               "-initrd", os.path.join(self.image_dir, "initrd.img"),
               "-append", "root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet systemd.show_status=0 nokaslr no_timer_check",
               "-drive", "file=%s,if=virtio,format=qcow2,cache=unsafe" % self.overlay,
               "-netdev", "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:%d-:22" % self.port,
               "-device", "virtio-net-pci,netdev=n0",
               "-device", "virtio-rng-pci",
               "-serial", "file:%s" % self.console,
               "-qmp", "unix:%s,server=on,wait=off" % self.qmp_path,
               # ACPI S3 (suspend to RAM), which q35's ICH9 hides by default: the guest's
               # /sys/power/mem_sleep then offers "deep", and `systemctl suspend` really
               # suspends (QMP query-status "suspended" until system_wakeup).
               "-global", "ICH9-LPC.disable_s3=0"]
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=open(os.path.join(self.out, "qemu.log"), "ab"),
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.qmp_path):
            if self.proc.poll() is not None:
                raise BootError("qemu-system-x86_64 exited %d: %s" % (self.proc.returncode, self.tail("qemu.log")))
            if time.monotonic() > deadline:
                raise BootError("no QMP socket from QEMU after 30 s")
            time.sleep(0.1)
        self.qmp = QMP(self.qmp_path)

    def tail(self, name, n=1500):
        try:
            with open(os.path.join(self.out, name), "rb") as f:
                return f.read()[-n:].decode(errors="replace")
        except OSError as e:
            return str(e)

    def ssh_cmd(self, command, shared=True):
        # One connection for all commands: a key exchange costs seconds in a TCG guest. Not
        # shared (its own connection, closed with the command): what starts a suspend.
        share = (["-o", "ControlMaster=auto", "-o", "ControlPath=%s" % self.control, "-o", "ControlPersist=600"]
                 if shared else ["-o", "ControlMaster=no", "-o", "ControlPath=none"])
        return ["ssh", "-i", self.key, "-p", str(self.port), "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
                "-o", "ConnectTimeout=20", "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=6",
                *share, "root@127.0.0.1", command]

    def drop_connection(self):
        """Ends the shared ssh connection (before a reboot or suspend: it would hang)."""
        subprocess.run(["ssh", "-o", "ControlPath=%s" % self.control, "-O", "exit", "root@127.0.0.1"],
                       capture_output=True, timeout=30)

    def ssh(self, command, timeout=120, check=True, input=None):
        """Runs `command` (a shell command line) as root in the guest; the CompletedProcess."""
        p = subprocess.run(self.ssh_cmd(command), capture_output=True, text=True, timeout=timeout, input=input)
        if check and p.returncode != 0:
            raise RuntimeError("guest: `%s` exited %d: %s" % (command, p.returncode, (p.stderr + p.stdout).strip()[-800:]))
        return p

    def out_of(self, command, timeout=120):
        return self.ssh(command, timeout=timeout).stdout.strip()

    def copy_in(self, files, dest):
        p = subprocess.run(["scp", "-q", "-i", self.key, "-P", str(self.port), "-o", "StrictHostKeyChecking=no",
                            "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
                            "-o", "ControlMaster=auto", "-o", "ControlPath=%s" % self.control, "-o", "ControlPersist=600",
                            *files, "root@127.0.0.1:%s" % dest], capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise RuntimeError("scp to the guest: %s" % p.stderr.strip())

    def wait_ssh(self, timeout, previous_boot=None):
        """Waits until ssh answers (and, after a reboot, from a new boot); the boot id."""
        deadline = time.monotonic() + timeout
        last = ""
        seen = os.path.getsize(self.console) if os.path.exists(self.console) else 0
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BootError("QEMU exited %d while booting; console: %s" % (self.proc.returncode, self.tail("console.log")))
            # A panicked kernel never answers: say so now rather than at the deadline.
            panicked = False
            if os.path.exists(self.console):
                with open(self.console, "rb") as f:
                    f.seek(seen)
                    panicked = b"end Kernel panic" in f.read()
            if panicked:
                raise BootError("the guest's kernel panicked while booting; console: %s" % self.tail("console.log"))
            try:
                p = self.ssh("cat /proc/sys/kernel/random/boot_id", timeout=40, check=False)
                if p.returncode == 0 and p.stdout.strip() and p.stdout.strip() != previous_boot:
                    return p.stdout.strip()
                last = p.stderr.strip()
            except subprocess.TimeoutExpired:
                last = "ssh timed out"
            time.sleep(2)
        raise BootError("no ssh from the guest within %d s (last: %s); console tail: %s" % (timeout, last, self.tail("console.log")))

    def wait_system(self, timeout):
        """`systemctl is-system-running --wait` (running or degraded), bounded."""
        p = self.ssh("timeout %d systemctl is-system-running --wait" % timeout, timeout=timeout + 30, check=False)
        return p.stdout.strip()

    def reboot(self, timeout):
        boot = self.out_of("cat /proc/sys/kernel/random/boot_id")
        self.ssh("systemctl reboot", check=False, timeout=30)
        self.drop_connection()
        return self.wait_ssh(timeout, previous_boot=boot)

    def poweroff(self, timeout):
        """`systemctl poweroff` in the guest; waits until QEMU has exited (bounded)."""
        self.ssh("systemctl poweroff", check=False, timeout=30)
        self.drop_connection()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise BootError("the guest did not power off within %d s; console: %s" % (timeout, self.tail("console.log")))
        self.qmp.close()

    def suspend(self, timeout):
        """`systemctl suspend` in the guest (which returns once the job is queued), over a
        connection of its own after the shared one is dropped (it would hang across the sleep);
        waits until QMP query-status says "suspended" (the guest reached ACPI S3). Seconds
        from the command to that."""
        self.drop_connection()
        t = time.monotonic()
        seen = len(self.qmp.events)
        start = self.console_size()
        p = subprocess.run(self.ssh_cmd("systemctl suspend", shared=False), capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise BootError("`systemctl suspend` exited %d: %s" % (p.returncode, (p.stderr + p.stdout).strip()[-400:]))
        deadline = t + timeout
        status = None
        while time.monotonic() < deadline:
            status = self.qmp.command("query-status").get("status")
            if status == "suspended":
                return time.monotonic() - t
            names = [e for _, e in self.qmp.events[seen:]]
            # Entered S3 and left it again before this poll saw it, without system_wakeup.
            if "SUSPEND" in names and "WAKEUP" in names[names.index("SUSPEND"):]:
                raise SelfWakeup("the guest entered S3 (QMP SUSPEND) and woke by itself (WAKEUP) %.1f s after "
                                 "`systemctl suspend`, without system_wakeup" % (time.monotonic() - t))
            # Slept and woke by itself so soon that QEMU never reported it (no SUSPEND event):
            # the kernel's own lines on the serial console say so.
            console = self.console_text(start)
            if "PM: suspend exit" in console:
                slept = re.findall(r"Timekeeping suspended for ([0-9.]+) seconds", console)
                raise SelfWakeup("the kernel entered S3 and woke by itself %.1f s after `systemctl suspend` (asleep %s s by "
                                 "its timekeeping), QMP saw no SUSPEND" % (time.monotonic() - t, slept[-1] if slept else "?"))
            time.sleep(0.2)
        raise BootError("the guest was not suspended within %d s of `systemctl suspend` (QMP status %r, events since %s, "
                        "all events %s); console: %s" % (timeout, status, [e for _, e in self.qmp.events[seen:]],
                                                         [(round(t - self.started, 1), e) for t, e in self.qmp.events],
                                                         self.tail("console.log", 800)))

    def console_size(self):
        """Bytes the serial console (console.log) holds so far."""
        try:
            return os.path.getsize(self.console)
        except OSError:
            return 0

    def console_text(self, start=0):
        """The serial console's text from byte `start` on (console.log): a poll reads only
        what came since it began, not the whole boot's lines each time."""
        try:
            with open(self.console, "rb") as f:
                f.seek(start)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def wakeup(self):
        """QMP system_wakeup (the guest leaves S3), after which query-status says "running";
        the host's time.monotonic() when system_wakeup returned."""
        self.qmp.command("system_wakeup")
        woke = time.monotonic()
        status = self.qmp.command("query-status").get("status")
        if status != "running":
            raise BootError("QMP query-status %r after system_wakeup" % status)
        return woke

    def screendump(self, name, save=True):
        """The display: (width, height, RGB bytes), saved as OUT/NAME.png unless save is False
        (a PNG costs about as long as the screendump itself: polling loops save the last)."""
        ppm = os.path.join(self.out, name + ".ppm")
        self.qmp.command("screendump", filename=ppm)
        w, h, rgb = read_ppm(ppm)
        os.unlink(ppm)
        if save:
            write_png(os.path.join(self.out, name + ".png"), w, h, rgb)
        return w, h, rgb

    def stop(self):
        try:
            self.drop_connection()
        except Exception:
            pass
        if self.proc and self.proc.poll() is None:
            try:
                self.qmp.command("quit")
            except Exception:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
