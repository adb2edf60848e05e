// The page chrome every game shares: the live badge in the top bar, in words.

import { h, setText } from "./dom.js";

/** A tournament's table that finished: its result stays this long, then every phone and
 * TV goes back to the tournament's page by itself. */
export const BACK_AFTER_MS = 3000;

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

/** The top bar sticks to the top of the page: its height (it wraps, a toast joins it) is
 * the page's --sticky-top, so that what is focused or brought into view stops below it. */
export function stickyTop(bar) {
  const keep = () => document.documentElement.style.setProperty("--sticky-top", `${bar.offsetHeight}px`);
  new ResizeObserver(keep).observe(bar);
  keep();
}

/** A tournament's table room ({code, game, table} in its state): a link back to /t/CODE. */
export function tournamentLink(bar, tournament) {
  if (!tournament || bar.querySelector(".back-tournament")) return;
  const from = ` ${tournament.code} (back from game ${tournament.game}, table ${tournament.table})`;
  const link = h("a", { class: "back-tournament", href: `/t/${tournament.code}` }, // named by its words
    h("span", { "aria-hidden": "true" }, "← "), "Tournament", h("span", { class: "sr-only" }, from));
  bar.querySelector(".conn").before(link);
}
