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

/** The seat a link "…#token=T" hands over (a table's banker link), once: the token is
 * taken out of the address so that it is not bookmarked or shared further. */
export function seatFromHash(collection) {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (!token) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return { token, role: "banker", name: "Banker", collection };
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

export const lastName = () => read(NAME_KEY) || "";
export const rememberName = (name) => write(NAME_KEY, name);
