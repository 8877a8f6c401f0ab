// Card contents: a JSON list from `?cards=URL` (an array of {image, title, alt, link}), or
// numbered cards. Contents never move the layout: a card's box comes from the daemon, the
// content fills it. A card's `link` is followed on a tap of the centered card (app.js); only
// http: and https: URLs (absolute, or relative to the list) are kept, so a list can never make
// the kiosk run a script (javascript:), open inline content (data:, blob:) or a local file.
// Lists and pictures load over http(s) only too; another origin than the page's loads only
// where the page's Content-Security-Policy allows it (the bridge's --sources, docs/WEB.md).

/** The longest card list the page loads; its length becomes the daemon's count. */
export const MAX_CARDS = 1000;

/** Numbered default cards: a colour per index (golden-angle hues) and its number. */
export function numberedCard(index) {
  return { title: `Card ${index + 1}`, hue: Math.round((index * 137.508) % 360) };
}

/** URL schemes a card's `link`, its picture and the list itself may have. */
export const LINK_PROTOCOLS = ["http:", "https:"];

/**
 * `link` resolved against `base` when it is a string naming an http(s) URL, else null.
 * Examples (base https://k/cards/x.json): "offer.html" -> "https://k/cards/offer.html";
 * "javascript:alert(1)", "data:text/html,..", "file:///etc/passwd", 42 -> null.
 */
export function safeLink(link, base) {
  if (typeof link !== "string" || link.trim() === "") return null;
  let url;
  try { url = new URL(link, base); } catch { return null; }
  return LINK_PROTOCOLS.includes(url.protocol) ? url.href : null;
}

/**
 * Loads `url` as a card list. Resolves to {cards, notes}: `cards` an array of
 * {image, title, alt, link} (image and link absolute URLs or null; entries that are not
 * objects, or have neither a string image nor a string title, are dropped), `notes` a string
 * per refused link ("card 3: link refused, only http(s) URLs"); pictures that are not
 * http(s) are dropped. Rejects with an Error naming the URL and what was wrong: not http(s),
 * another origin the page's policy refuses, HTTP status, not JSON, not an array, more than
 * MAX_CARDS entries, no usable entry.
 */
export async function loadCards(url, base) {
  const absolute = safeLink(url, base);
  if (absolute === null) throw new Error(`cards ${String(url).slice(0, 60)}: only http(s) lists are loaded`);
  const origin = new URL(absolute).origin;
  let response;
  try {
    response = await fetch(absolute, { cache: "no-cache" });
  } catch (error) {
    throw new Error(origin !== new URL(base).origin
      ? `cards ${absolute}: not loaded from another origin (${origin}) unless the bridge's --sources lists it`
      : `cards ${absolute}: ${error.message}`);
  }
  if (!response.ok) throw new Error(`cards ${absolute}: HTTP ${response.status}`);
  let list;
  try {
    list = await response.json();
  } catch (error) {
    throw new Error(`cards ${absolute}: not JSON (${error.message})`);
  }
  if (!Array.isArray(list)) throw new Error(`cards ${absolute}: expected a JSON array of {image, title}`);
  if (list.length > MAX_CARDS) {
    throw new Error(`cards ${absolute}: ${list.length} entries, more than the ${MAX_CARDS} this page shows`);
  }
  const cards = [], notes = [];
  for (const entry of list) {
    if (!entry || typeof entry !== "object") continue;
    const image = safeLink(entry.image, absolute);
    const title = typeof entry.title === "string" ? entry.title : "";
    if (!image && !title) continue;
    const alt = typeof entry.alt === "string" ? entry.alt : "";
    const link = safeLink(entry.link, absolute);
    if (entry.link !== undefined && link === null) {
      notes.push(`card ${cards.length + 1}: link refused, only http(s) URLs`);
    }
    cards.push({ image, title, alt, link });
  }
  if (!cards.length) throw new Error(`cards ${absolute}: no entry with an image or a title`);
  return { cards, notes };
}

/**
 * Fills a card element with `card`'s content (image and title, or the numbered design). The
 * picture's `alt` is the card's alt text, or empty (decorative) when the title says it all;
 * a card with a link is marked `data-link` (its URL) for the tap and for tests.
 */
export function fillCard(el, card, index) {
  el.replaceChildren();
  if (card.image) {
    const img = document.createElement("img");
    img.src = card.image;
    img.alt = card.alt ?? "";
    img.decoding = "async";
    img.draggable = false;
    el.appendChild(img);
    el.classList.remove("numbered");
    el.style.removeProperty("--hue");
  } else {
    el.classList.add("numbered");
    el.style.setProperty("--hue", String(card.hue ?? numberedCard(index).hue));
    const n = document.createElement("span");
    n.className = "number";
    n.textContent = String(index + 1);
    el.appendChild(n);
  }
  const title = document.createElement("span");
  title.className = "title";
  title.textContent = card.title;
  el.appendChild(title);
  if (card.link) el.dataset.link = card.link; else delete el.dataset.link;
}
