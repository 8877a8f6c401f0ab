// Accessibility after the W3C ARIA Authoring Practices carousel pattern: the [data-carousel]
// region is a focusable `region` with aria-roledescription "carousel"; each card is a `group`
// with aria-roledescription "slide" labelled "N of M" (render.js); the polite live region
// announces the centered card when the carousel comes to rest (INDEX), not while it moves.

export class Announcer {
  /**
   * @param {HTMLElement} live  the [aria-live] element
   * @param {(index: number) => string} title  card `index`'s title
   */
  constructor(live, title) {
    this.live = live;
    this.title = title;
  }

  /** Announces card `index` of `count` ("Card 3 of 20: Harbour at dusk"). */
  announce(index, count) {
    if (!Number.isInteger(index)) return;
    const title = this.title(index);
    this.live.textContent = `${index + 1} of ${count}${title ? `: ${title}` : ""}`;
  }
}

/** Sets the region's roles and label (idempotent). */
export function describeRegion(root, label) {
  root.setAttribute("role", "region");
  root.setAttribute("aria-roledescription", "carousel");
  root.setAttribute("aria-label", label);
  root.tabIndex = 0;
}

/** A MediaQueryList-backed flag: whether the user asked for reduced motion. */
export function reducedMotionQuery() {
  const q = globalThis.matchMedia ? matchMedia("(prefers-reduced-motion: reduce)") : null;
  return { get matches() { return q ? q.matches : false; }, query: q };
}
