// The autoplay pause control (WCAG 2.2.2 "Pause, Stop, Hide"; the W3C ARIA Authoring Practices
// carousel pattern's rotation control): the [data-carousel-autoplay] button. It is shown only
// while the daemon's STATE says autoplay is not "off", and toggles the user's pause with
// `set_autoplay {paused}`. Its accessible name stays "Pause autoplay" and `aria-pressed` says
// whether that pause is on (a toggle button with a fixed name, as the APG's button pattern asks).
//
// STATE's "paused" also covers the daemon's own pause after a touch or a tilt (it resumes by
// itself after `autoplay_resume_s`), so the button's pressed state is the user's pause as this
// page last set it, not STATE's word: it is cleared when STATE says "running" (another display
// lifted the pause) or "off", and on every reconnection (the daemon may have restarted). Until
// the daemon has shown this page's own request (a STATE agreeing with it, or an ERROR for it),
// STATEs sent before the request reached it are not taken as another display's change.

export class AutoplayControl {
  /**
   * @param {HTMLButtonElement} button  the [data-carousel-autoplay] element
   * @param {import("./carousel-client.js").CarouselClient} client
   */
  constructor(button, client) {
    this.button = button;
    this.client = client;
    this.paused = false;
    /** The pause this page asked for and the daemon has not yet shown (null: none pending). */
    this.expected = null;
    button.addEventListener("click", () => this.toggle());
    client.addEventListener("ready", () => { this.expected = null; this._setPaused(false); });
    client.addEventListener("state", (e) => this.update(e.detail.autoplay));
    client.addEventListener("error", (e) => {
      if (e.detail.cmd === "set_autoplay" && this.expected !== null) {
        this._setPaused(!this.expected);
        this.expected = null;
      }
    });
  }

  /** The user pressed the button: pause, or lift the pause. */
  toggle() {
    const paused = !this.paused;
    if (this.client.setAutoplay({ paused })) {
      this.expected = paused;
      this._setPaused(paused);
    }
  }

  /** STATE `autoplay` ("off", "running", "paused"; absent from a 1.0 daemon: off). */
  update(autoplay) {
    const on = autoplay === "running" || autoplay === "paused";
    if (this.button.hidden === on) this.button.hidden = !on;
    if (!on) this.expected = null; // switched off: nothing of ours is pending any more
    if (this.expected !== null) {
      if ((autoplay === "paused") !== this.expected) return; // sent before our request arrived
      this.expected = null;
    }
    if (autoplay !== "paused" && this.paused) this._setPaused(false);
  }

  _setPaused(paused) {
    this.paused = paused;
    const value = paused ? "true" : "false";
    if (this.button.getAttribute("aria-pressed") !== value) this.button.setAttribute("aria-pressed", value);
  }
}
