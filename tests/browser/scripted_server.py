"""The one scripted NDJSON server of the browser tests, listening on a Unix socket in place of
carouseld behind the real bridge, for what a real daemon never sends: garbage lines and a
greeting with another proto_major. To each connection it writes SCRIPT's lines (one WebSocket
message each; `#sleep S` pauses), records every line the bridge forwards in RECEIVED, and
closes when the bridge does (then adds `# connection closed` to RECEIVED).

    scripted_server.py SOCKET SCRIPT RECEIVED
"""
import os
import socket
import sys
import threading
import time


def serve(conn, script, log):
    def record():
        with conn.makefile("rb") as lines:
            for line in lines:
                log.write(line)
    reader = threading.Thread(target=record, daemon=True)
    reader.start()
    try:
        with open(script, encoding="utf-8") as f:
            for line in f.read().splitlines():
                if line.startswith("#sleep "):
                    time.sleep(float(line.split()[1]))
                    continue
                conn.sendall((line + "\n").encode("utf-8"))
    except OSError:
        pass   # the bridge went first; what it forwarded is still read to the end
    # Until the bridge closes its end (the page went away); then a line saying so, after
    # everything the bridge forwarded on this connection.
    reader.join()
    conn.close()
    log.write(b"# connection closed\n")


def main():
    path, script, received = sys.argv[1:4]
    log = open(received, "ab", buffering=0)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o666)
    server.listen(16)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn, script, log), daemon=True).start()


if __name__ == "__main__":
    main()
