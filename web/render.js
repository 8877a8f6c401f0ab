// Draws what the daemon publishes, nothing more (no physics here): each visible item of a STATE
// becomes one pooled card element, its untransformed box (`size`) centered at `center`, its CSS
// transform exactly the published 4×4 matrix (CATransform3D order m11…m44 is matrix3d's
// argument order), applied about the card's center, opacity = alpha, z-index = zIndex rounded
// to an integer (CSS z-index takes integers). Coordinates are CSS pixels from the top-left of
// the [data-carousel] element; one protocol point is one CSS pixel.

export class CarouselRenderer {
  /**
   * @param {HTMLElement} root  the [data-carousel] element
   * @param {(element: HTMLElement, index: number) => void} fill  puts card `index`'s content
   *        into a (pooled) element; called only when the element shows another card
   * @param {() => number} count  the number of cards (for the "N of M" labels)
   */
  constructor(root, fill, count) {
    this.root = root;
    this.fill = fill;
    this.count = count;
    /** Elements showing an item now, keyed "index:instance". */
    this.live = new Map();
    /** Elements not in use (hidden), reused before any new one is created. */
    this.free = [];
    /** Every element ever created (the pool's size is the most items ever visible at once). */
    this.created = 0;
    /** The most cards shown at once. */
    this.peak = 0;
    this.centered = null;
    /** The current STATE's cards by key, reused from STATE to STATE (no per-STATE allocation). */
    this._shown = new Map();
  }

  /** Sizes the carousel element to the published viewport (LAYOUT). */
  setLayout(layout) {
    const s = this.root.style;
    s.width = `${layout.viewport.width}px`;
    s.height = `${layout.viewport.height}px`;
    this.root.dataset.axis = layout.axis;
    this.root.dataset.direction = layout.direction;
    this.root.dataset.style = layout.style;
  }

  /** Re-fills every live card (the card contents changed). */
  refill() {
    for (const el of this.live.values()) this.fill(el, Number(el.dataset.index));
  }

  /**
   * Draws a STATE's items. Items that are not well-formed are skipped, never thrown on.
   * @param {object[]} items  STATE `items`
   * @param {number|null} centeredIndex  STATE `index` (gets aria-current and focusable content)
   */
  render(items, centeredIndex) {
    const shown = this._shown;
    shown.clear();
    for (const item of items) {
      if (!wellFormed(item)) continue;
      const key = `${item.index}:${item.instance}`;
      if (!shown.has(key)) shown.set(key, item);
    }
    // Cards that left go back to the pool first, so the ones that came are drawn with them.
    for (const [key, el] of this.live) {
      if (shown.has(key)) continue;
      this.live.delete(key);
      el.hidden = true;
      this.free.push(el);
    }
    this.peak = Math.max(this.peak, shown.size);
    const total = this.count();
    for (const [key, item] of shown) {
      let el = this.live.get(key);
      if (!el) {
        el = this.free.pop() || this._create();
        this.live.set(key, el);
        el.hidden = false;
        if (el.dataset.index !== String(item.index)) {
          el.dataset.index = String(item.index);
          this.fill(el, item.index);
        }
        el.dataset.instance = String(item.instance);
      }
      place(el, item);
      if (el._labelIndex !== item.index || el._labelTotal !== total) {
        el._labelIndex = item.index;
        el._labelTotal = total;
        el.setAttribute("aria-label", `${item.index + 1} of ${total}`);
      }
      const current = item.index === centeredIndex;
      if (el._current !== current) {
        el._current = current;
        if (current) el.setAttribute("aria-current", "true"); else el.removeAttribute("aria-current");
        el.setAttribute("aria-hidden", current ? "false" : "true");
      }
    }
  }

  /** Hides every card (no state to show). */
  clear() { this.render([], null); }

  _create() {
    const el = document.createElement("div");
    el.className = "card";
    el.setAttribute("role", "group");
    el.setAttribute("aria-roledescription", "slide");
    this.created += 1;
    this.root.appendChild(el);
    return el;
  }
}

function finite(n) { return typeof n === "number" && Number.isFinite(n); }

function wellFormed(item) {
  return item && Number.isInteger(item.index) && item.index >= 0 && Number.isInteger(item.instance)
    && Array.isArray(item.center) && finite(item.center[0]) && finite(item.center[1])
    && Array.isArray(item.size) && finite(item.size[0]) && finite(item.size[1]) && item.size[0] >= 0 && item.size[1] >= 0
    && Array.isArray(item.transform) && item.transform.length === 16 && allFinite(item.transform);
}

function allFinite(a) {
  for (let k = 0; k < a.length; k++) if (!finite(a[k])) return false;
  return true;
}

/** Whether the 16 numbers of `m` equal `cached` (null: nothing cached yet). */
function sameMatrix(cached, m) {
  if (cached === null) return false;
  for (let k = 0; k < 16; k++) if (cached[k] !== m[k]) return false;
  return true;
}

/** Writes only what changed since the element's last frame (style writes cost a recalc). */
function place(el, item) {
  const [w, h] = item.size;
  const left = item.center[0] - w / 2;
  const top = item.center[1] - h / 2;
  const c = el._c || (el._c = { w: NaN, h: NaN, left: NaN, top: NaN, m: null, alpha: NaN, z: NaN });
  const s = el.style;
  if (c.w !== w) { c.w = w; s.width = `${w}px`; }
  if (c.h !== h) { c.h = h; s.height = `${h}px`; }
  if (c.left !== left) { c.left = left; s.left = `${left}px`; }
  if (c.top !== top) { c.top = top; s.top = `${top}px`; }
  // Compared number by number: the string is built only for a matrix that changed.
  const m = item.transform;
  if (!sameMatrix(c.m, m)) {
    c.m = m; // the STATE's own array: each STATE is a new parse, nothing here mutates it
    s.transform = `matrix3d(${m.join(",")})`;
  }
  const alpha = finite(item.alpha) ? Math.min(Math.max(item.alpha, 0), 1) : 1;
  if (c.alpha !== alpha) { c.alpha = alpha; s.opacity = String(alpha); }
  const z = finite(item.zIndex) ? Math.max(-2147483647, Math.min(2147483647, Math.round(item.zIndex))) : 0;
  if (c.z !== z) { c.z = z; s.zIndex = String(z); }
}
