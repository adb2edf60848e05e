// Bunco's phone views (docs/ui.md, "How a game's pages plug in"): a player's own table
// (playview.js), the host's every-table page (hostview.js) and the end of the night
// (finalview.js). This module turns state differences into banners, the bell (flash,
// buzz, and a chime when sound is on) and the Bunco celebration.

import { announce } from "../../shell/announce.js";
import { $, show } from "../../shell/dom.js";
import { feel } from "../../shell/feel.js";
import { diff } from "./events.js";
import { FINAL, finalView } from "./finalview.js";
import { HOST, hostView } from "./hostview.js";
import { PLAY, playView } from "./playview.js";
import { VALID_COUNTS, bellAt, nameOf, seatOf, threeOfAKind } from "./rules.js";
import { ring } from "./sound.js";

export const styles = ["/static/css/games/bunco.css"];

const ENTRY_TEXT = {
  banker: "the host enters every roll",
  roller: "each roller taps their own dice",
  virtual: "the app rolls the dice",
};

const COUNTS = "8, 12, 16, 20 or 24 players";

/** What the shell's lobby shows of Bunco. */
export const lobby = {
  settings: (state) =>
    `${state.sets} ${state.sets === 1 ? "set" : "sets"} of 6 rounds · ${ENTRY_TEXT[state.roll_entry]} · for ${COUNTS} (tables of 4)`,
  waiting: "Waiting for the host to seat the tables…",
  howto: {
    title: "How Bunco works (30 seconds)",
    items: (state) => [
      "You sit at a table of 4; your <strong>partner</strong> sits across from you.",
      `Round 1 you want 1s, round 2 you want 2s, … up to 6. Each die showing the round's number: <strong>+1</strong>. Three of a kind: <strong>+${threeOfAKind(state)}</strong>. Three of the round's number: <strong>BUNCO! +21</strong>.`,
      "Keep rolling while you score; a miss passes the dice to your left.",
      `When a team at the <strong>High table</strong> reaches ${bellAt(state)}, the bell rings and the round ends everywhere.`,
      `Winners move up a table (${state.house_rules?.movement === "common" ? "High's winners stay, its losers go to Low" : "High's winners go to Low"}); partners change every round. Most wins takes the night.`,
    ],
  },
  start(state) {
    const n = state.players.length;
    const ok = VALID_COUNTS.includes(n);
    const label = ok ? `Start the night (${n} players, ${n / 4} tables)` : `Start needs ${COUNTS} (now ${n})`;
    return { command: { type: "start" }, label, enabled: ok };
  },
};

const VIEWS = `${PLAY}${HOST}${FINAL}`;

export function mount(shell, root) {
  root.innerHTML = VIEWS;
  const ctx = Object.create(shell);
  ctx.banner = null; // {kind, text, key}: bunco, bell, late; until the next ring
  const views = { play: playView(ctx), host: hostView(ctx), final: finalView(ctx) };
  function render(next, previous) {
    react(diff(previous, next), next, previous);
    const host = ctx.you?.role === "banker";
    const view = next.status === "finished" ? "final" : host ? "host" : "play";
    for (const key of ["play", "host", "final"]) show($(`#view-${key}`), key === view);
    // "bunco-…": room.css keeps BANK's "play" view from scrolling; a Bunco page scrolls.
    document.body.dataset.view = `bunco-${view}`;
    document.body.classList.toggle("bunco-is-host", host);
    views[view].render(next);
    document.title = `${next.status === "finished" ? "Final" : `Round ${next.round}`} · ${ctx.code} · bankit`;
  }

  function react(events, state, previous) {
    const me = ctx.you?.player_id;
    const host = ctx.you?.role === "banker";
    // Where I sat during the round just played (the state may already hold the new seating).
    const oldSeat = seatOf(previous?.tables, me);
    for (const event of events) {
      if (event.kind === "roll" && (host || oldSeat?.table.table === event.table)) announce(event.text);
      if (event.kind === "bunco") {
        const at = seatOf(previous?.tables, event.player_id);
        if (host || (oldSeat && at && oldSeat.table.table === at.table.table)) {
          const who = event.player_id === me ? "You" : nameOf(state, event.player_id);
          ctx.banner = { kind: "bunco", text: `⚄ BUNCO! ${who} rolled three ${previous.round}s: +21${host ? ` at the ${at?.table.name} table` : ""}` };
          feel("win");
          ring("bunco");
        }
      }
      if (event.kind === "bell") {
        const by = !event.by ? "" : event.by === me ? " Your roll ended it." : ` ${nameOf(state, event.by)}'s roll ended it.`;
        const mineBunco = ctx.banner?.kind === "bunco" ? `${ctx.banner.text} · ` : "";
        if (ctx.banner?.kind !== "late") ctx.banner = { kind: "bell", text: `${mineBunco}♫ The bell! Round ${previous.round} is over.${by}` };
        feel("bell");
        ring("bell");
        announce(ctx.banner.text, { urgent: true });
      }
      if (event.kind === "ring") {
        ctx.banner = null;
        if (!event.started) {
          feel("round");
          ring("bell");
        }
      }
      if (event.kind === "roll" && ctx.banner?.kind === "bunco" && event.roll.points !== 21) {
        const table = seatOf(state.tables, me)?.table;
        if (host || table?.table === event.table) ctx.banner = null;
      }
      if (event.kind === "roll" && ctx.banner?.kind === "undo") ctx.banner = null;
      if (event.kind === "undo") ctx.banner = { kind: "undo", text: "↶ The host took back the last roll." };
      if (event.kind === "finished") {
        feel("win");
        requestAnimationFrame(() => $("#final-title")?.focus()); // the result, for a keyboard and a reader
      }
    }
    const seat = seatOf(state.tables, me);
    const wasMine = seatOf(previous?.tables, me)?.table.roller === me;
    if (seat && seat.table.roller === me && !wasMine && state.status === "playing") announce("Your roll!", { urgent: true });
  }

  /** The socket is not live: scores shown may be old; say so in words. */
  function stale(on) {
    show($("#b-stale"), on);
    root.classList.toggle("is-stale", on);
  }

  function destroy() {
    root.replaceChildren();
    document.body.classList.remove("bunco-is-host");
  }

  return { render, stale, destroy };
}
