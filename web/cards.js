// Card contents: a JSON list from `?cards=URL` (an array of {image, title}), or numbered cards.
// Contents never move the layout: a card's box comes from the daemon, the content fills it.

/** Numbered default cards: a colour per index (golden-angle hues) and its number. */
export function numberedCard(index) {
  return { title: `Card ${index + 1}`, hue: Math.round((index * 137.508) % 360) };
}

/**
 * Loads `url` as a card list. Resolves to an array of {image?, title} (entries that are not
 * objects, or have neither a string image nor a string title, are dropped), or rejects with
 * an Error naming the URL and what was wrong.
 */
export async function loadCards(url, base) {
  const absolute = new URL(url, base).href;
  let response;
  try {
    response = await fetch(absolute, { cache: "no-cache" });
  } catch (error) {
    throw new Error(`cards ${absolute}: ${error.message}`);
  }
  if (!response.ok) throw new Error(`cards ${absolute}: HTTP ${response.status}`);
  let list;
  try {
    list = await response.json();
  } catch (error) {
    throw new Error(`cards ${absolute}: not JSON (${error.message})`);
  }
  if (!Array.isArray(list)) throw new Error(`cards ${absolute}: expected a JSON array of {image, title}`);
  const cards = [];
  for (const entry of list) {
    if (!entry || typeof entry !== "object") continue;
    const image = typeof entry.image === "string" ? new URL(entry.image, absolute).href : null;
    const title = typeof entry.title === "string" ? entry.title : "";
    if (image || title) cards.push({ image, title });
  }
  if (!cards.length) throw new Error(`cards ${absolute}: no entry with an image or a title`);
  return cards;
}

/** Fills a card element with `card`'s content (image and title, or the numbered design). */
export function fillCard(el, card, index) {
  el.replaceChildren();
  if (card.image) {
    const img = document.createElement("img");
    img.src = card.image;
    img.alt = "";
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
}
