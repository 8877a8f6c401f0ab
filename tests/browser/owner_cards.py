"""The owner's cards as a kiosk builder sets them up (docs/KIOSK.md): the page installed by
`make install-web` into a temporary prefix (the same rule debian/rules uses), whose `cards`
link points at that prefix's etc/carouseld/cards, holding a card list and its pictures.
Shared by tests/browser and tests/kiosk."""

import json
import os
import subprocess

from conftest import ROOT

# Three cards whose pictures are told apart in a screenshot by their colour and big letter.
# Card 1 links to a page in the same folder; card 2's link is a script URL the page refuses;
# card 3 links to another site (never followed by the tests).
CARDS = [
    {"image": "red.svg", "title": "Opening hours", "alt": "A red card with the letter A", "link": "target.html?from=card1"},
    {"image": "green.svg", "title": "Today's menu", "alt": "A green card with the letter B", "link": "javascript:alert(1)"},
    {"image": "blue.svg", "title": "Find us", "alt": "A blue card with the letter C", "link": "https://example.invalid/map"},
]
COLOURS = {"red.svg": ("#d62828", "A"), "green.svg": ("#2a9d3f", "B"), "blue.svg": ("#1d4ed8", "C")}
# The linked page: all yellow, so a screenshot shows at a glance that the tap followed the link.
TARGET = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>linked page</title></head>
<body style="margin:0;background:#ffd60a;font:64px sans-serif;display:grid;place-items:center;height:100vh">
<p data-linked-page>Linked page</p></body></html>
"""


def svg(colour, letter):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 800"><rect width="600" height="800" fill="{colour}"/>'
            f'<text x="300" y="520" font-size="360" text-anchor="middle" fill="#fff" font-family="sans-serif">{letter}</text></svg>\n')


def install_web(dest, cards=CARDS):
    """`make install-web` into `dest` (PREFIX=dest/usr, SYSCONFDIR=dest/etc); writes `cards` (a
    list, or None for no card list) and the pictures into dest/etc/carouseld/cards. Returns
    (the page's folder, the cards folder)."""
    out = subprocess.run(["make", "-s", "-C", ROOT, "install-web", f"PREFIX={dest}/usr", f"SYSCONFDIR={dest}/etc"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"make install-web: {out.stdout} {out.stderr}"
    static = os.path.join(dest, "usr", "share", "carouseld", "web")
    folder = os.path.join(dest, "etc", "carouseld", "cards")
    assert os.readlink(os.path.join(static, "cards")) == folder, "the page's cards link points at the cards folder"
    for name, (colour, letter) in COLOURS.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(svg(colour, letter))
    with open(os.path.join(folder, "target.html"), "w") as f:
        f.write(TARGET)
    if cards is not None:
        with open(os.path.join(folder, "cards.json"), "w") as f:
            json.dump(cards, f, indent=1)
    for d in (dest, *(os.path.join(r, x) for r, ds, _ in os.walk(dest) for x in ds)):
        os.chmod(d, 0o755)  # the bridge, or the kiosk, may run as another user
    return static, folder
