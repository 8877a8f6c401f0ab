// The reference kiosk page: wires the client (carousel-client.js) to the renderer, the input
// handlers, the status line and the live region. Query parameters (docs/WEB.md):
//   ?ws=ws://HOST:PORT/   the bridge (default: this page's host and port)
//   ?cards=URL            a JSON array of at most 1000 {image, title, alt, link} over http(s),
//                         from this page's origin unless the bridge's --sources lists another;
//                         the page sets the count to its length; a tap on the centered card
//                         follows its link (http(s) only)
//   ?status=off           hide the status line (a kiosk); the cards take its row
//   ?geometry=off         never send set_geometry or set_count (a secondary display)
//   ?rate=HZ              highest STATE rate wanted
//   ?reduced-motion=tilt-off   with prefers-reduced-motion, also turn tilt off (set_tilt is
//                         global: it stops tilt for every display of this daemon)
// A value the page cannot use is named in the status line and the default applies.

import { CarouselClient } from "./carousel-client.js";
import { CarouselRenderer } from "./render.js";
import { CarouselInput } from "./input.js";
import { Announcer, describeRegion, reducedMotionQuery } from "./a11y.js";
import { StatusLine } from "./status.js";
import { fillCard, loadCards, numberedCard } from "./cards.js";
import { AutoplayControl } from "./autoplay.js";

const params = new URLSearchParams(location.search);
// A parameter the page cannot use is named in the status line, and its default applies.
const parameterErrors = [];
function parameter(name, valid, expected) {
  const value = params.get(name);
  if (value === null || valid(value)) return value;
  parameterErrors.push(`?${name}=${value.slice(0, 40)}: expected ${expected}`);
  return null;
}
const sendsGeometry = parameter("geometry", (v) => v === "off", "off") !== "off";
const MAX_RATE_HZ = 1000;
const rateText = parameter("rate", (v) => Number(v) > 0 && Number(v) <= MAX_RATE_HZ,
  `a rate in Hz above 0, at most ${MAX_RATE_HZ} (using the daemon's)`);
const rate = rateText === null ? undefined : Number(rateText);
const tiltOff = parameter("reduced-motion", (v) => v === "tilt-off", "tilt-off") === "tilt-off";
parameter("ws", (v) => { try { return /^wss?:$/.test(new URL(v).protocol); } catch { return false; } },
  "a ws: or wss: URL (using this page's bridge)");
parameter("cards", (v) => v !== "", "a URL of a card list");
const reducedMotion = reducedMotionQuery();

const stage = document.querySelector(".stage");
const root = document.querySelector("[data-carousel]");
const notice = document.querySelector(".notice");
const statusEl = document.querySelector("[data-carousel-status]");
// Hidden, not removed: its text (connection, notes) stays in the DOM for tests and debugging.
if (parameter("status", (v) => v === "off", "off") === "off") { statusEl.hidden = true; document.body.classList.add("no-status"); }
const status = new StatusLine(statusEl);
describeRegion(root, "Cards");

let cards = null; // null: numbered cards
const cardAt = (index) => (cards ? cards[index % cards.length] : numberedCard(index));

const wsURL = parameterErrors.some((e) => e.startsWith("?ws="))
  ? CarouselClient.defaultURL({ search: "", protocol: location.protocol, host: location.host })
  : CarouselClient.defaultURL(location);
const client = new CarouselClient({ url: wsURL, maxRateHz: rate });
const renderer = new CarouselRenderer(root, (el, index) => fillCard(el, cardAt(index), index),
  () => client.state?.count ?? client.layout?.count ?? 0);
const announcer = new Announcer(document.querySelector("[aria-live]"), (index) => cardAt(index).title);
new CarouselInput(root, client, { reducedMotion: () => reducedMotion.matches, activate: followLink });

/** Follows card `index`'s link (a safe http(s) URL, cards.js); false when it has none. */
function followLink(index) {
  const link = cards ? cards[index % cards.length]?.link : null;
  if (!link) return false;
  location.assign(link);
  return true;
}
const autoplay = new AutoplayControl(document.querySelector("[data-carousel-autoplay]"), client);

// For tests, benchmarks and the curious: what was sent, and the page's own cost per STATE.
const stats = { stateScriptMs: [], states: 0, late: 0, garbage: 0, errors: [], parameterErrors };
const sent = [];
window.carousel = { client, renderer, autoplay, sent, stats, drawnSeq: null };

// ---- geometry: the page tells the daemon its real viewport and a card size that suits it ----

/** Spacing between cards per style, as a fraction of the card length along the axis. */
const SPACING = { linear: 0.08, zoom: 0.04, stacked: 0, coverFlow: 0, rotary: 0, cylinder: 0 };
let sentGeometry = null;

function desiredGeometry(axis, style) {
  const width = Math.max(1, Math.floor(stage.clientWidth));
  const height = Math.max(1, Math.floor(stage.clientHeight));
  let item;
  if (axis === "vertical") {
    const w = Math.round(Math.min(width * 0.7, height * 0.9));
    item = { width: w, height: Math.max(1, Math.round(Math.min(w * 0.5625, height * 0.4))) };
  } else {
    const h = Math.round(height * 0.66);
    item = { width: Math.max(1, Math.round(Math.min(h * 0.75, width * 0.7))), height: Math.max(1, h) };
  }
  const along = axis === "vertical" ? item.height : item.width;
  return { viewport: { width, height }, item, spacing: Math.round(along * (SPACING[style] ?? 0.05)) };
}

function sendGeometry(force) {
  if (!sendsGeometry || !client.isOpen) return;
  const layout = client.layout;
  const g = desiredGeometry(layout?.axis ?? "horizontal", layout?.style ?? "linear");
  const key = JSON.stringify(g);
  if (!force && key === sentGeometry) return;
  sentGeometry = key;
  client.setGeometry(g);
}

// The picture's rotation on the panel (W3C screen.orientation.angle, clockwise): with
// [tilt] display_rotation = auto the daemon maps tilt to the picture as the viewer sees it.
function sendRotation() {
  if (!sendsGeometry || !client.isOpen || !screen.orientation) return;
  client.send({ cmd: "set_display_rotation", degrees: screen.orientation.angle });
}
screen.orientation?.addEventListener("change", sendRotation);

let resizeFrame = 0;
new ResizeObserver(() => {
  cancelAnimationFrame(resizeFrame);
  resizeFrame = requestAnimationFrame(() => sendGeometry(false));
}).observe(stage);

// ---- protocol events ----

client.addEventListener("sent", (e) => sent.push({ t: performance.now(), request: e.detail }));

client.addEventListener("connection", (e) => {
  const { status: s, message } = e.detail;
  status.setConnection(s, message);
  document.body.dataset.connection = s;
  if (s === "incompatible") showNotice(message);
  else if (s === "daemon-down" || s === "bridge-down") showNotice(message);
  else if (s === "open") showNotice(null);
  // Cards stay where they were while reconnecting (no jump); they are dimmed by the CSS.
});

client.addEventListener("ready", () => {
  sentGeometry = null;
  sendGeometry(true);
  sendRotation();
  if (sendsGeometry && cards) client.setCount(cards.length);
  if (reducedMotion.matches && tiltOff) client.setTilt({ enabled: false });
});

client.addEventListener("layout", (e) => {
  const layout = e.detail;
  renderer.setLayout(layout);
  document.documentElement.dir = layout.direction === "rtl" && layout.axis !== "vertical" ? "rtl" : "ltr";
  // Our card size depends on the axis and style: send it again if they differ from what we
  // assumed. Never in reply to another page's geometry (the last page to send wins).
  sendGeometry(false);
});

// A STATE is drawn as soon as it arrives, unless it arrives late: after a stall (a hung tab, a
// busy device) the bridge's socket buffers hand over seconds of old STATEs at once, and drawing
// each would replay the past. Lateness is the STATE's age on the page's clock (`time_ns` is the
// daemon's CLOCK_MONOTONIC: only differences count) above the smallest age seen, which tracks
// the transport's normal latency; late STATEs are coalesced and only the newest is drawn, once
// per frame.
const LATE_MS = 50;
let baselineAge = Infinity, baselineAt = 0, pendingState = null;

function lateness(state) {
  const now = performance.now();
  const age = now - state.time_ns / 1e6;
  if (!Number.isFinite(age)) return 0;
  // Let the baseline rise slowly (1 ms per second) so that clock drift cannot pin it.
  baselineAge = Math.min(age, baselineAge + (now - baselineAt) * 1e-3);
  baselineAt = now;
  return age - baselineAge;
}

function draw(state) {
  renderer.render(state.items, state.index);
  window.carousel.drawnSeq = state.seq;
  status.setState(state, client.sensor?.message);
}

client.addEventListener("state", (e) => {
  const state = e.detail;
  stats.states += 1;
  if (lateness(state) > LATE_MS) {
    stats.late += 1;
    if (!pendingState) requestAnimationFrame(() => { const s = pendingState; pendingState = null; if (s) draw(s); });
    pendingState = state;
    return;
  }
  pendingState = null;
  draw(state);
  const ms = performance.now() - client.messageReceivedAt;
  if (stats.stateScriptMs.length >= 8192) stats.stateScriptMs.shift();
  stats.stateScriptMs.push(ms);
});

client.addEventListener("index", (e) => announcer.announce(e.detail.index, client.state?.count ?? 0));

client.addEventListener("sensor", () => { if (client.state) status.setState(client.state, client.sensor?.message); });

client.addEventListener("error", (e) => {
  const m = e.detail;
  stats.errors.push(m);
  // not_allowed from the daemon (the bridge's user lacks control rights) or from the bridge (a
  // request it does not forward, which names itself).
  status.note(m.code === "not_allowed" && !/web bridge/.test(m.message ?? "")
    ? "this display may not control the carousel (the bridge's user needs the control group)"
    : `${m.cmd ?? "request"}: ${m.message}`);
});

client.addEventListener("garbage", () => { stats.garbage += 1; });

/** The card list's load error, if any: kept in the notice until the connection's own notices. */
let cardsError = null;

function showNotice(text) {
  const shown = text || cardsError;
  notice.hidden = !shown;
  notice.textContent = shown || "";
}

// ---- cards ----

if (parameterErrors.length) status.note(parameterErrors.join("; "));

const cardsURL = params.get("cards");
if (cardsURL) {
  loadCards(cardsURL, location.href).then(({ cards: list, notes }) => {
    cards = list;
    renderer.refill();
    if (client.isOpen && sendsGeometry) client.setCount(cards.length);
    if (notes.length) status.note(`cards: ${notes.join("; ")}`);
  }, (error) => {
    // On the page even with ?status=off: a kiosk showing numbered cards should say why.
    cardsError = `${error.message}; showing numbered cards`;
    status.note(cardsError);
    showNotice(cardsError);
  });
}

client.start();
