// Making events felt: a short vibration, a visual flash, a sound (when the phone has
// turned sound on: sound.js), and a screen that stays awake.

import { beep } from "./sound.js";

const PATTERNS = {
  bank: 40, round: [90, 60, 90], seven: [200, 80, 200], mine: [30, 40, 30], double: [30, 30, 30],
  win: [100, 50, 100, 50, 300],
};

/** Buzz (where the phone can), beep (if sound is on) and flash the screen; `kind` picks all three. */
export function feel(kind) {
  beep(kind);
  // Before a first tap the browser refuses (and logs it): a TV nobody touches never asks.
  if (navigator.userActivation?.hasBeenActive !== false) {
    try {
      navigator.vibrate?.(PATTERNS[kind] ?? 40);
    } catch {
      // no vibration motor
    }
  }
  const flash = document.getElementById("flash");
  if (!flash) return;
  flash.dataset.kind = kind;
  flash.classList.remove("on");
  void flash.offsetWidth; // restart the animation
  flash.classList.add("on");
}

/** Screen Wake Lock where the browser has it; taken again when the page comes back. */
export class Awake {
  constructor() {
    this.wanted = false;
    this.lock = null;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && this.wanted) this.acquire();
    });
  }

  async want(on) {
    this.wanted = on;
    if (on) await this.acquire();
    else this.release();
  }

  async acquire() {
    if (!("wakeLock" in navigator) || this.lock || document.visibilityState !== "visible") return;
    try {
      this.lock = await navigator.wakeLock.request("screen");
      this.lock.addEventListener("release", () => {
        this.lock = null;
      });
    } catch {
      this.lock = null; // battery saver, or not allowed: the game works anyway
    }
  }

  release() {
    this.lock?.release().catch(() => {});
    this.lock = null;
  }
}
