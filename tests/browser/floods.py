"""The hostile run's floods against a web bridge. Memory, with python3-websockets as the client:
one message of FRAGMENTS continuation frames of 64 KiB each, or one single frame of SIZE bytes
(prints how the connection ended: the close code, or "sent" when everything went through).
Connections: first ROWS TIME_WAIT entries in the machine's TCP table (connections to a listener
of its own, closed by that listener first), then THREADS loops of connect and close to the
bridge's port until killed (prints "ready ROWS" between the two, then the connects made each
second). Used by test_bridge_attacks.py, and from the command line to measure any bridge:

    floods.py URL fragments COUNT | floods.py URL frame BYTES | floods.py PORT connects ROWS THREADS
"""

import asyncio
import socket
import sys
import threading
import time

import websockets

CHUNK = 64 * 1024


async def flood(url, kind, amount, origin=None):
    """Sends one hostile message; returns the close code the bridge gave (None: all was sent)."""
    payload = "a" * (CHUNK if kind == "fragments" else amount)
    async with websockets.connect(url, origin=origin, max_size=None, compression=None,
                                  ping_interval=None, close_timeout=2) as ws:
        await ws.recv()  # the daemon's VERSION: the relay is up
        try:
            if kind == "fragments":
                await ws.send(payload for _ in range(amount))
            else:
                await ws.send(payload)
            # Everything went out: wait for what the bridge makes of it.
            await asyncio.wait_for(ws.recv(), 10)
        except websockets.ConnectionClosed as closed:
            # A client still writing may never read the bridge's close frame: 1006 then.
            return closed.rcvd.code if closed.rcvd else 1006
        except asyncio.TimeoutError:
            return None
    return None


def fill_time_wait(rows):
    """Leaves `rows` TIME_WAIT entries in the TCP table (for tcp_fin_timeout, 60 s): each is a
    connection to a listener of our own that the listener's side closed first."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    address = listener.getsockname()
    for _ in range(rows):
        client = socket.create_connection(address)
        accepted, _ = listener.accept()
        accepted.close()
        client.close()
    listener.close()


def connect_loop(port, counter):
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            counter[0] += 1
        except OSError:
            time.sleep(0.001)


def connects(port, rows, threads):
    fill_time_wait(rows)
    print(f"ready {rows}", flush=True)
    counter = [0]
    for _ in range(threads):
        threading.Thread(target=connect_loop, args=(port, counter), daemon=True).start()
    while True:
        before = counter[0]
        time.sleep(1)
        print(counter[0] - before, flush=True)


if __name__ == "__main__":
    if sys.argv[2] == "connects":
        connects(int(sys.argv[1]), int(sys.argv[3]), int(sys.argv[4]))
    url, kind, amount = sys.argv[1], sys.argv[2], int(sys.argv[3])
    code = asyncio.run(flood(url, kind, amount, origin=url.replace("ws://", "http://").rstrip("/")))
    print("sent" if code is None else f"closed {code}")
