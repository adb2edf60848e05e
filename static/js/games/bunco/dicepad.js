// Three dice, each picked with one tap on a face 1..6, then Roll: the pad of a roller
// (roller mode) or of the host for one table (banker mode). A tap on a picked die takes
// it back. The pad is disabled while its roll waits for the server's answer.

import { $, h, setText } from "../../shell/dom.js";
import { die } from "./dice.js";

export function dicePad(onRoll, { label = "Roll" } = {}) {
  const picked = [];
  let waiting = false;
  let enabled = true;
  const slots = h("div", { class: "slots", role: "group", "aria-label": "Picked dice" });
  const faces = h(
    "div",
    { class: "faces", role: "group", "aria-label": "Pick three dice" },
    ...[1, 2, 3, 4, 5, 6].map((v) =>
      h("button", { type: "button", class: "face", "aria-label": `Die ${v}`, dataset: { v }, onclick: () => pick(v) }, die(v)),
    ),
  );
  const go = h("button", { type: "button", class: "pad-roll", onclick: send }, label);
  const el = h("div", { class: "dicepad3" }, faces, h("div", { class: "pad-row" }, slots, go));

  function pick(v) {
    if (picked.length < 3) picked.push(v);
    draw();
  }

  function draw() {
    slots.replaceChildren(
      ...[0, 1, 2].map((i) =>
        picked[i]
          ? h("button", { type: "button", class: "slot", "aria-label": `Take back the ${picked[i]}`, onclick: () => unpick(i) }, die(picked[i]))
          : h("span", { class: "slot empty", "aria-hidden": "true" }, "?"),
      ),
    );
    for (const b of faces.children) b.disabled = !enabled || waiting || picked.length >= 3;
    go.disabled = !enabled || waiting || picked.length < 3;
    setText(go, picked.length === 3 ? `${label} ${picked.join(" · ")}` : `${label} (pick ${3 - picked.length} more)`);
  }

  function unpick(i) {
    picked.splice(i, 1);
    draw();
  }

  async function send() {
    if (picked.length < 3 || waiting) return;
    waiting = true;
    draw();
    try {
      const reply = await onRoll([...picked]);
      if (reply?.ok !== false || reply.code === "round_over" || reply.code === "not_your_turn") picked.length = 0;
    } finally {
      waiting = false;
      draw();
    }
  }

  draw();
  return {
    el,
    enable(on) {
      if (enabled === on) return;
      enabled = on;
      draw();
    },
    clear() {
      picked.length = 0;
      draw();
    },
    faces: () => $(".faces", el),
  };
}
