"""Autoplay on the page (issue 16, WCAG 2.2.2): with `[carousel] autoplay_s` the daemon advances
the cards by itself and the page shows a visible pause control, `[data-carousel-autoplay]`; the
control sends `set_autoplay {paused}`, after which the cards stop until it is pressed again.
Without autoplay the control is hidden."""

import os
import time

from helpers import daemon_truth

CENTERED = "const c = document.querySelector('[data-carousel] [aria-current=\"true\"]'); return c ? +c.dataset.index : null"


def centered_cards_during(page, seconds):
    """The centered card's index, sampled every 50 ms for `seconds`, without repeats."""
    seen = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        i = page.js(CENTERED)
        if i is not None and (not seen or seen[-1] != i):
            seen.append(i)
        time.sleep(0.05)
    return seen


def test_autoplay_advances_the_cards_and_the_pause_control_stops_them(carousel, open_page, screenshot_dir):
    daemon, bridge = carousel({"carousel": {"count": "6", "cyclic": "yes", "autoplay_s": "0.4",
                                            "autoplay_resume_s": "1"}}, name="autoplay")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    page.wait("return window.carousel.client.state.autoplay === 'running'", 10, "STATE autoplay running")
    button = page.driver.find_element("css selector", "[data-carousel-autoplay]")
    assert button.is_displayed()
    assert button.get_attribute("aria-pressed") == "false"
    assert button.tag_name == "button" and button.accessible_name == "Pause autoplay"

    # Running: every 0.4 s at rest (plus the step's animation) the next card is centered.
    running = centered_cards_during(page, 3.0)
    assert len(running) >= 3, running
    assert all((b - a) % 6 == 1 for a, b in zip(running, running[1:])), running

    button.click()
    page.wait("return window.carousel.client.state.autoplay === 'paused'", 5, "STATE autoplay paused")
    assert button.get_attribute("aria-pressed") == "true"
    page.driver.save_screenshot(os.path.join(screenshot_dir, "autoplay-paused.png"))
    assert any(s["request"] == {"cmd": "set_autoplay", "paused": True} for s in page.sent())
    page.wait("return window.carousel.client.state.phase === 'idle'", 5, "the last step to land")
    stopped_at = page.js(CENTERED)
    # Paused: 2 s is five intervals, and the autoplay resume delay (1 s) does not lift a user's pause.
    assert centered_cards_during(page, 2.0) == [stopped_at]
    layout, state = daemon_truth(daemon)
    assert state["index"] == stopped_at and state["autoplay"] == "paused", state

    button.click()
    page.wait("return window.carousel.client.state.autoplay === 'running'", 5, "STATE autoplay running again")
    assert button.get_attribute("aria-pressed") == "false"
    resumed = centered_cards_during(page, 2.0)
    assert len(resumed) >= 2 and resumed[0] == stopped_at, resumed
    assert page.console_errors() == []


def test_without_autoplay_the_control_is_hidden(carousel, open_page):
    daemon, bridge = carousel(name="no-autoplay")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    assert page.state()["autoplay"] == "off"
    button = page.driver.find_element("css selector", "[data-carousel-autoplay]")
    assert not button.is_displayed()
    assert page.js("return document.querySelector('[data-carousel-autoplay]').hidden") is True
