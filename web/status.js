// The status line: connection, sensor and tilt, in fixed-width cells so that changing text
// never moves anything else (the line has its own row; the cards never jump).

const SENSOR_TEXT = {
  ok: "sensor ok",
  replay: "sensor: replaying a recording",
  stale: "sensor stale (no samples)",
  absent: "no motion sensor",
  error: "sensor error",
};

export class StatusLine {
  /** @param {HTMLElement} el  the [data-carousel-status] element */
  constructor(el) {
    this.el = el;
    this.cells = {};
    for (const name of ["connection", "sensor", "tilt", "note"]) {
      const span = document.createElement("span");
      span.className = `status-${name}`;
      span.dataset.cell = name;
      el.appendChild(span);
      this.cells[name] = span;
    }
    this.connection = "idle";
    /** What the sensor and tilt cells show now (STATE after STATE they rarely change). */
    this._shown = { sensor: undefined, message: undefined, enabled: undefined, roll: undefined, pitch: undefined };
  }

  setConnection(status, message) {
    this.connection = status;
    this.el.dataset.connection = status;
    this._set("connection", message);
    if (status !== "open") {
      this.cells.sensor.textContent = "";
      this.cells.tilt.textContent = "";
      this._shown.sensor = undefined;
    }
  }

  /** Sensor and tilt from a STATE (and the SENSOR message text when there is one). */
  setState(state, sensorMessage) {
    if (this.connection !== "open") return;
    const sensor = state.sensor;
    const tilt = state.tilt || {};
    const shown = this._shown;
    // Most STATEs change neither: no string is built and no DOM touched for them.
    if (shown.sensor === sensor && shown.message === sensorMessage && shown.enabled === tilt.enabled
      && shown.roll === tilt.roll_deg && shown.pitch === tilt.pitch_deg) return;
    shown.sensor = sensor;
    shown.message = sensorMessage;
    shown.enabled = tilt.enabled;
    shown.roll = tilt.roll_deg;
    shown.pitch = tilt.pitch_deg;
    if (this.el.dataset.sensor !== sensor) this.el.dataset.sensor = sensor;
    let text = SENSOR_TEXT[sensor] || `sensor ${sensor}`;
    if (sensorMessage && sensor !== "ok" && sensor !== "replay") text += ` — ${sensorMessage}`;
    this._set("sensor", text);
    let t;
    if (tilt.enabled === false) t = "tilt disabled";
    else if (typeof tilt.roll_deg !== "number" || typeof tilt.pitch_deg !== "number") {
      t = sensor === "ok" || sensor === "replay" ? "no tilt estimate yet" : "tilt: no sensor data";
    } else t = `tilt: roll ${fmt(tilt.roll_deg)}°, pitch ${fmt(tilt.pitch_deg)}°`;
    const tiltKind = tilt.enabled === false ? "disabled" : (typeof tilt.roll_deg === "number" ? "estimate" : "none");
    if (this.el.dataset.tilt !== tiltKind) this.el.dataset.tilt = tiltKind;
    this._set("tilt", t);
  }

  /** A transient note (a refused request, a bad card list); empty clears it. */
  note(text) { this._set("note", text || ""); }

  _set(cell, text) {
    const c = this.cells[cell];
    if (c.textContent !== text) { c.textContent = text; c.title = text; }
  }
}

function fmt(deg) {
  const v = Math.round(deg * 10) / 10;
  return (v === 0 ? 0 : v).toFixed(1).replace("-", "\u2212");
}
