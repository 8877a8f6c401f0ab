"""Each style, LTR/RTL and vertical: every card element matches the STATE the daemon sent."""

import os

import pytest

from helpers import check_cards_match, daemon_truth, wait_page_at

CASES = [
    # name, [carousel] keys, rect check (2D styles: the rect is center ± size·scale/2)
    ("linear", {"style": "linear"}, True),
    ("zoom", {"style": "zoom"}, True),
    ("stacked", {"style": "stacked"}, True),
    ("coverFlow", {"style": "coverFlow"}, False),
    ("rotary", {"style": "rotary"}, False),
    ("cylinder", {"style": "cylinder"}, False),
    ("linear-rtl", {"style": "linear", "direction": "rtl"}, True),
    ("linear-vertical", {"style": "linear", "axis": "vertical"}, True),
    ("linear-cyclic", {"style": "linear", "cyclic": "yes", "count": "3"}, True),
]


@pytest.mark.parametrize("name,keys,rect_check", CASES, ids=[c[0] for c in CASES])
def test_cards_match_the_published_state(carousel, open_page, screenshot_dir, name, keys, rect_check):
    daemon, bridge = carousel({"carousel": keys}, name=name)
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    layout = page.layout()
    vertical = layout["axis"] == "vertical"
    along = layout["item"]["height"] if vertical else layout["item"]["width"]
    pitch = along + layout["spacing"]
    # Hold the carousel between two cards with a drag that has not ended (nothing moves while
    # the finger rests), so that every style shows a non-trivial, stable transform.
    ctl = daemon.client()
    start_index = 1 if keys.get("count") == "3" else 3
    ctl.request({"cmd": "scroll_to", "index": start_index, "animated": False})
    viewport_along = layout["viewport"]["height"] if vertical else layout["viewport"]["width"]
    ctl.request({"cmd": "drag", "phase": "began", "location": viewport_along / 2})
    ctl.request({"cmd": "drag", "phase": "moved", "location": viewport_along / 2 - 10 - 0.37 * pitch})
    layout, state = daemon_truth(daemon)
    assert state["phase"] == "dragging"
    assert abs(state["position"] - (start_index + 0.37)) < 0.02 or keys.get("direction") == "rtl", state["position"]
    wait_page_at(page, state["seq"])
    assert page.state()["seq"] == state["seq"]
    n = check_cards_match(page, state, layout, rect_check)
    if keys.get("cyclic") == "yes":
        instances = {i["instance"] for i in state["items"]}
        assert len(instances) > 1, "a cyclic carousel of 3 in a wide viewport shows several instances"
    path = os.path.join(screenshot_dir, f"{name}.png")
    page.driver.save_screenshot(path)
    print(f"{name}: {n} cards match STATE seq {state['seq']} (position {state['position']:.3f}); screenshot {path}")
    assert not page.console_errors()
    ctl.request({"cmd": "drag", "phase": "ended", "location": viewport_along / 2 - 10 - 0.37 * pitch, "velocity": 0})
    ctl.close()


def test_dom_contract_and_accessibility(carousel, open_page):
    daemon, bridge = carousel()
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    got = page.js("""
        const root = document.querySelector('[data-carousel]');
        const live = document.querySelector('[aria-live]');
        const cards = [...root.querySelectorAll('[data-index]')].filter(e => !e.hidden);
        return {role: root.getAttribute('role'), desc: root.getAttribute('aria-roledescription'),
                tab: root.tabIndex, live: live && live.getAttribute('aria-live'),
                status: !!document.querySelector('[data-carousel-status]'),
                autoplay: (b => b && {tag: b.tagName, hidden: b.hidden})(document.querySelector('[data-carousel-autoplay]')),
                labels: cards.map(c => [+c.dataset.index, c.getAttribute('aria-label'), c.getAttribute('aria-roledescription'),
                                        c.getAttribute('aria-current')])};
    """)
    status = page.status_text()
    assert "connected" in status and "no motion sensor" in status and "tilt disabled" in status, status
    assert got["role"] == "region" and got["desc"] == "carousel" and got["tab"] == 0
    assert got["live"] == "polite" and got["status"]
    # The autoplay pause control exists and is hidden while STATE autoplay is "off" (test_autoplay.py).
    assert got["autoplay"] == {"tag": "BUTTON", "hidden": True}, got["autoplay"]
    for index, label, desc, current in got["labels"]:
        assert label == f"{index + 1} of 10" and desc == "slide"
        assert (current == "true") == (index == 0)
    # Pooling: a million items never create more elements than are visible.
    ctl = daemon.client()
    ctl.request({"cmd": "set_count", "count": 1000000})
    for index in (10, 500000, 999999):
        ctl.request({"cmd": "scroll_to", "index": index, "animated": False})
        page.wait(f"const s = window.carousel.client.state; return s && s.index === {index}", 10, f"index {index}")
    layout, state = daemon_truth(daemon)
    wait_page_at(page, state["seq"])
    created, peak = page.js("return [window.carousel.renderer.created, window.carousel.renderer.peak]")
    assert created == peak <= 8, f"{created} card elements, at most {peak} visible at once"
    assert page.js("return document.querySelectorAll('[data-index]').length") == created
    # The live region announces the centered card when the carousel comes to rest (INDEX).
    ctl.request({"cmd": "scroll_to", "index": 7, "animated": True})
    page.wait("return document.querySelector('[aria-live]').textContent === '8 of 1000000: Card 8'", 10, "the announcement")
    ctl.close()


def test_cards_from_a_json_list(carousel, open_page, screenshot_dir):
    daemon, bridge = carousel(name="cards")
    page = open_page(bridge.url + "?cards=demo-cards.json")
    page.wait("return window.carousel.client.state && window.carousel.client.state.count === 8", 10,
              "the count set to the list's length")
    assert {"cmd": "set_count", "count": 8} in [s["request"] for s in page.sent()]
    page.wait_settled_geometry()
    first = page.js("""const c = document.querySelector('[data-carousel] [data-index="0"]');
        return [c.querySelector('img').getAttribute('src'), c.querySelector('.title').textContent]""")
    assert first == [bridge.url + "demo/card-1.svg", "Harbour at dusk"]
    page.wait("return [...document.images].every(i => i.complete && i.naturalWidth > 0)", 10, "the pictures")
    ctl = daemon.client()
    ctl.request({"cmd": "scroll_to", "index": 2, "animated": True})
    ctl.close()
    page.wait("return document.querySelector('[aria-live]').textContent === '3 of 8: Desert dunes'", 10, "the announcement")
    page.driver.save_screenshot(os.path.join(screenshot_dir, "cards.png"))
    # A list that does not load: numbered cards and a note, never a broken page.
    page = open_page(bridge.url + "?cards=no-such-list.json")
    page.wait("return document.querySelector('[data-carousel-status]').textContent.includes('HTTP 404')", 10, "the note")
    page.wait("return document.querySelector('[data-carousel] [data-index] .number') !== null", 10, "numbered cards")
