// The bell: a short chime made with the Web Audio API, only once the player turned sound
// on (off by default; the choice is kept in localStorage). Browsers let audio start only
// after a tap, so the context is made by the tap that turns sound on.

const KEY = "bankit:bunco:sound";
let audio = null;

export function soundOn() {
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

/** Turn sound on or off (call it from a tap); returns the new setting. */
export function setSound(on) {
  try {
    localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    // private mode: the choice lasts as long as the page
  }
  if (on) unlock();
  return on;
}

function unlock() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!audio) audio = new Context();
  audio.resume?.().catch(() => {});
  return audio;
}

/** Ring: two bell partials that fade in 0.9 s. Silent when sound is off or not allowed. */
export function ring(kind = "bell") {
  if (!soundOn()) return;
  try {
    const ctx = unlock();
    if (!ctx || ctx.state !== "running") return;
    const now = ctx.currentTime;
    const tones = kind === "bunco" ? [660, 880, 1320] : [880, 1320];
    tones.forEach((freq, i) => {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = freq;
      osc.type = "sine";
      const start = now + (kind === "bunco" ? i * 0.12 : 0);
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.3 / (i + 1), start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.9);
      osc.connect(gain).connect(ctx.destination);
      osc.start(start);
      osc.stop(start + 1);
    });
  } catch {
    // no audio on this device: the flash and the buzz still say it
  }
}
