// Two dice for a reroll, one tap each, then Enter: for `roller` (the player's own roll)
// and `banker` mode (the organiser types each tied player's roll).

import { h } from "../../shell/dom.js";

const chosen = new Map(); // player id -> [first, second] picked so far (kept across renders)

/** `who`: {name: "Ann", whose: "Ann's"}, or {name: "You", whose: "your"} for the player's own. */
export function dicePicker(id, who, send) {
  const pick = chosen.get(id) || [null, null];
  const row = (index, title) =>
    h(
      "div",
      { class: "t-dice", role: "group", "aria-label": `${who.name}: ${title}` },
      h("span", { class: "t-dice-label" }, title),
      [1, 2, 3, 4, 5, 6].map((n) =>
        h(
          "button",
          {
            type: "button",
            class: pick[index] === n ? "secondary chosen" : "secondary",
            "aria-pressed": String(pick[index] === n),
            "aria-label": `${who.name}: ${title} ${n}`,
            onclick: (event) => {
              pick[index] = n;
              chosen.set(id, pick);
              event.currentTarget.closest(".t-picker").replaceWith(dicePicker(id, who, send));
            },
          },
          String(n),
        ),
      ),
    );
  const ready = pick[0] && pick[1];
  return h(
    "div",
    { class: "t-picker" },
    row(0, "first die"),
    row(1, "second die"),
    h(
      "button",
      {
        type: "button",
        class: "primary",
        disabled: !ready,
        onclick: () => {
          chosen.delete(id);
          send([pick[0], pick[1]]);
        },
      },
      ready ? `Enter ${who.whose} roll: ${pick[0]} + ${pick[1]}` : `Enter ${who.whose} roll (pick both dice)`,
    ),
  );
}
