// Short sounds for the events of any game, made with the Web Audio API (no audio files).
// Off by default; one tap on the top bar's toggle turns them on, remembered on this phone.
// beep(kind): "bank" / "mine" (a bright chirp), "seven" (a low falling buzz), "double"
// (two quick rising notes), "round", "win", Bunco's "bell" and "bunco"; anything else:
// a short tick.

const KEY = "bankit:sound";
const TONES = {
  bank: [[880, 0.08], [1320, 0.1]],
  mine: [[990, 0.08], [1480, 0.12]],
  seven: [[220, 0.18, "sawtooth"], [150, 0.3, "sawtooth"]],
  double: [[660, 0.07], [880, 0.07], [1100, 0.1]],
  round: [[523, 0.1], [392, 0.14]],
  win: [[523, 0.1], [659, 0.1], [784, 0.1], [1047, 0.22]],
  bell: [[880, 0.3, "sine"], [1320, 0.6, "sine"]], // Bunco's bell: every table stops
  bunco: [[660, 0.12, "sine"], [880, 0.12, "sine"], [1320, 0.5, "sine"]],
};

let audio = null;

export function soundOn() {
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

export function setSound(on) {
  try {
    localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    // private mode: on for this page only
  }
  if (on) context(); // made inside the tap, so that the browser lets it play
}

function context() {
  if (!audio) {
    const Audio = window.AudioContext || window.webkitAudioContext;
    if (!Audio) return null;
    audio = new Audio();
  }
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

/** Play the sound of `kind` if sound is on; never throws. Returns whether it played. */
export function beep(kind) {
  if (!soundOn()) return false;
  try {
    const ctx = context();
    if (!ctx) return false;
    let at = ctx.currentTime + 0.01;
    for (const [freq, length, wave = "square"] of TONES[kind] || [[740, 0.05]]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.15, at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
      osc.connect(gain).connect(ctx.destination);
      osc.start(at);
      osc.stop(at + length + 0.02);
      at += length;
    }
    window.__bankitBeeps = (window.__bankitBeeps || 0) + 1; // what a test can count
    return true;
  } catch {
    return false;
  }
}

/** The top bar's toggle: a real button that says, in words, whether sound is on. Its name
 * is its words ("Sound off": WCAG 2.5.3 Label in Name), short enough for a phone's top bar. */
export function soundToggle(button) {
  const draw = () => {
    const on = soundOn();
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Sound on" : "Sound off";
    button.removeAttribute("aria-label");
    button.title = on ? "Tap to turn sounds off" : "Tap to hear a BANK, a 7 and doubles";
  };
  button.addEventListener("click", () => {
    setSound(!soundOn());
    draw();
    beep("bank");
  });
  draw();
}
