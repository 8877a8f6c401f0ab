// CarouselClient: carouseld's socket protocol (docs/PROTOCOL.md) over the web bridge's
// WebSocket (scripts/carouseld-web: one text message = one NDJSON line). No rendering here; a page
// listens to the events and draws. Usable by any page:
//
//   import { CarouselClient } from "./carousel-client.js";
//   const client = new CarouselClient({ url: CarouselClient.defaultURL(location) });
//   client.addEventListener("state", (e) => draw(e.detail));
//   client.start();
//
// Events (CustomEvent, data in `detail`):
//   "connection" {status, message}   status: "connecting", "open" (VERSION accepted),
//                                      "daemon-down" (bridge reached, carouseld not),
//                                      "bridge-down" (no WebSocket), "incompatible" (proto_major)
//   "ready"      VERSION             compatible greeting; send set_geometry etc. now, before watch
//   "layout"     LAYOUT              viewport, item, spacing, axis, direction, style, cyclic, count
//   "state"      STATE               with `items` (watch asks for them unless items: false)
//   "index"      INDEX               the carousel came to rest on another card
//   "sensor"     SENSOR
//   "error"      ERROR               the daemon refused a request (the connection stays)
//   "garbage"    {line, reason}      a line that is not a protocol object (ignored)
//   "sent"       request object      every request written, for logs and tests

/** The protocol major version this client speaks; a greeting with another one is refused. */
export const PROTO_MAJOR = 1;

const STATUS_TEXT = {
  connecting: "connecting…",
  open: "connected",
  "daemon-down": "carouseld is not running",
  "bridge-down": "cannot reach the bridge",
  incompatible: "incompatible daemon",
};

export class CarouselClient extends EventTarget {
  /**
   * @param {object} options
   * @param {string} options.url           ws:// or wss:// URL of the bridge
   * @param {boolean} [options.items=true] ask for per-card attributes in STATE
   * @param {number} [options.maxRateHz]   highest STATE rate wanted (default: the daemon's)
   * @param {number} [options.initialBackoffMs=250]  first reconnect delay, doubled per failure
   * @param {number} [options.maxBackoffMs=5000]     reconnect delay cap
   * @param {typeof WebSocket} [options.WebSocket]   injectable for tests
   */
  constructor({ url, items = true, maxRateHz, initialBackoffMs = 250, maxBackoffMs = 5000, WebSocket: WS } = {}) {
    super();
    if (!url) throw new TypeError("CarouselClient: options.url is required");
    this.url = url;
    this.items = items;
    this.maxRateHz = maxRateHz;
    this.initialBackoffMs = initialBackoffMs;
    this.maxBackoffMs = maxBackoffMs;
    this.WebSocket = WS || globalThis.WebSocket;
    /** Last VERSION, LAYOUT, STATE and SENSOR received (null before the first). */
    this.version = null;
    this.layout = null;
    this.state = null;
    this.sensor = null;
    /** "idle" before start(), then the last "connection" status. */
    this.status = "idle";
    this.garbageCount = 0;
    /** performance.now() when the message being handled arrived (the page's cost per STATE). */
    this.messageReceivedAt = 0;
    this._socket = null;
    this._timer = null;
    this._backoff = initialBackoffMs;
    this._running = false;
  }

  /**
   * The bridge URL for a page: `?ws=ws://HOST:PORT/` when given, else the page's own host and
   * port (`ws:` for an `http:` page, `wss:` for `https:`).
   * @param {Location|URL} location
   */
  static defaultURL(location) {
    const override = new URLSearchParams(location.search).get("ws");
    if (override) return override;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/`;
  }

  /** Connects, and reconnects with backoff until stop(). */
  start() {
    if (this._running) return;
    this._running = true;
    this._connect();
  }

  /** Closes the connection and stops reconnecting. */
  stop() {
    this._running = false;
    clearTimeout(this._timer);
    this._timer = null;
    if (this._socket) {
      const s = this._socket;
      this._socket = null;
      s.close();
    }
  }

  /** Whether requests can be sent now (a compatible daemon greeted us). */
  get isOpen() {
    return this.status === "open" && this._socket !== null && this._socket.readyState === 1;
  }

  /**
   * Sends one request object as one line; returns false when not connected (nothing queued:
   * a request for a carousel the page cannot see is stale by the time it reconnects).
   */
  send(request) {
    if (!this.isOpen) return false;
    this._socket.send(JSON.stringify(request));
    this._emit("sent", request);
    return true;
  }

  /** `drag` began/moved/ended at `location` (viewport points along the axis). */
  drag(phase, location, velocity) {
    const r = { cmd: "drag", phase, location };
    if (phase === "ended" && velocity !== undefined) r.velocity = velocity;
    return this.send(r);
  }

  /** `tap` at `location` along the axis and `cross` across it (viewport points). */
  tap(location, cross) {
    const r = { cmd: "tap", location };
    if (cross !== undefined) r.cross = cross;
    return this.send(r);
  }

  /** `scroll_to` item `index` (0 ..< count). */
  scrollTo(index, animated = true) {
    return this.send({ cmd: "scroll_to", index, animated });
  }

  /** `set_geometry` {viewport {width, height}, item {width, height}, spacing, axis?, direction?}. */
  setGeometry(geometry) {
    return this.send({ cmd: "set_geometry", ...geometry });
  }

  /** `set_count`. */
  setCount(count) {
    return this.send({ cmd: "set_count", count });
  }

  /** `set_tilt` with any of enabled, mode, dead_zone_deg, max_deg, max_items_per_second. */
  setTilt(settings) {
    return this.send({ cmd: "set_tilt", ...settings });
  }

  /** `set_autoplay` with any of enabled, paused, interval_s, resume_s, step. */
  setAutoplay(settings) {
    return this.send({ cmd: "set_autoplay", ...settings });
  }

  // -- internals --

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  _setStatus(status, message) {
    this.status = status;
    this._emit("connection", { status, message: message || STATUS_TEXT[status] || status });
  }

  _connect() {
    if (!this._running) return;
    this._setStatus("connecting");
    let socket;
    try {
      socket = new this.WebSocket(this.url);
    } catch (error) {
      this._setStatus("bridge-down", `cannot reach the bridge at ${this.url}: ${error.message}`);
      this._retry();
      return;
    }
    this._socket = socket;
    let opened = false;
    let greeted = false;
    socket.onopen = () => { opened = true; };
    socket.onmessage = (event) => {
      if (this._socket !== socket) return;
      this.messageReceivedAt = performance.now();
      const message = this._parse(event.data);
      if (!message) return;
      if (!greeted) {
        if (message.class !== "VERSION") return; // nothing else is meaningful before the greeting
        greeted = true;
        if (message.proto_major !== PROTO_MAJOR) {
          this._setStatus("incompatible",
            `carouseld speaks protocol ${message.proto_major}.${message.proto_minor}; ` +
            `this page speaks ${PROTO_MAJOR}.x — update the page or the daemon`);
          this._socket = null;
          socket.close();
          this._backoff = this.maxBackoffMs;
          this._retry();
          return;
        }
        this.version = message;
        this._backoff = this.initialBackoffMs;
        this._setStatus("open");
        this._emit("ready", message);
        const watch = { cmd: "watch", enable: true, items: this.items };
        if (this.maxRateHz) watch.max_rate_hz = this.maxRateHz;
        this.send(watch);
        return;
      }
      this._dispatch(message);
    };
    socket.onclose = () => {
      if (this._socket !== socket) return;
      this._socket = null;
      if (this.status !== "incompatible") {
        if (!opened) this._setStatus("bridge-down", `cannot reach the bridge at ${this.url}`);
        else if (!greeted) this._setStatus("daemon-down", "carouseld is not running (the bridge cannot reach its socket)");
        else this._setStatus("daemon-down", "carouseld went away; reconnecting");
      }
      this._retry();
    };
  }

  _retry() {
    if (!this._running) return;
    clearTimeout(this._timer);
    // Full jitter, so that several pages do not all reconnect on the same tick.
    const delay = this._backoff * (0.5 + Math.random() * 0.5);
    this._backoff = Math.min(this._backoff * 2, this.maxBackoffMs);
    this._timer = setTimeout(() => { this._timer = null; this._connect(); }, delay);
  }

  /** One line → an object with a string `class`, else a "garbage" event and null. */
  _parse(line) {
    if (typeof line !== "string") return this._garbage(String(line), "not a text message");
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      return this._garbage(line, `invalid JSON: ${error.message}`);
    }
    if (message === null || typeof message !== "object" || Array.isArray(message) || typeof message.class !== "string") {
      return this._garbage(line, "not a protocol object (no string 'class')");
    }
    return message;
  }

  _garbage(line, reason) {
    this.garbageCount += 1;
    this._emit("garbage", { line: line.length > 200 ? line.slice(0, 200) + "…" : line, reason });
    return null;
  }

  _dispatch(message) {
    switch (message.class) {
      case "LAYOUT":
        if (!validLayout(message)) { this._garbage(JSON.stringify(message), "LAYOUT without a valid viewport/item"); return; }
        this.layout = message;
        this._emit("layout", message);
        break;
      case "STATE":
        if (!Number.isFinite(message.position)) { this._garbage(JSON.stringify(message).slice(0, 200), "STATE without a position"); return; }
        if (!Array.isArray(message.items)) message.items = [];
        this.state = message;
        this._emit("state", message);
        break;
      case "INDEX": this._emit("index", message); break;
      case "SENSOR": this.sensor = message; this._emit("sensor", message); break;
      case "ERROR": this._emit("error", message); break;
      default: break; // WATCH, ACK, and classes of newer minor versions
    }
  }
}

function positive(n) { return typeof n === "number" && Number.isFinite(n) && n > 0; }

function validLayout(m) {
  return m.viewport && m.item && positive(m.viewport.width) && positive(m.viewport.height)
    && positive(m.item.width) && positive(m.item.height);
}
