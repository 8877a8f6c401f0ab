"""The owner's cards (docs/KIOSK.md) in the real page, served by the real bridge from the folder
`make install-web` links: alt text, links followed on a tap of the centered card (http(s) only),
?status=off, no context menu, and a card list that fails to load saying why on the page and in
the bridge's log."""

import os
import tempfile

from conftest import Bridge, Daemon, wait_for
from owner_cards import CARDS, install_web
from test_input import at_index, touch_path


def owner_carousel(workdir, cards=CARDS):
    dest = tempfile.mkdtemp(prefix="owner-", dir=workdir)
    static, folder = install_web(dest, cards)
    daemon = Daemon(workdir, "owner", {})
    bridge = Bridge(workdir, socket_path=daemon.socket, extra=["--static", static])
    return daemon, bridge, folder


def centre_of(page, index):
    return page.js(f"""const root = document.querySelector('[data-carousel]'), r0 = root.getBoundingClientRect();
        const e = root.querySelector('[data-index="{index}"]'), r = e.getBoundingClientRect();
        return [r.left - r0.left + r.width / 2, r.top - r0.top + r.height / 2];""")


def test_safe_link_keeps_only_http_urls(carousel, open_page):
    daemon, bridge = carousel(name="safelink")
    page = open_page(bridge.url)
    got = page.driver.execute_async_script("""const done = arguments[0];
        import('./cards.js').then(m => done([
          m.safeLink('offer.html', 'https://k/cards/list.json'),
          m.safeLink('/x?y=1', 'http://127.0.0.1:8780/cards/list.json'),
          m.safeLink('https://example.org/a', 'http://k/'),
          m.safeLink('javascript:alert(1)', 'http://k/'), m.safeLink(' JavaScript:alert(1)', 'http://k/'),
          m.safeLink('data:text/html,<script>1</script>', 'http://k/'), m.safeLink('file:///etc/passwd', 'http://k/'),
          m.safeLink('blob:http://k/1', 'http://k/'), m.safeLink(42, 'http://k/'), m.safeLink('', 'http://k/')]));""")
    assert got == ["https://k/cards/offer.html", "http://127.0.0.1:8780/x?y=1", "https://example.org/a",
                   None, None, None, None, None, None, None]


def test_own_cards_alt_text_links_and_the_refused_link(workdir, open_page):
    daemon, bridge, folder = owner_carousel(workdir)
    try:
        page = open_page(bridge.url + "?cards=cards/cards.json")
        page.wait("return window.carousel.client.state && window.carousel.client.state.count === 3", 10, "count 3")
        page.wait("return [...document.images].length > 0 && [...document.images].every(i => i.complete && i.naturalWidth > 0)", 10, "the pictures")
        first = page.js("""const c = document.querySelector('[data-carousel] [data-index="0"]');
            return [c.querySelector('img').getAttribute('src'), c.querySelector('img').alt, c.dataset.link]""")
        assert first == [bridge.url + "cards/red.svg", "A red card with the letter A", bridge.url + "cards/target.html?from=card1"]
        at_index(page, daemon, 1)
        second = page.js("""const c = document.querySelector('[data-carousel] [data-index="1"]');
            return [c.querySelector('img').alt, c.dataset.link === undefined, c.getAttribute('aria-current')]""")
        assert second == ["A green card with the letter B", True, "true"]
        assert "card 2: link refused, only http(s) URLs" in page.status_text()
    finally:
        bridge.stop(); daemon.stop()


def test_a_tap_on_the_centered_card_follows_its_link_and_on_a_side_card_centers_it(workdir, open_page):
    daemon, bridge, folder = owner_carousel(workdir)
    try:
        page = open_page(bridge.url + "?cards=cards/cards.json")
        page.wait("return window.carousel.client.state && window.carousel.client.state.count === 3", 10, "count 3")
        page.wait_settled_geometry()
        at_index(page, daemon, 1)
        # Card 2 is centered: its link was refused, so a tap on it is a plain `tap`.
        before = len(page.sent())
        touch_path(page, [tuple(centre_of(page, 1))], 0)
        page.wait(f"return window.carousel.sent.length > {before}", 10, "the tap")
        assert [s["request"]["cmd"] for s in page.sent()[before:]] == ["tap"]
        # A tap on the side card 1 centers it (a tap, no navigation).
        before = len(page.sent())
        touch_path(page, [tuple(centre_of(page, 0))], 0)
        page.wait("const s = window.carousel.client.state; return s.index === 0 && s.phase === 'idle'", 10, "card 1 centered")
        assert [s["request"]["cmd"] for s in page.sent()[before:]] == ["tap"]
        assert page.driver.current_url.startswith(bridge.url + "?")
        # A tap on the centered card 1 follows its link, and sends nothing.
        before = len(page.sent())
        touch_path(page, [tuple(centre_of(page, 0))], 0)
        wait_for(lambda: page.driver.current_url == bridge.url + "cards/target.html?from=card1", 10, "the linked page")
        assert page.js("return document.querySelector('[data-linked-page]').textContent") == "Linked page"
        # Enter follows the centered card's link too (a keyboard or remote).
        page = open_page(bridge.url + "?cards=cards/cards.json")
        page.wait("return window.carousel.client.state && window.carousel.client.state.index === 0 && document.querySelector('[data-index=\"0\"][data-link]')", 10, "card 1 centered")
        page.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13})
        page.driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13})
        wait_for(lambda: page.driver.current_url == bridge.url + "cards/target.html?from=card1", 10, "the linked page")
    finally:
        bridge.stop(); daemon.stop()


def test_status_off_hides_the_line_and_the_stage_takes_its_row(carousel, open_page, browser):
    daemon, bridge = carousel(name="status-off")
    page = open_page(bridge.url + "?status=off")
    page.wait_settled_geometry()
    shown = page.js("""const s = document.querySelector('[data-carousel-status]');
        return [s.hidden, s.getBoundingClientRect().height, document.querySelector('.stage').clientHeight, innerHeight]""")
    assert shown[0] is True and shown[1] == 0 and shown[2] == shown[3], shown
    assert page.layout()["viewport"]["height"] == shown[3]
    # The status line still knows the connection (for tests and debugging), it is just not shown.
    assert page.js("return document.querySelector('[data-carousel-status]').dataset.connection") == "open"


def test_a_long_press_opens_no_context_menu(carousel, open_page):
    daemon, bridge = carousel(name="contextmenu")
    page = open_page(bridge.url)
    page.wait_settled_geometry()
    prevented = page.js("""const card = document.querySelector('[data-carousel] [data-index]:not([hidden])');
        const e = new MouseEvent('contextmenu', {bubbles: true, cancelable: true});
        return [card.dispatchEvent(e), e.defaultPrevented]""")
    assert prevented == [False, True]


def test_a_card_list_that_fails_says_why_on_the_page_and_in_the_log(workdir, open_page):
    daemon, bridge, folder = owner_carousel(workdir, cards=None)
    try:
        log = open(bridge.log_path).read()
        assert f"carouseld-web: no card list {bridge_static(bridge)}/cards/cards.json: pages given ?cards=cards/cards.json show numbered cards" in log, log
        page = open_page(bridge.url + "?cards=cards/cards.json&status=off")
        page.wait("const n = document.querySelector('.notice'); return !n.hidden && n.textContent.includes('HTTP 404')", 10, "the notice")
        assert page.js("return document.querySelector('.notice').textContent") == \
            f"cards {bridge.url}cards/cards.json: HTTP 404; showing numbered cards"
        page.wait("return document.querySelector('[data-carousel] [data-index] .number') !== null", 10, "numbered cards")
    finally:
        bridge.stop(); daemon.stop()
    # Not JSON: the log says so when the bridge starts.
    with open(os.path.join(folder, "cards.json"), "w") as f:
        f.write('{"title": "not a list"}\n')
    bridge = Bridge(workdir, socket_path=daemon.socket, extra=["--static", bridge_static(bridge)])
    try:
        log = wait_for(lambda: "card list" in open(bridge.log_path).read() and open(bridge.log_path).read(), 5, "the log line")
        assert "cards/cards.json: not a JSON array of {image, title, alt, link}; pages show numbered cards" in log, log
    finally:
        bridge.stop()
    # The owner's commonest slip, a comma after the last entry: the log names its line and column.
    # A byte order mark (as some editors save UTF-8) is no error: the page's fetch() skips it too.
    for text, says in [
        (b'[\n {"image": "a.jpg", "title": "A"},\n]\n',
         "cards/cards.json: not valid JSON: Expecting value at line 3 column 1; pages show numbered cards"),
        (b'[\n {"title": "caf\xe9"}\n]\n', "cards/cards.json: not UTF-8 text (byte 18, line 2); pages show numbered cards"),
        (b'[]', "cards/cards.json: an empty array; pages show numbered cards"),
        # Deeper than Python's parser recurses: named, where the bridge used to end with a traceback.
        (b'[' * 100000, "cards/cards.json: not usable JSON: nested too deeply; pages show numbered cards"),
        (b'\xef\xbb\xbf[{"title": "A"}]\n', "cards/cards.json: served as /cards/cards.json"),
        # Keys the page does not know (a misspelt "img", a capital "Image") are ignored by it
        # without a word: the log names each entry, and an entry left with nothing to show.
        (b'[{"img": "a.jpg", "title": "A"}, {"Image": "b.jpg"}, 7]',
         "cards/cards.json: served as /cards/cards.json\n"
         f"carouseld-web: card list {bridge_static(bridge)}/cards/cards.json: entry 1: unknown key 'img' (the keys are image, title, alt, link), ignored\n"
         f"carouseld-web: card list {bridge_static(bridge)}/cards/cards.json: entry 2 has neither an image nor a title; skipped: unknown key 'Image' (the keys are image, title, alt, link)\n"
         f"carouseld-web: card list {bridge_static(bridge)}/cards/cards.json: entry 3 is not an object {{image, title, alt, link}}; skipped\n"),
        (b'[{"Title": "A", "Image": "a.jpg"}]',
         "cards/cards.json: no entry with an image or a title (entry 1 has neither an image nor a title; skipped: "
         "unknown keys 'Title', 'Image' (the keys are image, title, alt, link)); pages show numbered cards"),
    ]:
        with open(os.path.join(folder, "cards.json"), "wb") as f:
            f.write(text)
        bridge = Bridge(workdir, socket_path=daemon.socket, extra=["--static", bridge_static(bridge)])
        try:
            log = wait_for(lambda: "card list" in open(bridge.log_path).read() and open(bridge.log_path).read(), 5, "the log line")
            assert says in log, log
        finally:
            bridge.stop()


def bridge_static(bridge):
    argv = bridge.process.args
    return argv[argv.index("--static") + 1]
