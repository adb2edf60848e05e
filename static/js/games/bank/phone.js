// BANK!'s phone views (docs/ui.md, "How a game's pages plug in"): the live round, for a
// player (huge BANK button) or the banker (dice pad, bank on behalf, undo), and the final
// standings. The shell owns join, lobby, socket and chrome; this turns states into
// these views, the feed, the banners and the buzzes.

import { $, h, plural, points, setText, show } from "../../shell/dom.js";
import { announce } from "../../shell/announce.js";
import { feel } from "../../shell/feel.js";
import { diff, missedText, feedSoFar } from "./events.js";
import { finalView } from "./finalview.js";
import { HISTORY_HEAD } from "./history.js";
import { playView } from "./playview.js";
import { howtoItems } from "./rules.js";

export const styles = ["/static/css/games/bank.css"];

const ENTRY_TEXT = {
  banker: "the banker enters the rolls",
  roller: "each roller enters their own roll",
  virtual: "the app rolls the dice",
};

/** What the shell's lobby shows of BANK!. */
export const lobby = {
  settings: (state) => `${plural(state.rounds, "round")} · ${ENTRY_TEXT[state.roll_entry]}`,
  waiting: "Waiting for the banker to start…",
  howto: { title: "How BANK! works (30 seconds)", items: howtoItems },
};

const FEED_SIZE = 12;

const VIEWS = `
  <section id="view-play" class="view play" hidden aria-labelledby="round-info">
    <div class="status-row">
      <h1 id="round-info" class="round-info"></h1>
      <span id="phase" class="phase"></span>
    </div>
    <div class="bank-box" id="bank-box" role="status" aria-live="polite" aria-atomic="true">
      <span class="bank-label">BANK</span>
      <span id="bank-total" class="bank-total">0</span>
      <span id="bank-stale" class="stale-note" hidden>not current</span>
    </div>
    <p id="phase-hint" class="phase-hint"></p>
    <div class="roll-row">
      <span id="last-roll" class="last-roll"></span>
      <span id="turn" class="turn"></span>
    </div>
    <p id="banner" class="banner" hidden></p>
    <div class="scroll" id="play-scroll" role="region" aria-label="Scores and what happened">
      <h2 class="sr-only">Scores</h2>
      <ol id="board" class="board"></ol>
      <button id="late-open" class="secondary late-open" type="button" hidden>+ Seat a late player</button>
      <h2 class="feed-title">What happened</h2>
      <ol id="feed" class="feed"></ol>
    </div>
    <div class="thumb-zone"> <!-- the pad and the actions: they stick to the bottom (bank.css) -->
    <div id="pad-area" class="pad-area" hidden></div>
    <div class="actionbar" id="actionbar">
      <p id="tap-note" class="tap-note" role="alert" hidden></p>
      <button id="bank-btn" class="bank-btn" type="button" hidden>BANK</button>
      <button id="undo-btn" class="undo-btn" type="button" hidden>
        <span class="undo-label"><span aria-hidden="true">↶ </span>Undo last roll</span><span class="sr-only">: </span><span id="undo-what" class="undo-what"></span>
      </button>
    </div>
    </div>
    <dialog id="late-dialog" class="late-dialog" aria-labelledby="late-title">
      <h2 id="late-title">Seat a late player</h2>
      <form id="late-form" novalidate>
        <label for="late-name">Their name</label>
        <input id="late-name" maxlength="24" autocomplete="off" autocapitalize="words" placeholder="e.g. Dee">
        <fieldset>
          <legend>Do they have a phone?</legend>
          <div class="choices">
            <input type="radio" name="phone" id="late-phone" value="yes" checked>
            <label for="late-phone"><strong>Yes</strong><span>They scan a code from your screen and BANK themselves.</span></label>
            <input type="radio" name="phone" id="late-nophone" value="no">
            <label for="late-nophone"><strong>No phone</strong><span>You tap Bank on their row when they call it.</span></label>
          </div>
        </fieldset>
        <p class="form-error" id="late-error" role="alert"></p>
        <div class="dialog-buttons">
          <button class="secondary" type="button" id="late-cancel">Cancel</button>
          <button class="primary" type="submit" id="late-submit">Seat them</button>
        </div>
      </form>
      <div id="late-handover" hidden>
        <p><strong id="late-who"></strong>: let them scan this with their phone's camera.
          It opens the game as them; only you can hand it out.</p>
        <img id="late-qr" class="qr" alt="" width="220" height="220">
        <p id="late-qr-note" class="muted small"></p>
        <p class="center"><a id="late-link" href="#"></a></p>
        <button class="primary big" type="button" id="late-done">Done</button>
      </div>
    </dialog>
  </section>

  <section id="view-final" class="view narrow" hidden aria-labelledby="final-title">
    <h1 id="final-title" class="final-title" tabindex="-1">Game over</h1>
    <div id="final-me" class="final-me"></div>
    <div id="again-box" class="card again" hidden>
      <h2>Another game?</h2>
      <p class="muted small">Same group, same rules: every phone and the TV follow by themselves.</p>
      <details class="more">
        <summary>Leave someone out first</summary>
        <ul id="again-drop" class="drop-list"></ul>
      </details>
      <button id="again-btn" class="primary big" type="button">Play again</button>
    </div>
    <p id="final-wait" class="muted center" hidden>If the banker plays again, this phone goes to the new game by itself.</p>
    <ol id="final-board" class="board final"></ol>
    <h2>Every round</h2>
    <table class="history">
      ${HISTORY_HEAD}
      <tbody id="final-history"></tbody>
    </table>
    <div class="actionbar static">
      <a class="button secondary big" href="/">Home</a>
      <button id="final-undo" class="secondary undo-btn" type="button" hidden>
        <span class="undo-label"><span aria-hidden="true">↶ </span>Undo the last roll</span><span class="sr-only">: </span><span id="final-undo-what" class="undo-what"></span>
      </button>
    </div>
  </section>`;

export function mount(shell, root) {
  root.innerHTML = VIEWS;
  // The views read the shell's live fields (state, you, socket, command) through this,
  // plus BANK's own: what the state does not say about the round, and the banner.
  const ctx = Object.create(shell);
  ctx.banner = null; // {text, kind, round}
  const views = { play: playView(ctx), final: finalView(ctx) };
  let seeded = false;

  function render(next, previous, moment = {}) {
    if (!seeded || moment.welcome) {
      // A reload, a phone that joins mid-game, or a reconnect: the round so far from the
      // state alone, exactly as a reload builds it (a difference across a gap invents).
      const back = seeded && previous ? missedText(previous, next) : "";
      seed(next);
      if (back) {
        ctx.toast(back);
        announce(back);
      }
    } else {
      const events = diff(previous, next);
      if (events.some((e) => e.kind === "undo")) seed(next); // what an undo took back leaves the feed
      react(events, next, previous);
    }
    draw(next);
  }

  /** The feed of the round so far, from one state alone (round_log, last_round). */
  function seed(state) {
    seeded = true;
    const feed = $("#feed");
    feed.replaceChildren();
    for (const item of feedSoFar(state)) feed.prepend(h("li", { class: `ev ${item.kind}` }, item.text));
    while (feed.children.length > FEED_SIZE) feed.lastElementChild.remove();
  }

  function draw(state) {
    const view = state.status === "finished" ? "final" : "play";
    for (const key of ["play", "final"]) show($(`#view-${key}`), key === view);
    document.body.dataset.view = view;
    views[view].render(state);
    document.title =
      state.status === "playing" ? `BANK ${points(state.bank)} · ${ctx.code} · bankit` : `Final · ${ctx.code} · bankit`;
  }

  function react(events, state, previous) {
    const me = ctx.you?.player_id;
    const feed = $("#feed");
    for (const event of events) {
      feed.prepend(h("li", { class: `ev ${event.kind}` }, event.text));
      announce(event.text); // the banker's feed is not shown: every page says it anyway
      if (event.kind === "bank") feel(event.player_id === me ? "mine" : "bank");
      if (event.kind === "roll" && event.doubles) feel("double");
      if (event.kind === "round") {
        const seven = event.entry.ended_by === "seven";
        feel(seven ? "seven" : "round");
        if (me && seven && event.waited.includes(me)) {
          ctx.banner = { kind: "lost", text: `Too late — the 7 came first. Round ${event.entry.round} paid you nothing.`, round: state.round };
        } else if (me && seven) {
          const mine = event.entry.banked.find((b) => b.player_id === me);
          ctx.banner = { kind: "saved", text: `Phew! You banked ${points(mine.amount)} before the 7.`, round: state.round };
        } else if (seven) {
          ctx.banner = { kind: "lost", text: `7! Round ${event.entry.round} is over.`, round: state.round };
        } else {
          ctx.banner = { kind: "saved", text: `Everyone banked: round ${event.entry.round} is over.`, round: state.round };
        }
      }
      if (event.kind === "round" && ctx.banner?.kind === "lost" && me) announce(ctx.banner.text, { urgent: true });
      if (event.kind === "undo") ctx.banner = null;
      if (event.kind === "finished") {
        feel("win");
        requestAnimationFrame(() => $("#final-title")?.focus()); // where a keyboard and a reader go next
      }
    }
    if (me && state.status === "playing" && state.turn === me && previous?.turn !== me && !events.some((e) => e.kind === "finished")) {
      announce("Your roll!", { urgent: true });
    }
    while (feed.children.length > FEED_SIZE) feed.lastElementChild.remove();
    // A round's banner stays until the next round's first roll.
    if (ctx.banner && (state.round !== ctx.banner.round || state.roll_count > 0) && state.status === "playing") {
      ctx.banner = null;
    }
  }

  /** Until the socket is live again, the BANK shown may be old: grey it and say so in words. */
  function stale(on) {
    $("#bank-total").classList.toggle("stale", on);
    show($("#bank-stale"), on);
    if (ctx.state?.status === "playing" && ctx.you) views.play.render(ctx.state); // "Banking… (reconnecting)"
  }

  function destroy() {
    root.replaceChildren();
    document.body.classList.remove("is-banker", "has-pad");
  }

  return { render, stale, destroy };
}
