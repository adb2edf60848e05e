// Seats kept in localStorage, one per room, so that a reload keeps the seat.

const seatKey = (code) => `bankit:seat:${code}`;
const NAME_KEY = "bankit:name";

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Private mode or a full store: the seat lasts as long as the page.
  }
}

/** {token, role: "banker"|"organiser"|"player", player_id, name, collection?} or null
 * (collection: "rooms" when absent, as seats saved before tournaments were). */
export function loadSeat(code) {
  const seat = read(seatKey(code));
  return seat && typeof seat.token === "string" ? seat : null;
}

export function saveSeat(code, seat) {
  write(seatKey(code), { ...seat, saved: Date.now() });
}

export function forgetSeat(code) {
  try {
    localStorage.removeItem(seatKey(code));
  } catch {
    // nothing to forget
  }
}

/** Seats saved on this phone in the last `hours`, newest first: [{code, ...seat}] */
export function recentSeats(hours = 12) {
  const since = Date.now() - hours * 3600_000;
  const seats = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (!key.startsWith("bankit:seat:")) continue;
      const seat = read(key);
      if (seat && seat.saved > since) seats.push({ code: key.slice("bankit:seat:".length), ...seat });
    }
  } catch {
    return [];
  }
  return seats.sort((a, b) => b.saved - a.saved);
}

/** A link that hands a seat to this phone (`/r/CODE#token=...`, from the banker's late
 * seat QR code): the token leaves the address bar (it must not be bookmarked, shared or
 * shown). Returns the seat, `linked` (not saved: the room page saves it once the server
 * has welcomed it, so that a bad link never costs the seat this phone holds), or null. */
export function seatFromAddress(code, collection = "rooms") {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(null, "", location.pathname + location.search);
  let token;
  try {
    token = decodeURIComponent(match[1]);
  } catch {
    return null;
  }
  return { token, role: "player", player_id: null, name: "", collection, linked: true };
}

export const lastName = () => read(NAME_KEY) || "";
export const rememberName = (name) => write(NAME_KEY, name);
