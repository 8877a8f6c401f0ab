"""The hostile run's memory floods against a web bridge, with python3-websockets as the client:
one message of FRAGMENTS continuation frames of 64 KiB each, or one single frame of SIZE bytes.
Used by test_bridge_limits.py, and from the command line to measure any bridge:

    floods.py URL fragments COUNT | floods.py URL frame BYTES

prints how the connection ended (the close code, or "sent" when everything went through)."""

import asyncio
import sys

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


if __name__ == "__main__":
    url, kind, amount = sys.argv[1], sys.argv[2], int(sys.argv[3])
    code = asyncio.run(flood(url, kind, amount, origin=url.replace("ws://", "http://").rstrip("/")))
    print("sent" if code is None else f"closed {code}")
