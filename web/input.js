// Pointer, keyboard and wheel input → protocol requests. The page keeps no physics: it reports
// where the finger is and how fast it left, and the daemon's engine decides where the carousel
// goes (paging, deceleration, rubber band).
//
// Pointer (touch, mouse, pen): a press on a carousel at rest sends nothing until the pointer has
// moved SLOP px along the axis; then `drag began` at the press location, `moved` for every
// move, `ended` with the release velocity measured here (px/s over the last VELOCITY_WINDOW_MS;
// 0 when the pointer rested longer than that before lifting). A press on a moving carousel sends
// `drag began` at once, so the finger catches it, as on iOS. A press released without moving
// SLOP px is a `tap` at its location (along and across the axis), except on the centered card
// of a carousel at rest: that tap is the card's activation (options.activate: app.js follows
// the card's link), and a `tap` is sent only when the card has nothing to activate.
// Enter or Space on the carousel (or with nothing focused) activates the centered card too.
// A long press opens no context menu (`contextmenu` is cancelled on the carousel).
//
// Keyboard (the carousel element has focus, or nothing has): ←/→ for a horizontal carousel (mirrored in RTL:
// → goes to the card on the right, which is the previous index), ↑/↓ for a vertical one; Home
// and End go to the first and last card; PageUp/PageDown move by the number of cards that fit
// in the viewport. Each is a `scroll_to` of the target index (animated unless the user prefers
// reduced motion); presses during an animation add up from its target. Cyclic carousels wrap.
//
// Wheel and trackpad: the delta along the carousel's axis (for a horizontal carousel a plain
// vertical wheel counts too) is accumulated; every WHEEL_STEP_PX moves one card, at most one
// card per WHEEL_COOLDOWN_MS, and the sum is forgotten after WHEEL_IDLE_MS without events.

export const SLOP = 8;
export const VELOCITY_WINDOW_MS = 100;
export const WHEEL_STEP_PX = 60;
export const WHEEL_COOLDOWN_MS = 180;
export const WHEEL_IDLE_MS = 250;

export class CarouselInput {
  /**
   * @param {HTMLElement} root  the [data-carousel] element
   * @param {import("./carousel-client.js").CarouselClient} client
   * @param {{reducedMotion: () => boolean, activate?: (index: number) => boolean}} options
   *   activate: called with the centered card's index on a tap on it or Enter/Space; returns
   *   whether it did something (then no `tap` is sent)
   */
  constructor(root, client, { reducedMotion, activate = () => false }) {
    this.root = root;
    this.client = client;
    this.reducedMotion = reducedMotion;
    this.activate = activate;
    this.pointer = null;
    this.pendingTarget = null;
    // Event times start at the page's time origin, so "no wheel event yet" and "no step yet"
    // are -Infinity: a notch in the page's first WHEEL_COOLDOWN_MS is a whole notch.
    this.wheel = { sum: 0, last: -Infinity, stepAt: -Infinity };
    root.addEventListener("pointerdown", (e) => this._down(e));
    root.addEventListener("pointermove", (e) => this._move(e));
    root.addEventListener("pointerup", (e) => this._up(e, false));
    root.addEventListener("pointercancel", (e) => this._up(e, true));
    root.addEventListener("lostpointercapture", (e) => { if (this.pointer && e.pointerId === this.pointer.id) this._up(e, true); });
    root.addEventListener("keydown", (e) => this._key(e));
    // A kiosk keyboard or remote with nothing focused still drives the carousel.
    document.addEventListener("keydown", (e) => { if (e.target === document.body) this._key(e); });
    root.addEventListener("wheel", (e) => this._wheel(e), { passive: false });
    root.addEventListener("dragstart", (e) => e.preventDefault()); // images are not draggable
    // A long press (touch) or a right click opens no browser menu over the kiosk.
    root.addEventListener("contextmenu", (e) => e.preventDefault());
    client.addEventListener("index", () => { this.pendingTarget = null; });
    client.addEventListener("state", (e) => {
      const phase = e.detail.phase;
      if (phase === "idle" || phase === "dragging" || phase === "tilting") this.pendingTarget = null;
    });
  }

  get horizontal() { return (this.client.layout?.axis ?? "horizontal") !== "vertical"; }
  get rtl() { return this.horizontal && this.client.layout?.direction === "rtl"; }

  /** Pointer position in carousel coordinates: [along, cross]. */
  _point(e) {
    const r = this.root.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    return this.horizontal ? [x, y] : [y, x];
  }

  _down(e) {
    if (this.pointer || !this.client.isOpen) return;
    if (e.pointerType === "mouse" && e.button !== 0) return;
    const [along, cross] = this._point(e);
    this.root.setPointerCapture?.(e.pointerId);
    const phase = this.client.state?.phase;
    const moving = phase && phase !== "idle" && phase !== "tilting";
    // The centered card of a carousel at rest, when the press is on it (a tap may activate it).
    const card = moving ? null : e.target.closest?.('[data-index][aria-current="true"]') ?? null;
    this.pointer = { id: e.pointerId, start: along, cross, began: false, card, samples: [[e.timeStamp, along]] };
    if (moving) this._begin();
    e.preventDefault();
  }

  _begin() {
    this.pointer.began = true;
    this.pendingTarget = null;
    this.client.drag("began", this.pointer.start);
  }

  _move(e) {
    const p = this.pointer;
    if (!p || e.pointerId !== p.id) return;
    const events = e.getCoalescedEvents ? e.getCoalescedEvents() : [];
    for (const c of events.length ? events : [e]) {
      const [along] = this._point(c);
      p.samples.push([c.timeStamp, along]);
    }
    trim(p.samples, e.timeStamp);
    const [along] = this._point(e);
    if (!p.began && Math.abs(along - p.start) >= SLOP) this._begin();
    if (p.began) this.client.drag("moved", along);
  }

  _up(e, cancelled) {
    const p = this.pointer;
    if (!p || e.pointerId !== p.id) return;
    this.pointer = null;
    const [along] = this._point(e);
    if (!p.began) {
      if (cancelled) return;
      if (p.card && this.activate(Number(p.card.dataset.index))) return;
      this.client.tap(p.start, p.cross);
      return;
    }
    p.samples.push([e.timeStamp, along]);
    trim(p.samples, e.timeStamp);
    const velocity = cancelled ? 0 : releaseVelocity(p.samples, e.timeStamp);
    this.client.drag("ended", along, Math.round(velocity * 1000) / 1000);
  }

  _target(delta) {
    const state = this.client.state;
    const count = state?.count ?? 0;
    if (!count || state.index === null || state.index === undefined) return null;
    const base = this.pendingTarget ?? state.index;
    const next = base + delta;
    if (this.client.layout?.cyclic) return ((next % count) + count) % count;
    return Math.min(Math.max(next, 0), count - 1);
  }

  _go(index) {
    if (index === null) return;
    this.pendingTarget = index;
    this.client.scrollTo(index, !this.reducedMotion());
  }

  _pageSize() {
    const l = this.client.layout;
    if (!l) return 1;
    const along = this.horizontal ? l.viewport.width : l.viewport.height;
    const item = this.horizontal ? l.item.width : l.item.height;
    return Math.max(1, Math.floor(along / (item + l.spacing)));
  }

  _key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const forward = this.rtl ? -1 : 1;
    let target;
    switch (e.key) {
      case "ArrowRight": if (!this.horizontal) return; target = this._target(forward); break;
      case "ArrowLeft": if (!this.horizontal) return; target = this._target(-forward); break;
      case "ArrowDown": if (this.horizontal) return; target = this._target(1); break;
      case "ArrowUp": if (this.horizontal) return; target = this._target(-1); break;
      case "Home": target = this.client.state?.count ? 0 : null; break;
      case "End": target = this.client.state?.count ? this.client.state.count - 1 : null; break;
      case "PageDown": target = this._target(this._pageSize()); break;
      case "PageUp": target = this._target(-this._pageSize()); break;
      case "Enter": case " ": {
        const index = this.client.state?.index;
        if (Number.isInteger(index) && this.activate(index)) e.preventDefault();
        return;
      }
      default: return;
    }
    e.preventDefault();
    this._go(target);
  }

  _wheel(e) {
    if (!this.client.isOpen || e.ctrlKey) return; // ctrl+wheel is the browser's zoom
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    let delta;
    if (this.horizontal) {
      // A sideways swipe follows the content; in RTL positive deltaX goes to lower indices.
      const dx = e.deltaX * unit * (this.rtl ? -1 : 1), dy = e.deltaY * unit;
      delta = Math.abs(dx) > Math.abs(dy) ? dx : dy;
    } else {
      delta = e.deltaY * unit;
    }
    e.preventDefault();
    const w = this.wheel;
    if (e.timeStamp - w.last > WHEEL_IDLE_MS) w.sum = 0;
    w.last = e.timeStamp;
    w.sum += delta;
    if (Math.abs(w.sum) < WHEEL_STEP_PX || e.timeStamp - w.stepAt < WHEEL_COOLDOWN_MS) return;
    const step = Math.sign(w.sum);
    w.sum = 0;
    w.stepAt = e.timeStamp;
    this._go(this._target(step));
  }
}

function trim(samples, now) {
  while (samples.length > 2 && now - samples[0][0] > VELOCITY_WINDOW_MS) samples.shift();
}

/**
 * Finger velocity at release, px/s: the least-squares slope of position over the samples of
 * the last VELOCITY_WINDOW_MS (robust to one jittery event), 0 if the pointer rested.
 */
export function releaseVelocity(samples, now) {
  const recent = samples.filter(([t]) => now - t <= VELOCITY_WINDOW_MS);
  if (recent.length < 2) return 0;
  const n = recent.length;
  let st = 0, sx = 0;
  for (const [t, x] of recent) { st += t; sx += x; }
  const mt = st / n, mx = sx / n;
  let num = 0, den = 0;
  for (const [t, x] of recent) { num += (t - mt) * (x - mx); den += (t - mt) * (t - mt); }
  if (den === 0) return 0;
  const v = (num / den) * 1000;
  return Number.isFinite(v) ? v : 0;
}
