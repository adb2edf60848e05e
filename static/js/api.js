// The HTTP half of the protocol: create, join, read a room and its log.

export const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const CODE_RE = new RegExp(`^[${CODE_ALPHABET}]{4}$`);

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body ? { "Content-Type": "application/json" } : {},
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

/** The room code of /r/CODE or /watch/CODE. */
export function codeFromPath() {
  const last = location.pathname.split("/").filter(Boolean).pop() || "";
  return normaliseCode(decodeURIComponent(last));
}

export const createRoom = (rounds, rollEntry) =>
  call("POST", "/api/rooms", { game: "bank", rounds, roll_entry: rollEntry });
export const joinRoom = (code, name) => call("POST", `/api/rooms/${code}/players`, { name });
export const roomState = (code) => call("GET", `/api/rooms/${code}`);
export const roomLog = (code) => call("GET", `/api/rooms/${code}/log`);
export const joinLink = (code) => `${location.origin}/r/${code}`;
export const qrUrl = (code) => `/api/rooms/${code}/qr.svg`;
