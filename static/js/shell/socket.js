// The WebSocket half of the protocol, as a phone needs it:
// reconnects by itself with capped, jittered backoff; keeps only the newest state;
// an `id` on every command, re-sent with the SAME id after a reconnect (the server
// dedupes it). A dead link is noticed within ~2.5 s while the page is visible: a
// ping every second, and a socket that has said nothing for 2.5 s is dropped (a cut
// Wi-Fi link keeps a TCP socket "open" for half a minute); the browser's `offline`
// event drops it at once. Hidden pages do not ping (phones sleep); on becoming
// visible a page pings at once.

import { applyPatch } from "./patch.js";

const PING_EVERY_MS = 1_000; // the server allows 100 messages/s; pings are not room events
const PONG_WITHIN_MS = 2_500; // silence this long, while visible, means the link is dead
const WELCOME_WITHIN_MS = 3_000; // a socket that opened into a dead link never welcomes
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
const BUSY_DELAY_MS = 3_000; // 1013: the server asked us to come back later
const COMMAND_TTL_MS = 8_000; // a command not answered by then is reported as not sent
const RETRY_MS = 1_000; // after `unavailable`
const PROMPT_MS = 2_500; // a tap-now command (BANK, a roll) unanswered this long is given up
export const NOT_SENT = "Not sent: you were offline";
// A tap-now command that left the phone but got no answer: the server may have applied it.
export const NOT_CONFIRMED = "Not confirmed: the connection dropped after you tapped";

export const CLOSE_UNKNOWN_ROOM = 4404;
export const CLOSE_BAD_TOKEN = 4401;
const CLOSE_TRY_LATER = 1013;

const unanswered = () => ({ ok: false, code: "not_confirmed", message: NOT_CONFIRMED });

function randomPrefix() {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * handlers: {welcome(you, state), state(state), presence(map),
 *            status({phase: "connecting"|"live"|"reconnecting"|"gone", attempt, delay, reason})}
 */
export class RoomSocket {
  constructor(code, token, handlers, collection = "rooms") {
    this.code = code;
    this.collection = collection; // "rooms" or "tournaments": /ws/<collection>/<code>
    this.token = token || "";
    this.handlers = handlers;
    this.prefix = randomPrefix(); // ids differ across reloads: a new page never hits old ids
    this.counter = 0;
    this.pending = new Map(); // id -> {message, resolve, timer, sent}
    this.seq = -1;
    this.state = null; // the newest state: what the next patch applies to
    this.syncing = false; // a whole state was asked for: patches wait for it
    this.attempt = 0;
    this.ws = null;
    this.live = false;
    this.stopped = false;
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.wake = () => this.reconnectNow();
    this.lost = () => this.drop(); // `offline`: nothing will get through; say so now
    this.seen = () => this.visibilityChanged();
    window.addEventListener("online", this.wake);
    window.addEventListener("offline", this.lost);
    document.addEventListener("visibilitychange", this.seen);
    this.connect();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const token = this.token ? `&token=${encodeURIComponent(this.token)}` : "";
    const query = `?patches=1${token}`; // states as patches (docs/protocol.md, an extension)
    return `${scheme}://${location.host}/ws/${this.collection}/${this.code}${query}`;
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.stopped) return;
    this.report(this.attempt === 0 ? "connecting" : "reconnecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = (event) => this.closed(ws, event.code);
    ws.onerror = () => {}; // a close follows; it carries what we need
    clearTimeout(this.pongTimer);
    this.pongTimer = setTimeout(() => this.drop(), WELCOME_WITHIN_MS);
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    this.heard(); // any message proves the socket is alive
    if (!this.live && message.type !== "welcome") return; // the welcome comes first, or the link lost it
    switch (message.type) {
      case "welcome":
        this.live = true;
        this.attempt = 0;
        this.seq = message.state.seq;
        this.state = message.state;
        this.syncing = false;
        this.report("live");
        this.handlers.welcome(message.you, message.state);
        this.flush();
        this.heard();
        this.schedulePing();
        break;
      case "state":
        if (message.state.seq <= this.seq) return; // coalesced or late: keep the newest
        this.seq = message.state.seq;
        this.state = message.state;
        this.syncing = false;
        this.handlers.state(message.state);
        break;
      case "patch":
        this.patched(message);
        break;
      case "presence":
        this.handlers.presence?.(message.connected, message);
        break;
      case "ack":
      case "error":
        this.answer(message);
        break;
      default:
        break; // pong, and whatever a newer server adds
    }
  }

  /** A state as a patch of the one we have; a gap or a misfit asks for the whole state. */
  patched(message) {
    if (message.seq <= this.seq || this.syncing) return;
    let state = null;
    try {
      if (message.base === this.seq) state = applyPatch(this.state, message.ops);
    } catch {
      state = null;
    }
    if (state === null || state.seq !== message.seq) {
      this.syncing = true;
      this.ws.send(JSON.stringify({ type: "sync" }));
      return;
    }
    this.seq = state.seq;
    this.state = state;
    this.handlers.state(state);
  }

  answer(message) {
    const entry = message.id ? this.pending.get(message.id) : null;
    if (!entry) {
      if (message.type === "error") this.handlers.error?.(message);
      return;
    }
    if (message.type === "error" && message.code === "unavailable") {
      // Nothing was applied; the protocol says: retry with the same id (until the TTL).
      setTimeout(() => this.live && this.pending.has(message.id) && this.ws.send(entry.message), RETRY_MS);
      return;
    }
    clearTimeout(entry.timer);
    this.pending.delete(message.id);
    entry.resolve(
      message.type === "ack"
        ? { ok: true, seq: message.seq }
        : { ok: false, code: message.code, message: message.message },
    );
  }

  /** Send a command; resolves {ok, seq} or {ok: false, code, message}. Never rejects.
   * `prompt`: a tap that means "now" (BANK, a roll). It is sent only on a live socket and
   * never again after a reconnect: not live at the tap, or unanswered within PROMPT_MS,
   * or its socket lost, it resolves at once, so it is never applied later in a game that has
   * moved on (the player taps again if they still mean it): {code: "not_sent"} when it never
   * left the phone, {code: "not_confirmed"} when it left but no answer came back (the server
   * may have applied it: only the next state tells). */
  send(command, { prompt = false } = {}) {
    const id = `${this.prefix}-${++this.counter}`;
    const message = JSON.stringify({ ...command, id });
    if (prompt && !this.live) return Promise.resolve({ ok: false, code: "not_sent", message: NOT_SENT });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(prompt ? unanswered() : { ok: false, code: "not_sent", message: "No answer from the server: check the board." });
      }, prompt ? PROMPT_MS : COMMAND_TTL_MS);
      this.pending.set(id, { message, resolve, timer, prompt });
      if (this.live) this.ws.send(message); // a prompt command is only made while live: it left
    });
  }

  /** After a (re)connect: send again what got no answer; same id, so never applied twice. */
  flush() {
    for (const entry of this.pending.values()) this.ws.send(entry.message);
  }

  /** The socket went down: a prompt command still unanswered will not be sent again. */
  abandonPrompt() {
    for (const [id, entry] of this.pending) {
      if (!entry.prompt) continue;
      clearTimeout(entry.timer);
      this.pending.delete(id);
      entry.resolve(unanswered());
    }
  }

  ping() {
    if (!this.live || !visible()) return;
    this.ws.send(JSON.stringify({ type: "ping", id: `${this.prefix}-p${++this.counter}` }));
    if (!this.pongTimer) this.watch(); // later pings do not push the deadline back
  }

  /** A message came: the deadline starts again (only while visible: hidden pages sleep).
   * Before the welcome only the welcome counts: a socket whose welcome was lost on a
   * dying link may still hear later frames, and must not wait for a welcome forever. */
  heard() {
    if (!this.live) return;
    clearTimeout(this.pongTimer);
    this.pongTimer = null;
    if (this.live && visible()) this.watch();
  }

  watch() {
    this.pongTimer = setTimeout(() => this.drop(), PONG_WITHIN_MS);
  }

  schedulePing() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => this.ping(), PING_EVERY_MS);
  }

  visibilityChanged() {
    if (!visible()) {
      if (!this.live) return; // a try under way keeps its welcome deadline
      clearTimeout(this.pongTimer); // a sleeping phone is not a dead link
      this.pongTimer = null;
    } else if (this.live) {
      this.ping(); // the link may have died while the screen was off: find out now
    } else {
      this.reconnectNow();
    }
  }

  /** Give up on a socket that stopped answering (Wi-Fi to mobile, a locked screen). */
  drop() {
    const ws = this.ws;
    if (!ws) return;
    ws.onclose = ws.onmessage = null;
    try {
      ws.close(4000, "no pong");
    } catch {
      // already closed
    }
    this.closed(ws, 1006);
  }

  closed(ws, code) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.live = false;
    this.abandonPrompt();
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.pongTimer = null;
    if (this.stopped) return;
    if (code === CLOSE_UNKNOWN_ROOM || code === CLOSE_BAD_TOKEN) {
      this.stop();
      this.report("gone", code === CLOSE_UNKNOWN_ROOM ? "unknown_room" : "bad_token");
      return;
    }
    const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempt);
    const delay = Math.max(code === CLOSE_TRY_LATER ? BUSY_DELAY_MS : 0, base * (0.5 + Math.random() / 2));
    this.attempt += 1;
    this.report("reconnecting", null, delay);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** The network came back or the page became visible: do not wait for the backoff
   * (nor for a try begun while offline, which would only fail). */
  reconnectNow() {
    if (this.stopped || this.live || this.ws?.readyState === WebSocket.OPEN) return; // welcome is coming
    if (this.ws) {
      const ws = this.ws;
      ws.onclose = ws.onmessage = null;
      ws.close();
      this.ws = null;
    }
    this.connect();
  }

  report(phase, reason = null, delay = 0) {
    this.handlers.status?.({ phase, attempt: this.attempt, delay, reason });
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    window.removeEventListener("online", this.wake);
    window.removeEventListener("offline", this.lost);
    document.removeEventListener("visibilitychange", this.seen);
    for (const entry of this.pending.values()) {
      clearTimeout(entry.timer);
      entry.resolve({ ok: false, code: "not_sent", message: "Disconnected." });
    }
    this.pending.clear();
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
  }
}

const visible = () => document.visibilityState === "visible";
