#!/usr/bin/env bash
# Side-by-side run of carouseld and iio-sensor-proxy (the standard Linux accelerometer daemon)
# against the same umockdev-mocked accelerometer, with a private D-Bus system bus.
#
# Both daemons read the same polled accelerometer (sysfs in_accel_{x,y,z}_raw; iio-sensor-proxy's
# iio-poll-accel driver, selected by the udev property IIO_SENSOR_PROXY_TYPE, polls every 700 ms,
# so carouseld is configured with [sensor] mode = polled and a 700 ms period). Two more carouselds
# poll at the default 100 Hz for reference: one with the default estimator ([filter] method =
# fusion) and one with method = accel (the mock has no gyroscope). In every carouseld the tilt is
# published but does not drive the carousel ([tilt] enabled = no), so no animation frames are
# sent and both daemons do the same job: read, estimate, publish changes. Each daemon has one consumer for
# the whole run: monitor-sensor (which claims the accelerometer over D-Bus) and one watching
# socket client per carouseld. Every few seconds the script turns the device between upright
# ("normal") and on its left side ("left-up") by rewriting the raw files (atomically, with
# rename), and times the first report of the new attitude:
#   iio-sensor-proxy: monitor-sensor's "Accelerometer orientation changed: ..." line;
#   carouseld:        the first STATE whose tilt.roll_deg has covered half of the 90° turn.
# Reported per daemon: CPU time per minute (all threads, /proc/PID/task/*/schedstat), resident
# memory (VmRSS, VmHWM), and the tilt-to-report latency (median, p90, max).
#
# usage: bench/compare-iio-sensor-proxy.sh [DURATION_SECONDS]   (default 60; 10 to 600)
# env:   CAROUSELD=path to the carouseld binary (default: .build/release/carouseld, built if missing)
#        COMPARE_JSON=1 also prints one JSON object per figure (name, unit, value)
# Loopback-only: Unix sockets in a private temporary directory. Cleans up what it starts.
set -euo pipefail

duration="${1:-60}"
if ! [[ "$duration" =~ ^[0-9]+$ ]] || (( duration < 10 || duration > 600 )); then
    echo "usage: $0 [DURATION_SECONDS: 10..600]" >&2
    exit 64
fi
root="$(cd "$(dirname "$0")/.." && pwd)"

# --- what the run needs, installed with the distribution's client ---------------------------
need=(iio-sensor-proxy umockdev libumockdev0 gir1.2-umockdev-1.0 python3 python3-gi dbus-daemon coreutils)
missing=()
for p in "${need[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
    sudo=""; (( EUID == 0 )) || sudo="sudo"
    echo "installing: ${missing[*]}" >&2
    $sudo apt-get install -y --no-install-recommends "${missing[@]}" \
        || { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "${missing[@]}"; }
fi

carouseld="${CAROUSELD:-$root/.build/release/carouseld}"
if [[ ! -x "$carouseld" ]]; then
    (cd "$root" && swift build -c release --product carouseld)
fi

work="$(mktemp -d /tmp/compare-iio-sensor-proxy.XXXXXX)"
runner_pid=""
cleanup() {
    # The runner stops its own children (daemons, bus, monitor); this is the backstop.
    if [[ -n "$runner_pid" ]] && kill -0 "$runner_pid" 2>/dev/null; then
        kill -TERM "$runner_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$runner_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$runner_pid" 2>/dev/null || true
    fi
    if [[ -f "$work/pids" ]]; then
        while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done < "$work/pids"
    fi
    rm -rf "$work"
}
# An interrupted run stops everything and exits 130/143 without a table (a trap that only
# cleaned up let the script go on and print figures of killed daemons).
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "iio-sensor-proxy $(dpkg-query -W -f='${Version}' iio-sensor-proxy), $("$carouseld" --version 2>/dev/null | head -1)"

/usr/bin/python3 - "$work" "$carouseld" "$duration" <<'PY' &
import gi, json, os, random, select, signal, subprocess, sys, time
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev

work, carouseld, duration = sys.argv[1], sys.argv[2], int(sys.argv[3])
# Ctrl-C reaches the whole process group: stop (the `finally` below stops the children) and
# report nothing, rather than going on with daemons that were interrupted too. A background job
# of a script starts with SIGINT ignored, so the handler is installed explicitly.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
signal.signal(signal.SIGINT, lambda *_: sys.exit(130))
children = []

def spawn(argv, env, **kw):
    p = subprocess.Popen(argv, env=env, **kw)
    children.append(p)
    with open(os.path.join(work, "pids"), "a") as f:
        f.write(f"{p.pid}\n")
    return p

def cpu_ns(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            total += int(f.read().split()[0])
    return total

def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0

try:
    # One polled accelerometer: 1 g = 256 LSB at 0.038307 m/s² per LSB; upright = y at -1 g
    # (Linux gravity convention, which both daemons expect).
    tb = UMockdev.Testbed.new()
    dev = tb.add_device("iio", "iio:device0", None,
        ["name", "IIO Test Accelerometer\n",
         "in_accel_x_raw", "0\n", "in_accel_y_raw", "-256\n", "in_accel_z_raw", "0\n",
         "in_accel_scale", "0.038307\n",
         "sampling_frequency", "1.428571\n", "sampling_frequency_available", "1.428571 10 100\n",
         "buffer/length", "2\n", "buffer/enable", "0\n"],
        ["NAME", '"IIO Test Accelerometer"', "IIO_SENSOR_PROXY_TYPE", "iio-poll-accel"])
    sysdir = tb.get_root_dir() + dev
    mock_env = dict(os.environ, UMOCKDEV_DIR=tb.get_root_dir(), LD_PRELOAD="libumockdev-preload.so.0")

    def tilt(left):
        values = {"in_accel_x_raw": 256 if left else 0, "in_accel_y_raw": 0 if left else -256}
        for name, v in values.items():
            tmp = f"{sysdir}/.{name}.tmp"
            with open(tmp, "w") as f:
                f.write(f"{v}\n")
            os.rename(tmp, f"{sysdir}/{name}")
        return time.monotonic()

    # Private system bus: a session-like policy (anyone may own any name) on a Unix socket here.
    with open(f"{work}/system-bus.conf", "w") as f:
        f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path={work}/system_bus_socket</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>""")
    bus = spawn(["dbus-daemon", "--config-file", f"{work}/system-bus.conf", "--nofork", "--print-address=1"],
                dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = bus.stdout.readline().strip()
    proxy = spawn(["iio-sensor-proxy"], dict(mock_env, DBUS_SYSTEM_BUS_ADDRESS=address),
                  stdout=subprocess.DEVNULL, stderr=open(f"{work}/iio-sensor-proxy.log", "w"))

    def start_carouseld(name, rate, method=None):
        sock = f"{work}/{name}.sock"
        with open(f"{work}/{name}.conf", "w") as f:
            f.write(f"[sensor]\nsource = iio\nmode = polled\nsample_rate_hz = {rate}\n"
                    + (f"[filter]\nmethod = {method}\n" if method else "")
                    # Tilt reported, not driving the carousel: no animation frames, so both
                    # daemons do the same job (read, estimate, publish changes).
                    + "[tilt]\nenabled = no\n"
                    + f"[server]\nsocket = {sock}\n[calibration]\nfile = {work}/none.conf\n")
        p = spawn([carouseld, "-c", f"{work}/{name}.conf", "--foreground"], mock_env,
                  stdout=subprocess.DEVNULL, stderr=open(f"{work}/{name}.log", "w"))
        import socket
        deadline = time.monotonic() + 20
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sock)
                break
            except OSError:
                s.close()
                if time.monotonic() > deadline or p.poll() is not None:
                    raise SystemExit(f"{name} did not start: " + open(f"{work}/{name}.log").read()[-2000:])
                time.sleep(0.05)
        s.sendall(b'{"cmd":"watch","enable":true,"items":false,"max_rate_hz":60}\n')
        s.setblocking(False)
        return p, s

    # 1.428 Hz: the listed rate the daemon picks (the lowest listed >= the request) is 1.428571,
    # i.e. a 700 ms poll like iio-sensor-proxy's.
    matched = start_carouseld("carouseld-matched", 1.428)
    default = start_carouseld("carouseld-100hz", 100)
    accel = start_carouseld("carouseld-100hz-accel", 100, "accel")

    monitor = spawn(["stdbuf", "-oL", "monitor-sensor", "--accel"], dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address),
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    os.set_blocking(monitor.stdout.fileno(), False)

    # Settle: the proxy reports the first orientation once claimed; carouseld sends its first STATE.
    settle_end = time.monotonic() + 3
    buffers = {}
    def lines(key, fd_read):
        data = fd_read()
        if not data:
            return []
        buffers[key] = buffers.get(key, "") + data
        *complete, buffers[key] = buffers[key].split("\n")
        return complete
    def read_sock(s):
        def r():
            try:
                return s.recv(1 << 16).decode()
            except BlockingIOError:
                return ""
        return r
    def read_monitor():
        try:
            return monitor.stdout.read() or ""
        except (BlockingIOError, TypeError):
            return ""

    names = {"iio-sensor-proxy": proxy.pid, "carouseld (1.43 Hz)": matched[0].pid,
             "carouseld (100 Hz)": default[0].pid, "carouseld (100 Hz, accel)": accel[0].pid}
    sources = {"iio-sensor-proxy": (monitor.stdout, read_monitor),
               "carouseld (1.43 Hz)": (matched[1], read_sock(matched[1])),
               "carouseld (100 Hz)": (default[1], read_sock(default[1])),
               "carouseld (100 Hz, accel)": (accel[1], read_sock(accel[1]))}
    last_roll = {}
    def poll_once(timeout, pending, target_left, written):
        readable, _, _ = select.select([src for src, _ in sources.values()], [], [], timeout)
        now = time.monotonic()
        for name, (src, reader) in sources.items():
            if src not in readable:
                continue
            for line in lines(name, reader):
                if name == "iio-sensor-proxy":
                    if "orientation changed" in line and name in pending:
                        want = "left-up" if target_left else "normal"
                        if line.strip().endswith(want):
                            pending[name] = now - written
                else:
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    if msg.get("class") != "STATE":
                        continue
                    roll = msg["tilt"]["roll_deg"]
                    last_roll[name] = roll
                    # Rolled 90° to the left side (roll +90°) or back upright (roll 0°): half-way.
                    if name in pending and pending[name] is None and ((roll >= 45) if target_left else (roll < 45)):
                        pending[name] = now - written
    while time.monotonic() < settle_end:
        poll_once(0.1, {}, False, 0)

    start = {n: cpu_ns(p) for n, p in names.items()}
    t0 = time.monotonic()
    end = t0 + duration
    rng = random.Random(7)
    latencies = {n: [] for n in names}
    left = False
    while time.monotonic() < end - 3:
        left = not left
        written = tilt(left)
        pending = {n: None for n in names}
        deadline = written + 2.5 + rng.random() * 0.7  # the jitter spreads the writes over the 700 ms poll phase
        while time.monotonic() < deadline:
            poll_once(0.05, pending, left, written)
        for n, v in pending.items():
            latencies[n].append(v)
    while time.monotonic() < end:
        poll_once(0.1, {}, left, 0)
    elapsed = time.monotonic() - t0
    stop = {n: cpu_ns(p) for n, p in names.items()}

    def pct(values, q):
        v = sorted(values)
        if not v:
            return float("nan")
        k = (len(v) - 1) * q / 100
        i = int(k)
        j = min(i + 1, len(v) - 1)
        return v[i] + (v[j] - v[i]) * (k - i)

    rows = []
    for n, pid in names.items():
        got = [x for x in latencies[n] if x is not None]
        rows.append(dict(name=n, cpu_ms_per_min=(stop[n] - start[n]) / 1e6 * 60 / elapsed,
                         rss_mb=status_kb(pid, "VmRSS") / 1024, hwm_mb=status_kb(pid, "VmHWM") / 1024,
                         lat_med=pct(got, 50) * 1000, lat_p90=pct(got, 90) * 1000,
                         lat_max=(max(got) * 1000 if got else float("nan")),
                         tilts=len(latencies[n]), seen=len(got)))
    print(f"\nwindow {elapsed:.1f} s, {rows[0]['tilts']} tilts written, load {open('/proc/loadavg').read().split()[0]}")
    print(f"{'daemon':26} {'CPU ms/min':>11} {'VmRSS MB':>9} {'VmHWM MB':>9} {'latency ms: median':>19} {'p90':>7} {'max':>7} {'seen':>6}")
    for r in rows:
        print(f"{r['name']:26} {r['cpu_ms_per_min']:11.1f} {r['rss_mb']:9.1f} {r['hwm_mb']:9.1f} "
              f"{r['lat_med']:19.1f} {r['lat_p90']:7.1f} {r['lat_max']:7.1f} {r['seen']:>3}/{r['tilts']}")
    base = rows[0]
    print("\nratios carouseld / iio-sensor-proxy (below 1: carouseld uses less / reacts sooner)")
    for r in rows[1:]:
        print(f"  {r['name']:26} CPU {r['cpu_ms_per_min'] / base['cpu_ms_per_min']:.2f}  "
              f"RSS {r['rss_mb'] / base['rss_mb']:.2f}  latency median {r['lat_med'] / base['lat_med']:.2f}")
    if os.environ.get("COMPARE_JSON"):
        for r in rows:
            key = r["name"].replace(",", "").replace(" ", "_").replace("(", "").replace(")", "").replace(".", "_")
            for field, unit in (("cpu_ms_per_min", "ms/min"), ("rss_mb", "MB"), ("hwm_mb", "MB"),
                                ("lat_med", "ms"), ("lat_p90", "ms"), ("lat_max", "ms")):
                print(json.dumps({"name": f"compare.{key}.{field}", "unit": unit, "value": round(r[field], 3)}))
finally:
    for p in reversed(children):
        if p.poll() is None:
            p.terminate()
    for p in reversed(children):
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
PY
runner_pid=$!
wait "$runner_pid"
