// The dice pad: ONE tap per roll. A keypad of the totals 3..11 (not doubles) and a
// row of the six doubles (1+1 = 2 ... 6+6 = 12). Each key says what it will do to
// the BANK right now (+8, +70, ×2, END), so the banker never has to think.
// A total is sent as a total ({"type": "roll", "total": 8}): no dice are invented;
// doubles are sent as their dice.

import { die } from "./dice.js";
import { h, points, setText } from "../../shell/dom.js";
import { doublesAdd, nextRollSafe, sevenPoints } from "./rules.js";

const REPEAT_GUARD_MS = 300; // a bouncing finger on the same key is one tap

function effect(state, total, doubles) {
  if (nextRollSafe(state)) {
    const seven = sevenPoints(state);
    return { short: total === 7 ? `+${seven}` : `+${total}`, long: total === 7 ? `adds ${seven}` : `adds ${total}` };
  }
  if (total === 7) return { short: "END", long: "ends the round" };
  if (doubles && doublesAdd(state)) return { short: `×2 +${total}`, long: `doubles the BANK and adds ${total}: ${points(state.bank * 2 + total)}` };
  if (doubles) return { short: "×2", long: `doubles the BANK to ${points(state.bank * 2)}` };
  return { short: `+${total}`, long: `adds ${total}` };
}

/** onRoll(roll, key) is called with {total} or {dice: [a, a]} and the key pressed; returns {el, update(state, enabled)}. */
export function dicePad(onRoll) {
  const keys = [];
  let lastKey = null;
  let lastAt = 0;

  // The name comes from the key's own words (no aria-label that the visible text would not
  // start): "Roll 8: +8 (adds 8)", "Double 4s, 8: 8 ×2 (doubles the BANK to 140)".
  function key(roll, label, extraClass) {
    const short = h("span", {});
    const long = h("span", { class: "sr-only" });
    const hint = h("span", { class: "hint" }, short, long);
    const button = h(
      "button",
      {
        type: "button",
        class: `key ${extraClass}`,
        dataset: { roll: roll.dice ? roll.dice.join("-") : String(roll.total) },
        onclick: () => {
          const now = performance.now();
          if (lastKey === button && now - lastAt < REPEAT_GUARD_MS) {
            bounced(button);
            return;
          }
          lastKey = button;
          lastAt = now;
          setText(note, "");
          onRoll(roll, button);
        },
      },
      label,
      hint,
    );
    keys.push({ button, short, long, roll });
    return button;
  }

  const totals = h("div", { class: "keys totals", role: "group", "aria-label": "Roll total, not doubles" });
  for (let total = 3; total <= 11; total += 1) {
    const words = h("span", { class: "num" }, h("span", { class: "sr-only" }, `Roll ${total}: `), h("span", { "aria-hidden": "true" }, total));
    totals.append(key({ total }, words, total === 7 ? "seven" : ""));
  }
  const doubles = h("div", { class: "keys doubles", role: "group", "aria-label": "Doubles" });
  for (let face = 1; face <= 6; face += 1) {
    const label = h("span", { class: "dbl" }, h("span", { class: "sr-only" }, `Double ${face}s, ${face * 2}: `), die(face, "mini"), die(face, "mini"));
    doubles.append(key({ dice: [face, face] }, label, "double"));
  }
  const note = h("p", { class: "pad-note", role: "status" });
  const el = h("div", { class: "dicepad" }, totals, doubles, note);

  /** A bounce is not lost in silence: the key shakes and the pad says why. */
  function bounced(button) {
    button.classList.remove("shake");
    void button.offsetWidth; // restart the animation
    button.classList.add("shake");
    setText(note, "Same key twice in a row: counted once. Tap again to enter it twice.");
  }

  // Any tap elsewhere (undo, bank-for) ends a bounce: the same key may count again at once.
  document.addEventListener("pointerdown", (event) => {
    if (!el.contains(event.target)) lastKey = null;
  }, true);

  function update(state, enabled) {
    const danger = !nextRollSafe(state);
    el.classList.toggle("danger", danger);
    for (const { button, short, long, roll } of keys) {
      const total = roll.total ?? roll.dice[0] * 2;
      const doubles = Boolean(roll.dice);
      const what = effect(state, total, doubles);
      // Doubles show their sum too: "+10" while safe (the sum is what it adds), "10 ×2" after
      // ("×2 +10" when the house rules add it).
      setText(short, doubles && what.short === "×2" ? `${total} ×2` : what.short);
      setText(long, ` (${what.long})`);
      button.disabled = !enabled;
    }
  }

  return { el, update };
}
