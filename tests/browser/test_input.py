"""Pointer, tap, keyboard and resize input in the real page, against the real daemon."""

import json
import os
import subprocess
import time

from selenium.webdriver.common.keys import Keys

from conftest import BIN
from helpers import check_cards_match, daemon_truth, wait_page_at


def carousel_origin(page):
    return page.js("const r = document.querySelector('[data-carousel]').getBoundingClientRect(); return [r.left, r.top]")


def touch_path(page, points, step_ms):
    """A touch pressed at points[0] (carousel coordinates), moved through the others step_ms
    apart, released at the last one: real touch and pointer events in Chromium, dispatched
    through the DevTools protocol with explicit event times, so that the velocity the page
    measures does not depend on how fast this (shared, loaded) machine delivers them."""
    ox, oy = carousel_origin(page)
    t0 = time.time()

    def touch(kind, k, x, y):
        params = {"type": kind, "timestamp": t0 + k * step_ms / 1000,
                  "touchPoints": [] if kind == "touchEnd" else [{"x": ox + x, "y": oy + y, "id": 1}]}
        page.driver.execute_cdp_cmd("Input.dispatchTouchEvent", params)

    touch("touchStart", 0, *points[0])
    for k, (x, y) in enumerate(points[1:], start=1):
        touch("touchMove", k, x, y)
    touch("touchEnd", len(points), *points[-1])


def rest(page, timeout=15):
    return page.wait("const s = window.carousel.client.state; return s && s.phase === 'idle' && s", timeout, "the carousel at rest")


def at_index(page, daemon, index):
    ctl = daemon.client()
    ctl.request({"cmd": "scroll_to", "index": index, "animated": False})
    ctl.close()
    page.wait(f"const s = window.carousel.client.state; return s && s.index === {index} && s.phase === 'idle'", 10, f"index {index}")


def simulate(scenario, workdir):
    path = os.path.join(workdir, "fling-scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f, indent=1)
    out = subprocess.run([os.path.join(BIN, "carouselctl"), "simulate", path], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, f"carouselctl simulate {path}: {out.stderr}"
    frames = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    return path, frames[-1]


def test_fling_lands_where_simulate_predicts(carousel, open_page, workdir):
    daemon, bridge = carousel({"carousel": {"count": "20"}}, name="fling")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    at_index(page, daemon, 3)
    layout = page.layout()
    before = len(page.sent())
    y = layout["viewport"]["height"] / 2
    x0 = layout["viewport"]["width"] * 0.75
    touch_path(page, [(x0 - 30 * k, y) for k in range(11)], 12)  # 300 px left in ~120 ms
    final = rest(page)
    drags = [s for s in page.sent()[before:] if s["request"]["cmd"] == "drag"]
    phases = [d["request"]["phase"] for d in drags]
    assert phases[0] == "began" and phases[-1] == "ended" and set(phases[1:-1]) == {"moved"}, phases
    velocity = drags[-1]["request"]["velocity"]
    assert velocity < -500, f"a fast leftward fling, the page measured {velocity} px/s: {drags}"
    t0 = drags[0]["t"]
    events = [{"t": round((d["t"] - t0) / 1000, 4), "type": f"drag_{d['request']['phase']}",
               "location": d["request"]["location"],
               **({"velocity": d["request"]["velocity"]} if "velocity" in d["request"] else {})} for d in drags]
    scenario = {"viewport": layout["viewport"], "item": layout["item"], "spacing": layout["spacing"],
                "count": layout["count"], "cyclic": layout["cyclic"], "initialIndex": 3,
                "style": {"name": layout["style"]}, "events": events,
                "frames": {"at": [events[-1]["t"] + 8]}}
    path, last = simulate(scenario, workdir)
    print(f"fling: the page sent {len(drags)} drag requests, release velocity {velocity} px/s; "
          f"carouselctl simulate {path} predicts index {last['index']}; the daemon rested on {final['index']}")
    assert last["index"] == final["index"]
    assert final["index"] > 4, "a 300 px fling at that speed moves more than one card"


def test_tap_on_a_side_card_centers_it(carousel, open_page):
    daemon, bridge = carousel(name="tap")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    at_index(page, daemon, 3)
    card = page.js("""const root = document.querySelector('[data-carousel]'), r0 = root.getBoundingClientRect();
        const e = root.querySelector('[data-index="4"]'), r = e.getBoundingClientRect();
        return [r.left - r0.left + r.width / 2, r.top - r0.top + r.height / 2];""")
    before = len(page.sent())
    touch_path(page, [tuple(card)], 0)
    page.wait("const s = window.carousel.client.state; return s.index === 4 && s.phase === 'idle'", 10, "card 4 centered")
    taps = [s["request"] for s in page.sent()[before:]]
    assert [t["cmd"] for t in taps] == ["tap"], taps
    assert abs(taps[0]["location"] - card[0]) <= 1 and abs(taps[0]["cross"] - card[1]) <= 1


def test_keys_move_by_one_and_mirror_in_rtl(carousel, open_page):
    for direction, forward in (("ltr", Keys.ARROW_RIGHT), ("rtl", Keys.ARROW_LEFT)):
        daemon, bridge = carousel({"carousel": {"direction": direction}}, name=f"keys-{direction}")
        page = open_page(bridge.url)
        page.wait_settled_geometry()
        at_index(page, daemon, 3)
        root = page.driver.find_element("css selector", "[data-carousel]")
        page.js("arguments[0].focus()", root)
        root.send_keys(forward)
        page.wait("const s = window.carousel.client.state; return s.index === 4 && s.phase === 'idle'", 10, f"{direction}: index 4")
        root.send_keys(Keys.END)
        page.wait("const s = window.carousel.client.state; return s.index === 9 && s.phase === 'idle'", 10, "End: the last card")
        root.send_keys(Keys.HOME)
        page.wait("const s = window.carousel.client.state; return s.index === 0 && s.phase === 'idle'", 10, "Home: the first card")
        scrolls = [s["request"] for s in page.sent() if s["request"]["cmd"] == "scroll_to"]
        assert [s["index"] for s in scrolls] == [4, 9, 0]
        assert all(s["animated"] for s in scrolls)


def test_reduced_motion_scrolls_without_animation(carousel, browser, open_page):
    daemon, bridge = carousel(name="reduced")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    try:
        page = open_page(bridge.url)
        page.wait_settled_geometry()
        # Nothing focused (a kiosk remote): the keys still reach the carousel.
        page.driver.find_element("css selector", "body").send_keys(Keys.ARROW_RIGHT)
        page.wait("return window.carousel.client.state.index === 1", 10, "index 1")
        scrolls = [s["request"] for s in page.sent() if s["request"]["cmd"] == "scroll_to"]
        assert scrolls == [{"cmd": "scroll_to", "index": 1, "animated": False}]
        assert not any(s["request"]["cmd"] == "set_tilt" for s in page.sent()), "tilt stays on unless asked"
        # ?reduced-motion=tilt-off also turns tilt off (set_tilt is global: opt-in).
        page = open_page(bridge.url + "?reduced-motion=tilt-off")
        page.wait_settled_geometry()
        assert {"cmd": "set_tilt", "enabled": False} in [s["request"] for s in page.sent()]
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": ""}]})


def test_resize_sends_geometry_and_the_layout_follows(carousel, browser, open_page):
    daemon, bridge = carousel(name="resize")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    first = page.layout()
    size = browser.get_window_size()
    try:
        browser.set_window_size(760, 560)
        page.wait(f"const l = window.carousel.client.layout; return l && l.viewport.width !== {first['viewport']['width']}", 10,
                  "a LAYOUT with the new viewport")
        page.wait_settled_geometry()
        stage = page.js("const s = document.querySelector('.stage'); return [s.clientWidth, s.clientHeight]")
        layout, state = daemon_truth(daemon)
        assert [layout["viewport"]["width"], layout["viewport"]["height"]] == stage
        wait_page_at(page, state["seq"])
        check_cards_match(page, state, layout, rect_check=True)
        geometries = [s["request"] for s in page.sent() if s["request"]["cmd"] == "set_geometry"]
        assert len(geometries) >= 2 and geometries[-1]["viewport"] == layout["viewport"]
    finally:
        browser.set_window_size(size["width"], size["height"])


def test_geometry_off_never_sends_geometry(carousel, open_page):
    daemon, bridge = carousel(name="secondary")
    page = open_page(bridge.url + "?geometry=off")
    page.wait("return window.carousel.client.state && window.carousel.client.layout", 10, "a STATE")
    layout, state = daemon_truth(daemon)
    assert layout["viewport"] == {"width": 1280, "height": 800}, "the configured geometry stays"
    wait_page_at(page, state["seq"])
    check_cards_match(page, state, layout, rect_check=True)
    assert [s["request"]["cmd"] for s in page.sent()] == ["watch"]


def test_a_wheel_notch_moves_one_card(carousel, open_page):
    daemon, bridge = carousel(name="wheel")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    at_index(page, daemon, 3)
    ox, oy = carousel_origin(page)
    layout = page.layout()
    x, y = ox + layout["viewport"]["width"] / 2, oy + layout["viewport"]["height"] / 2
    before = len(page.sent())
    page.js("window.__wheels = []; document.addEventListener('wheel', (e) => { window.__wheels.push({"
            "deltaY: e.deltaY, timeStamp: e.timeStamp, target: e.target.className || e.target.tagName}); }, "
            "{ capture: true, passive: true }); return true")
    # The notch carries an event time 10 ms after the page's time origin: a notch in the page's
    # first moments is a whole notch too (the step cooldown counts from the previous step, and
    # before the first there is none).
    origin_ms = page.js("return performance.timeOrigin")
    page.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {
        "type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": 100, "timestamp": (origin_ms + 10) / 1000})
    try:
        page.wait("const s = window.carousel.client.state; return s.index === 4 && s.phase === 'idle'", 10, "one card on")
    except AssertionError as error:
        seen = page.js("const s = window.carousel.client.state; "
                       "return {wheels: window.__wheels, state: {index: s.index, phase: s.phase, seq: s.seq}}")
        raise AssertionError(f"{error}; the document received {seen['wheels']}; "
                             f"the page sent {[s['request'] for s in page.sent()[before:]]}; state {seen['state']}") from None
    page.driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": -20})
    # Under the 60 px step: nothing. The page's handler runs (and would send) in the event's own
    # dispatch, so once the document has the event, whatever it sends has been sent.
    page.wait("return window.__wheels.length === 2", 10, "the second wheel event at the document")
    assert [s["request"] for s in page.sent()[before:]] == [{"cmd": "scroll_to", "index": 4, "animated": True}]
