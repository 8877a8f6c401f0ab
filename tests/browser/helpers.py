"""Comparisons of the DOM with the STATE carouseld sent (the issue's rendering contract)."""

import re

IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]


def parse_transform(css):
    """A computed CSS transform as 16 numbers in matrix3d argument order (= CATransform3D's
    m11…m44 order). Chromium serialises a 2D-representable matrix as matrix(a, b, c, d, e, f)."""
    if css in ("none", ""):
        return list(IDENTITY)
    m = re.fullmatch(r"(matrix3d|matrix)\((.*)\)", css.strip())
    assert m, f"unexpected computed transform {css!r}"
    v = [float(x) for x in m.group(2).split(",")]
    if m.group(1) == "matrix3d":
        assert len(v) == 16, css
        return v
    a, b, c, d, e, f = v
    return [a, b, 0, 0, c, d, 0, 0, 0, 0, 1, 0, e, f, 0, 1]


def daemon_truth(daemon):
    """The daemon's current STATE with items and its LAYOUT, from a watcher of our own."""
    c = daemon.client()
    try:
        c.send({"cmd": "watch", "items": True})
        assert c.read()["class"] == "WATCH"
        layout = c.read()
        assert layout["class"] == "LAYOUT", layout
        state = c.read_class("STATE")
        return layout, state
    finally:
        c.close()


def wait_page_at(page, seq, timeout=10):
    page.wait(f"return window.carousel.drawnSeq >= {int(seq)}", timeout, f"the page to draw STATE seq {seq}")


def check_cards_match(page, state, layout, rect_check):
    """Every item of `state` has exactly one shown card element at the published place: box
    centered at `center` with the published `size`, transform = the published matrix within 1e-3
    (about the card's center), opacity = alpha, z-index = round(zIndex); and, when `rect_check`
    (linear, zoom, stacked), the element's rect = center ± size·scale/2 within 1 px. Returns the
    number of cards checked."""
    root = page.js("const r = document.querySelector('[data-carousel]').getBoundingClientRect(); return [r.width, r.height]")
    assert abs(root[0] - layout["viewport"]["width"]) < 0.5 and abs(root[1] - layout["viewport"]["height"]) < 0.5, \
        f"[data-carousel] is {root}, the published viewport {layout['viewport']}"
    cards = page.cards()
    by_key = {}
    for card in cards:
        key = (card["index"], card["instance"])
        assert key not in by_key, f"two elements for item {key}"
        by_key[key] = card
    items = state["items"]
    assert items, "the STATE has no items"
    assert set(by_key) == {(i["index"], i["instance"]) for i in items}, \
        f"cards {sorted(by_key)} vs items {sorted((i['index'], i['instance']) for i in items)}"
    for item in items:
        card = by_key[(item["index"], item["instance"])]
        w, h = item["size"]
        cx, cy = item["center"]
        where = f"item {item['index']}/{item['instance']}"
        left, top, bw, bh = card["box"]
        assert abs(left - (cx - w / 2)) <= 1 and abs(top - (cy - h / 2)) <= 1, f"{where}: box at {card['box']}, center {item['center']}"
        assert abs(bw - w) <= 1 and abs(bh - h) <= 1, f"{where}: box {card['box']}, size {item['size']}"
        ox, oy = [float(x.replace("px", "")) for x in card["origin"].split()[:2]]
        assert abs(ox - w / 2) < 0.5 and abs(oy - h / 2) < 0.5, f"{where}: transform-origin {card['origin']}"
        got = parse_transform(card["transform"])
        for k, (a, e) in enumerate(zip(got, item["transform"])):
            assert abs(a - e) <= 1e-3, f"{where}: transform[{k}] {a} vs published {e} ({card['transform']})"
        assert abs(card["opacity"] - item["alpha"]) <= 1e-3, f"{where}: opacity {card['opacity']} vs alpha {item['alpha']}"
        assert card["z"] == str(round(item["zIndex"])), f"{where}: z-index {card['z']} vs zIndex {item['zIndex']}"
        if rect_check:
            sx, sy = item["scale"]
            expect = [cx - w * sx / 2, cy - h * sy / 2, w * sx, h * sy]
            for k, (a, e) in enumerate(zip(card["rect"], expect)):
                assert abs(a - e) <= 1, f"{where}: rect {card['rect']} vs center ± size·scale/2 {expect}"
    return len(items)
