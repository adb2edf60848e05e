// What every page does first: the sound toggle in the top bar, and the service worker
// that keeps the pages' shell for bad Wi-Fi and the home screen (static/sw.js).

import { soundToggle } from "./sound.js";

const toggle = document.getElementById("sound-toggle");
if (toggle) soundToggle(toggle);

if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // no worker (private mode, an old browser): the pages work the same, online
  });
}
