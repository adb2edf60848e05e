// The page chrome every game shares: the live badge in the top bar, in words.

import { setText } from "./dom.js";

const PHASE_TEXT = {
  connecting: "Connecting…",
  live: "● Live",
  reconnecting: "Reconnecting…",
  gone: "Offline",
};

/** The socket's status ({phase, attempt}) on the badge: "● Live", "Reconnecting… (try 3)". */
export function showConnection(el, { phase, attempt }) {
  el.dataset.phase = phase;
  const text = phase === "reconnecting" && attempt > 1 ? `Reconnecting… (try\u00a0${attempt})` : PHASE_TEXT[phase];
  setText(el, text);
}
