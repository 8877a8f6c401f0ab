"""The one scripted NDJSON server of the browser tests, run by websocketd per connection in
place of socat + carouseld, for what a real daemon never sends: garbage lines and a greeting
with another proto_major. Writes SCRIPT's lines to stdout (one WebSocket message each;
`#sleep S` pauses), records every line the page sends in RECEIVED, and exits when its input ends
(the page or websocketd closed the connection).

    scripted_server.py SCRIPT RECEIVED
"""
import sys
import threading
import time


def main():
    script, received = sys.argv[1], sys.argv[2]
    log = open(received, "ab", buffering=0)

    def record():
        for line in sys.stdin.buffer:
            log.write(line)
    reader = threading.Thread(target=record, daemon=True)
    reader.start()
    with open(script, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith("#sleep "):
                time.sleep(float(line.split()[1]))
                continue
            sys.stdout.buffer.write((line + "\n").encode("utf-8"))
            sys.stdout.buffer.flush()
    # Until the page closes the WebSocket or websocketd goes away: both close stdin.
    reader.join()


if __name__ == "__main__":
    main()
