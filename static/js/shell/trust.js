// What every page shows of a room's trust: its house rules ("House rules: 4 safe rolls"),
// when they differ from the seed's, and on a finished game whose dice were drawn by the
// server, "Verify these dice" (docs/fair-dice.md). trust(main, state, {code, collection}).

import { roomLog } from "./api.js";
import { h, setText, show, showCard } from "./dom.js";
import { checkDice, verdict } from "./fairdice.js";

const WORDS = {
  safe_rolls: (n) => `${n} safe ${n === 1 ? "roll" : "rolls"}`,
  seven_points: (n) => `a safe 7 adds ${n}`,
  min_bank: (n) => `no BANK below ${n}`,
  doubles: (how) => (how === "double_add" ? "doubles double the BANK and add the roll" : "doubles double the BANK"),
  bell_at: (n) => `the bell rings at ${n}`,
  three_of_a_kind: (n) => `three of a kind scores ${n}`,
  movement: (how) => (how === "common" ? "the High table's winners stay" : "the High table's winners go to Low"),
};

/** "House rules: 4 safe rolls, no BANK below 100", or "" when the room plays the seed's. */
export function houseRulesText(rules) {
  const parts = Object.entries(rules || {}).map(([key, value]) => (WORDS[key] ? WORDS[key](value) : `${key}: ${value}`));
  return parts.length ? `House rules: ${parts.join(", ")}.` : "";
}

let bar = null; // one per page

/** Draws (or updates) the trust bar: at the top of `main` (a phone's page, where it scrolls
 * with the rest), or just before it with `before` (the TV's `main` lays its views out in a
 * row, which the bar must not join). */
export function trust(main, state, where, before = false) {
  if (!bar) {
    bar = h("aside", { class: "trust", hidden: "", "aria-label": "House rules and dice" },
      h("p", { class: "trust-house muted small center" }),
      h("p", { class: "trust-verify center", hidden: "" },
        h("button", { type: "button", class: "secondary" }, "Verify these dice")),
      h("p", { class: "trust-verdict small center", role: "status" }));
    if (before) main.before(bar);
    else main.prepend(bar);
    bar.querySelector("button").addEventListener("click", () => verify(bar, where));
  }
  const house = houseRulesText(state.house_rules);
  setText(bar.querySelector(".trust-house"), house);
  show(bar.querySelector(".trust-house"), Boolean(house));
  const revealed = state.status === "finished" && Boolean(state.fair?.revealed?.length);
  show(bar.querySelector(".trust-verify"), revealed);
  showCard(bar, Boolean(house) || revealed);
}

async function verify(bar, where) {
  const button = bar.querySelector("button");
  const out = bar.querySelector(".trust-verdict");
  button.disabled = true;
  setText(out, "Checking every roll…");
  try {
    const events = [];
    let after = 0;
    do { // a long night's log comes in pages
      const page = await roomLog(where.code, where.collection, after);
      events.push(...page.events);
      after = page.next_after;
    } while (after);
    setText(out, verdict(await checkDice(events)));
  } catch (failure) {
    setText(out, `Could not check the dice: ${failure.message}`);
  } finally {
    button.disabled = false;
  }
}
