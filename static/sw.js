// The service worker: keeps the pages' shell (HTML, CSS, JS, icons) so that a phone can
// reopen the game on bad Wi-Fi, or from its home screen. The game itself (/api, /ws)
// always comes from the server: never cached. Pages are fetched fresh first (so a new
// version shows at once); the cache answers only when the network does not.

const CACHE = "bankit-shell-v1";
const SHELL = [
  "/",
  "/static/room.html",
  "/static/watch.html",
  "/static/manifest.webmanifest",
  "/static/favicon.svg",
  "/static/icons/icon.svg",
  "/static/icons/icon-192.png",
  "/static/css/base.css",
  "/static/css/home.css",
  "/static/css/room.css",
  "/static/css/watch.css",
  "/static/css/handover.css",
  "/static/js/shell/announce.js",
  "/static/js/shell/api.js",
  "/static/js/shell/chrome.js",
  "/static/js/shell/die.js",
  "/static/js/shell/dom.js",
  "/static/js/shell/fairdice.js",
  "/static/js/shell/feel.js",
  "/static/js/shell/games.js",
  "/static/js/shell/handover.js",
  "/static/js/shell/home.js",
  "/static/js/shell/housefold.js",
  "/static/js/shell/install.js",
  "/static/js/shell/joinview.js",
  "/static/js/shell/lobbyview.js",
  "/static/js/shell/patch.js",
  "/static/js/shell/room.js",
  "/static/js/shell/socket.js",
  "/static/js/shell/sound.js",
  "/static/js/shell/store.js",
  "/static/js/shell/trust.js",
  "/static/js/shell/watch.js",
  "/static/vendor/noble-hashes/_md.js",
  "/static/vendor/noble-hashes/_u64.js",
  "/static/vendor/noble-hashes/hmac.js",
  "/static/vendor/noble-hashes/sha2.js",
  "/static/vendor/noble-hashes/utils.js",
];
const NETWORK_WITHIN_MS = 4000; // bad Wi-Fi: after this the cached shell answers

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

/** Where a page's shell is cached: every /r/CODE is room.html, every /watch/... watch.html. */
function shellKey(url) {
  if (url.pathname === "/") return "/";
  if (/^\/(r|t)\/[^/]+$/.test(url.pathname)) return "/static/room.html";
  if (/^\/watch\//.test(url.pathname)) return "/static/watch.html";
  return url.pathname;
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) return; // network only
  const key = shellKey(url);
  if (key !== "/" && !key.startsWith("/static/")) return;
  event.respondWith(fresh(event.request, key));
});

async function fresh(request, key) {
  const cache = await caches.open(CACHE);
  const network = fetch(request).then((response) => {
    if (response.ok) cache.put(key, response.clone());
    return response;
  });
  const late = new Promise((resolve) => setTimeout(resolve, NETWORK_WITHIN_MS));
  try {
    const first = await Promise.race([network, late.then(() => null)]);
    if (first) return first;
    return (await cache.match(key)) || (await network);
  } catch {
    const cached = await cache.match(key);
    if (cached) return cached;
    throw new Error("offline, and this page was never cached");
  }
}
