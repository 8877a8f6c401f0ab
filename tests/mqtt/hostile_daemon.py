#!/usr/bin/env python3
"""A stand-in for carouseld that sends hostile but well-framed NDJSON (tests/mqtt/run only).

  hostile_daemon.py SOCKET

Listens on the Unix socket SOCKET. To every client it sends a VERSION whose `release` carries
ANSI escapes and control characters, then, for each request line it reads (the bridge's
`watch`, later its `poll`s), a STATE whose fields are out of range or full of control
characters; to `set_tilt` a SENSOR with escapes in its status and message and an ACK; to any
other command an ERROR with escapes. The bridge must pass the strings on correctly escaped in JSON and escape them in its
log lines. Runs until killed.
"""
import json
import os
import socket
import sys
import threading

RELEASE = "9.9\x1b[31mred\x07\u009b2J"
STATE = {
    "class": "STATE", "seq": 1, "time_ns": 1,
    "index": 7, "count": 5,                       # an index past the end
    "offset": 1e300, "pitch": 1, "position": -1e300, "velocity": 0,
    "phase": "idle\x1b[2J\u0085",
    "tilt": {"roll_deg": -1.7976931348623157e308, "pitch_deg": None, "enabled": True},
    "sensor": "ok\"\\\x00\n</script>\u2028",
}
SENSOR = {"class": "SENSOR", "status": "stale\x1b]0;title\x07", "message": "line1\nline2\x1b[K"}


def serve(conn):
    f = conn.makefile("rwb", buffering=0)
    send = lambda obj: f.write((json.dumps(obj, ensure_ascii=False) + "\n").encode())
    send({"class": "VERSION", "release": RELEASE, "proto_major": 1, "proto_minor": 2})
    try:
        for line in f:
            request = json.loads(line)
            cmd = request.get("cmd")
            if cmd in ("watch", "poll"):
                send(STATE)
            elif cmd == "set_tilt":
                send(SENSOR)
                send({"class": "ACK", "cmd": cmd})
            else:
                send({"class": "ERROR", "cmd": cmd, "code": "bad\x1b[1m", "message": "no\x1b[0m\r\nforged line"})
    except (OSError, ValueError):
        pass
    conn.close()


def main():
    path = sys.argv[1]
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
