// The HTTP half of a group (docs/protocol.md, "Groups") and where its member token is kept.

async function call(method, path, body = null, token = null) {
  const headers = body ? { "Content-Type": "application/json" } : {};
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  } catch {
    throw new Error("No connection to the server. Check your Wi-Fi and try again.");
  }
  if (response.status === 204) return {};
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error((data.error && data.error.message) || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

const key = (code) => `bankit:group:${code}`;

/** {host_token?, token?, member_id?, name?} kept by this phone (the host's token, the
 * member's), or null. */
export function loadMembership(code) {
  try {
    const kept = JSON.parse(localStorage.getItem(key(code)) || "null");
    return kept && (typeof kept.token === "string" || typeof kept.host_token === "string") ? kept : null;
  } catch {
    return null;
  }
}

export function saveMembership(code, membership) {
  try {
    localStorage.setItem(key(code), JSON.stringify(membership));
  } catch {
    // private mode: the membership lasts as long as the page
  }
}

export function forgetMembership(code) {
  try {
    localStorage.removeItem(key(code));
  } catch {
    // nothing kept
  }
}

export const createGroup = (name) => call("POST", "/api/groups", { name });
export const groupState = (code) => call("GET", `/api/groups/${code}`);
export const joinGroup = (code, name) => call("POST", `/api/groups/${code}/members`, { name });
export const leaveGroup = (code, token) => call("DELETE", `/api/groups/${code}/members/me`, null, token);
export const startGame = (code, token, game, options) =>
  call("POST", `/api/groups/${code}/games`, { game, options }, token);
export const seatMe = (code, token, game) =>
  call("POST", `/api/groups/${code}/games/${game}/players`, null, token);
export const closeSeason = (code, token) => call("POST", `/api/groups/${code}/seasons`, null, token);
