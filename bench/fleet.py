#!/usr/bin/env python3
"""Fleet benchmark for carousel-mqtt (docs/FLEET.md): N carouseld (replay source) + N bridges +
one mosquitto on loopback, one subscriber on carouseld/+/state.

  bench/fleet.py [--devices N] [--seconds S] [--round-trips K] [--bin DIR]

Reports: how many devices' state arrived; broker and bridge CPU (% of one core over the
measurement window) and resident memory; the round trip of a command (publish set/index →
the first state showing that index) p50/p99. Only 127.0.0.1 and ephemeral ports are used.
DIR defaults to `swift build -c release --show-bin-path`.
"""
import json, os, random, select, shutil, socket, subprocess, sys, tempfile, time

def arg(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default

N = arg("--devices", 10)
SECONDS = arg("--seconds", 10.0)
ROUND_TRIPS = arg("--round-trips", 50)
BIN = arg("--bin", "") or subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"],
                                         capture_output=True, text=True).stdout.strip()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK

def rss_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"): return int(line.split()[1])
    return 0

work = tempfile.mkdtemp(prefix="carousel-fleet-")
procs = []
def start(cmd, log):
    p = subprocess.Popen(cmd, stdout=open(os.path.join(work, log), "w"), stderr=subprocess.STDOUT)
    procs.append(p); return p

try:
    port = free_port()
    conf = os.path.join(work, "mosquitto.conf")
    open(conf, "w").write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n%s"
                          % (port, "user root\n" if os.getuid() == 0 else ""))
    broker = start(["mosquitto", "-c", conf], "mosquitto.log")
    time.sleep(0.3)
    daemons, bridges = [], []
    for i in range(N):
        sock = os.path.join(work, "d%d.sock" % i)
        dconf = os.path.join(work, "d%d.conf" % i)
        open(dconf, "w").write(
            "[sensor]\nsource = replay\nreplay_file = %s/data/demo-recording.csv\nreplay_loop = yes\n"
            "[tilt]\nenabled = no\n[carousel]\ncount = 20\n[server]\nsocket = %s\nsocket_mode = 0666\n"
            "[calibration]\nfile = %s/none.conf\n" % (ROOT, sock, work))
        daemons.append(start([BIN + "/carouseld", "-c", dconf, "--foreground"], "d%d.log" % i))
        bconf = os.path.join(work, "b%d.conf" % i)
        open(bconf, "w").write(
            "[daemon]\nsocket = %s\nreconnect_min_s = 0.1\nreconnect_max_s = 1\n"
            "[broker]\nhost = 127.0.0.1\nport = %d\nreconnect_min_s = 0.1\nreconnect_max_s = 1\n"
            "[device]\nid = dev%03d\n" % (sock, port, i))
        bridges.append(bconf)
    time.sleep(1.0)
    bridges = [start([BIN + "/carousel-mqtt", "--config", c], "b%d.log" % i) for i, c in enumerate(bridges)]

    sub = subprocess.Popen(["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "carouseld/+/state", "-v"],
                           stdout=subprocess.PIPE, text=True, bufsize=1)
    procs.append(sub)
    latest, buffer = {}, ""
    def pump(timeout, until=None):
        global buffer
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r, _, _ = select.select([sub.stdout], [], [], max(0, deadline - time.monotonic()))
            if not r: continue
            buffer += os.read(sub.stdout.fileno(), 1 << 16).decode()
            while "\n" in buffer:
                line, buffer = buffer.split("\n", 1)
                topic, payload = line.split(" ", 1)
                dev = topic.split("/")[1]
                latest[dev] = json.loads(payload)
                if until and until(dev, latest[dev]): return time.monotonic()
        return None

    started = time.monotonic()
    pump(15, until=lambda d, s: len(latest) == N)
    arrival = time.monotonic() - started
    seen = len(latest)

    # CPU and memory over a quiet window (replay running, no commands).
    c0 = {p.pid: cpu_seconds(p.pid) for p in [broker] + bridges}
    t0 = time.monotonic()
    pump(SECONDS)
    elapsed = time.monotonic() - t0
    cpu = {pid: (cpu_seconds(pid) - c) / elapsed * 100 for pid, c in c0.items()}
    bridge_cpu = sorted(cpu[p.pid] for p in bridges)
    bridge_rss = sorted(rss_kib(p.pid) for p in bridges)

    # Round trips: set/index to a random other item; time until that device's state shows it.
    rtts, reactions = [], []
    for k in range(ROUND_TRIPS):
        dev = "dev%03d" % random.randrange(N)
        current = latest.get(dev, {}).get("index", 0)
        target = random.choice([j for j in range(20) if j != current])
        t = time.monotonic()
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-t", "carouseld/%s/set/index" % dev, "-m", str(target)])
        moved = pump(10, until=lambda d, s: d == dev and (s["phase"] != "idle" or s["index"] == target))
        if moved: reactions.append((moved - t) * 1000)
        done = moved if latest[dev]["index"] == target else pump(10, until=lambda d, s: d == dev and s["index"] == target)
        if done: rtts.append((done - t) * 1000)
        pump(0.3 + 0.2 * random.random())  # let it come to rest
    rtts.sort(); reactions.sort()
    pct = lambda q, v=rtts: v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")
    load = open("/proc/loadavg").read().split()[:3]
    print("fleet: %d devices (carouseld replay + carousel-mqtt each), one mosquitto on loopback; binaries %s" % (N, BIN))
    print("state of %d/%d devices arrived on carouseld/+/state within %.1f s of starting the bridges" % (seen, N, arrival))
    print("CPU over %.0f s (%% of one core): broker %.1f; bridge median %.2f, max %.2f" % (elapsed, cpu[broker.pid], bridge_cpu[len(bridge_cpu) // 2], bridge_cpu[-1]))
    print("RSS: broker %d KiB; bridge median %d KiB, max %d KiB" % (rss_kib(broker.pid), bridge_rss[len(bridge_rss) // 2], bridge_rss[-1]))
    print("command round trip (mosquitto_pub set/index -> first state with that index, including process start of mosquitto_pub): "
          "p50 %.1f ms, p99 %.1f ms over %d/%d" % (pct(0.5), pct(0.99), len(rtts), ROUND_TRIPS))
    print("reaction (publish set/index -> the first state of the animation): p50 %.1f ms, p99 %.1f ms"
          % (pct(0.5, reactions), pct(0.99, reactions)))
    print("load average %s" % " ".join(load))
    sys.exit(0 if seen == N and len(rtts) == ROUND_TRIPS else 1)
finally:
    for p in procs:
        try: p.kill()
        except OSError: pass
    for p in procs: p.wait()
    shutil.rmtree(work, ignore_errors=True)
