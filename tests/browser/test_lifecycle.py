"""Tilt from a replayed recording, a daemon restart under the page, and what a real daemon never
sends (garbage lines, another proto_major) through the scripted server behind the bridge."""

import json
import os

from conftest import ROOT, wait_for
from helpers import check_cards_match, daemon_truth, wait_page_at


def test_replayed_tilt_recording_moves_the_carousel(carousel, open_page):
    daemon, bridge = carousel({
        "sensor": {"source": "replay", "replay_file": os.path.join(ROOT, "data", "demo-recording.csv"),
                   "replay_loop": "yes", "replay_speed": "2"},
        "tilt": {"enabled": "yes"},
        "carousel": {"count": "20", "cyclic": "yes"},
    }, name="tilt")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    # Record what the page draws as the recording tilts the device: the centered card changes
    # and the page goes through the "tilting" phase, showing the roll on the status line.
    page.js("""window.__seen = {phases: new Set(), indices: new Set(), centered: new Set()};
        window.carousel.client.addEventListener('state', (e) => {
            __seen.phases.add(e.detail.phase); __seen.indices.add(e.detail.index);
            const c = document.querySelector('[data-carousel] [aria-current="true"]');
            if (c) __seen.centered.add(+c.dataset.index);
        });""")
    seen = page.wait("""return window.__seen.phases.has('tilting') && window.__seen.centered.size >= 3
        && {phases: [...__seen.phases], indices: [...__seen.indices], centered: [...__seen.centered]}""",
                     20, "the replayed tilt moving the carousel by several cards")
    assert set(seen["centered"]) <= set(seen["indices"])
    status = page.status_text()
    assert "replaying a recording" in status and "roll" in status, status
    print(f"tilt replay: phases {sorted(seen['phases'])}, centered cards seen {sorted(seen['centered'])}")


def test_daemon_restart_reconnects_and_shows_the_state_again(carousel, open_page):
    daemon, bridge = carousel(name="restart")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    ctl = daemon.client()
    ctl.request({"cmd": "scroll_to", "index": 5, "animated": False})
    ctl.close()
    page.wait("return window.carousel.client.state.index === 5", 10, "index 5")
    shown = "return [...document.querySelectorAll('[data-carousel] [data-index]:not([hidden])')].map(e => { const r = e.getBoundingClientRect(); return [e.dataset.index, r.left, r.top, r.width, r.height]; })"
    cards_before = page.js(shown)
    daemon.stop()
    page.wait("return window.carousel.client.status === 'daemon-down'", 10, "the page to notice the daemon is gone")
    assert "carouseld is not running" in page.status_text() or "carouseld went away" in page.status_text(), page.status_text()
    assert page.js("return !document.querySelector('.notice').hidden")
    # The cards stay exactly in place (dimmed) while the daemon is away: nothing jumps.
    assert page.js(shown) == cards_before
    daemon.start()
    page.wait("return window.carousel.client.status === 'open'", 15, "the page to reconnect")
    page.wait_settled_geometry()
    geometries = [s for s in page.sent() if s["request"]["cmd"] == "set_geometry"]
    assert len(geometries) >= 2, "set_geometry again on reconnect"
    layout, state = daemon_truth(daemon)
    assert state["index"] == 0, "a new daemon starts on card 0"
    wait_page_at(page, state["seq"])
    check_cards_match(page, state, layout, rect_check=True)
    assert page.js("return document.querySelector('.notice').hidden")


VERSION = {"class": "VERSION", "release": "0.1.0", "proto_major": 1, "proto_minor": 1}
LAYOUT = {"class": "LAYOUT", "viewport": {"width": 600, "height": 400}, "item": {"width": 200, "height": 300},
          "spacing": 20, "axis": "horizontal", "direction": "ltr", "style": "linear", "cyclic": False, "count": 5}


def item(index, x, scale=1.0):
    return {"index": index, "instance": 0, "center": [x, 200], "size": [200, 300], "scale": [1, scale],
            "alpha": 0.9, "zIndex": -abs(x - 300), "transform": [1, 0, 0, 0, 0, scale, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]}


def test_garbage_lines_never_break_the_page(scripted_bridge, open_page):
    good = [item(0, 300), item(1, 520, 0.8)]
    state = {"class": "STATE", "seq": 7, "time_ns": 1, "index": 0, "position": 0, "offset": 0, "velocity": 0,
             "phase": "idle", "count": 5, "tilt": {"roll_deg": None, "pitch_deg": None, "enabled": True},
             "sensor": "ok",
             "items": good + [
                 {"index": 2, "instance": 0, "center": ["x", 1], "size": [200, 300], "transform": [1] * 16},
                 {"index": 3, "instance": 0, "center": [700, 200], "size": [200, 300], "transform": [1, 0, 0]},
                 None, 17, "card",
             ]}
    garbage = ["not json at all", '{"class":', "[1,2,3]", '{"no_class":1}', "null", '"STATE"',
               '{"class":"STATE","seq":1}', '{"class":"LAYOUT","viewport":{"width":-5,"height":"x"}}',
               '{"class":"FUTURE_MESSAGE","x":1}', "\u00ff\u00fe binary-ish", "{" * 500]
    bridge = scripted_bridge([json.dumps(VERSION), *garbage[:6], json.dumps(LAYOUT), *garbage[6:],
                              json.dumps(state), "#sleep 0.2", *garbage])
    page = open_page(bridge.url)
    page.wait("return window.carousel.client.state && window.carousel.client.state.seq === 7", 10, "the scripted STATE")
    # Every garbage line is counted twice (before and after the STATE), except the unknown class.
    page.wait(f"return window.carousel.stats.garbage >= {2 * (len(garbage) - 1)}", 10, "every garbage line counted")
    cards = page.cards()
    assert sorted(c["index"] for c in cards) == [0, 1], cards
    check_cards_match(page, {"items": good}, LAYOUT, rect_check=True)
    assert page.js("return window.carousel.client.status") == "open"
    assert "no tilt estimate yet" in page.status_text(), page.status_text()
    assert not page.console_errors()
    received = wait_for(lambda: os.path.exists(bridge.received) and open(bridge.received).read(), 5, "the page's requests")
    assert '"cmd":"watch"' in received


def test_another_proto_major_is_a_clear_message(scripted_bridge, open_page):
    bridge = scripted_bridge([json.dumps({**VERSION, "proto_major": 2, "proto_minor": 0}), json.dumps(LAYOUT)])
    page = open_page(bridge.url)
    page.wait("return window.carousel.client.status === 'incompatible'", 10, "the incompatible status")
    notice = page.js("const n = document.querySelector('.notice'); return !n.hidden && n.textContent")
    assert notice and "protocol 2.0" in notice and "1.x" in notice, notice
    assert page.js("return document.querySelectorAll('[data-index]').length") == 0
    # The page closed its WebSocket; once the bridge's connection ends, it has forwarded all the
    # page sent.
    received = wait_for(lambda: os.path.exists(bridge.received) and (lambda t: t if "# connection closed" in t else None)(
        open(bridge.received).read()), 10, "the bridge's connection to end")
    assert "watch" not in received and "set_geometry" not in received, received
    assert not page.console_errors()


def test_control_rights_come_from_the_control_group(carousel, open_page):
    """The bridge runs as its own user: outside control_group the page is told why it cannot
    drive the carousel; inside (the default install's carouseld-control) it can."""
    if os.geteuid() != 0:
        raise AssertionError("this test needs root: it runs the bridge as uid 65534 with setpriv (CI runs as root)")
    # Not in the group: the daemon refuses the page's set_geometry, and the page says why.
    daemon, bridge = carousel({"server": {"socket_mode": "0666", "control_group": ""}}, name="rights-none", bridge_uid=65534)
    page = open_page(bridge.url)
    page.wait("return document.querySelector('[data-carousel-status]').textContent.includes('may not control')", 10,
              "the not_allowed note")
    assert page.js("return window.carousel.stats.errors[0].code") == "not_allowed"
    assert page.layout()["viewport"] == {"width": 1280, "height": 800}, "the geometry did not change"
    # In the group (numeric gid 65534, the bridge's group here): the page controls.
    daemon, bridge = carousel({"server": {"socket_mode": "0666", "control_group": "65534"}}, name="rights-group", bridge_uid=65534)
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    assert page.js("return window.carousel.stats.errors.length") == 0
