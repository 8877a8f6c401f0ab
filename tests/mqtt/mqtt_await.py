#!/usr/bin/env python3
"""Waits for MQTT messages matching a Python expression, through Debian's mosquitto_sub.

  mqtt_await.py --port P --topic T [--topic T2 ...] [--timeout S] [--expect EXPR] [--count N]
                [--collect] [--fresh] [--tls CA CERT KEY] [--user NAME] [--ready FILE] [--after CMD ARG...]

Subscribes (waiting for the SUBACK), then runs the --after command (e.g. a mosquitto_pub), then
creates the --ready file (for a caller running it in the background), then prints each message that makes EXPR true (variables: t topic, p payload text, m payload parsed as
JSON or None, retained bool) as one JSON line {"topic","payload","retained"}. Exits 0 after
--count matches (default 1), 1 on timeout with the messages seen on stderr. --collect prints
every match until the timeout and exits 0. --fresh ignores messages delivered from the
retained store. --user logs in with that user name (no password; for a broker's ACL). Used by
tests/mqtt/run only.
"""
import json
import os
import select
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    port, topics, timeout, expect, count = None, [], 5.0, "True", 1
    collect, fresh, tls, after, ready_file, user = False, False, None, None, None, None
    while args:
        a = args.pop(0)
        if a == "--port": port = args.pop(0)
        elif a == "--topic": topics.append(args.pop(0))
        elif a == "--timeout": timeout = float(args.pop(0))
        elif a == "--expect": expect = args.pop(0)
        elif a == "--count": count = int(args.pop(0))
        elif a == "--collect": collect = True
        elif a == "--fresh": fresh = True
        elif a == "--tls": tls = [args.pop(0), args.pop(0), args.pop(0)]
        elif a == "--ready": ready_file = args.pop(0)
        elif a == "--user": user = args.pop(0)
        elif a == "--after": after, args = args, []
        else: sys.exit("mqtt_await.py: unknown argument " + a)
    # stdbuf: mosquitto_sub flushes stdout only after a message, so without line buffering the
    # SUBACK line of a topic with no retained message would never arrive.
    command = ["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", port, "-d", "-F", "MSG\t%r\t%t\t%p"]
    if tls:
        command = ["stdbuf", "-oL", "mosquitto_sub", "-h", "localhost", "-p", port, "-d", "-F", "MSG\t%r\t%t\t%p",
                   "--cafile", tls[0], "--cert", tls[1], "--key", tls[2]]
    if user: command += ["-u", user]
    for t in topics: command += ["-t", t]
    sub = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    deadline = time.monotonic() + timeout
    seen, matched, buffer, subscribed = [], 0, "", False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0: break
            ready, _, _ = select.select([sub.stdout], [], [], left)
            if not ready: continue
            chunk = os.read(sub.stdout.fileno(), 65536).decode("utf-8", "replace")
            if not chunk: break
            buffer += chunk
            while "\n" in buffer:
                line, buffer = buffer.split("\n", 1)
                if not line.startswith("MSG\t"):
                    if "received SUBACK" in line and not subscribed:
                        subscribed = True
                        if ready_file: open(ready_file, "w").close()
                        if after:
                            r = subprocess.run(after)
                            if r.returncode != 0: sys.exit("mqtt_await.py: %s failed with %d" % (after, r.returncode))
                    continue
                _, r, t, p = line.split("\t", 3)
                retained = r == "1"
                try: m = json.loads(p)
                except ValueError: m = None
                seen.append((t, p, retained))
                if fresh and retained: continue
                if eval(expect, {}, {"t": t, "p": p, "m": m, "retained": retained}):
                    print(json.dumps({"topic": t, "payload": p, "retained": retained}), flush=True)
                    matched += 1
                    if not collect and matched >= count: return 0
    finally:
        sub.kill()
        sub.wait()
    if collect: return 0
    sys.stderr.write("timeout after %g s waiting for %s on %s; seen %d: %s\n"
                     % (timeout, expect, topics, len(seen), "; ".join("%s%s %s" % (t, " (retained)" if r else "", p[:300]) for t, p, r in seen[-8:])))
    return 1


sys.exit(main())
