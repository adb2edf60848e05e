// The HTTP half of the protocol, for every game: create, join, read a room and its log;
// and where the pages of a room live (one pair of addresses per collection).

export const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const CODE_RE = new RegExp(`^[${CODE_ALPHABET}]{4}$`);

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body, token = null) {
  let response;
  const headers = body ? { "Content-Type": "application/json" } : {};
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(0, "offline", "No connection to the game server. Check your Wi-Fi and try again.");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error || {};
    throw new ApiError(response.status, error.code || "http_error", error.message || response.statusText);
  }
  return data;
}

/** Uppercase, no spaces; "" when it cannot be a room code. */
export function normaliseCode(raw) {
  const code = String(raw || "").replace(/\s+/g, "").toUpperCase();
  return CODE_RE.test(code) ? code : "";
}

/** Where each collection's pages live: /r/CODE and /watch/CODE for rooms,
 * /t/CODE and /watch/t/CODE for tournaments. */
const PREFIX = { rooms: "r", tournaments: "t" };
const COLLECTION = Object.fromEntries(Object.entries(PREFIX).map(([c, p]) => [p, c]));

/** {collection, code} of this page's address (code "" when it is not a valid one). */
export function whereFromPath() {
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const code = normaliseCode(parts.pop() || "");
  const prefix = parts[0] === "watch" ? parts[1] || "r" : parts[0];
  return { collection: COLLECTION[prefix] || "rooms", code };
}

/** The room code of /r/CODE or /watch/CODE. */
export const codeFromPath = () => whereFromPath().code;

/** The phone page (its address is the join link) and the TV page of a room. */
export const phonePath = (code, collection = "rooms") => `/${PREFIX[collection] || "r"}/${code}`;
export const tvPath = (code, collection = "rooms") =>
  collection === "rooms" ? `/watch/${code}` : `/watch/${PREFIX[collection]}/${code}`;

/** The games this server hosts: [{name, title, collection}], as GET /api/games lists them. */
export const listGames = () => call("GET", "/api/games");

/** POST /api/<collection> with a game's options; the reply names the creator's token. */
export const createGame = (collection, body) => call("POST", `/api/${collection}`, body);
/** Join (or, with `banker` = the banker's token, seat someone after the start);
 * `phone: false` seats someone the banker plays for. */
export const joinRoom = (code, name, collection = "rooms", { phone = true, banker = null } = {}) =>
  call("POST", `/api/${collection}/${code}/players`, phone ? { name, client_seed: clientSeed() } : { name, phone: false }, banker);
/** This phone's share of the room's fair dice (docs/fair-dice.md): 128 random bits, in hex. */
const clientSeed = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
export const roomState = (code, collection = "rooms") => call("GET", `/api/${collection}/${code}`);
export const roomLog = (code, collection = "rooms", after = 0) =>
  call("GET", `/api/${collection}/${code}/log${after ? `?after=${after}` : ""}`);
export const joinLink = (code, collection = "rooms") => `${location.origin}${phonePath(code, collection)}`;
export const qrUrl = (code, collection = "rooms") => `/api/${collection}/${code}/qr.svg`;

/** The link that hands a seat to a phone: the token rides in the fragment, which never
 * reaches a server (nor its logs); the room page stores it as the seat. */
export const seatLink = (code, token, collection = "rooms") => `${joinLink(code, collection)}#token=${encodeURIComponent(token)}`;

/** That link as an SVG QR code (drawn by the server from a POST body, so the token is
 * in no address); resolves an object URL for an <img>. */
export async function seatQr(code, token, collection = "rooms") {
  const response = await fetch(`/api/${collection}/${code}/seat-qr.svg`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token }),
  });
  if (!response.ok) throw new ApiError(response.status, "http_error", "No QR code: use the link.");
  return URL.createObjectURL(await response.blob());
}
