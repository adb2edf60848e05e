// Tiny DOM helpers: build elements, update text only when it changed, format numbers.

/** h("button", {class: "x", onclick: f}, "text", child) -> Element */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** Set text without touching the DOM when nothing changed (keeps aria-live quiet). */
export function setText(el, text) {
  if (el && el.textContent !== String(text)) el.textContent = String(text);
}

export function show(el, visible) {
  if (el) el.hidden = !visible;
}

/** show() for a card that asks something of this person (an offer, a reroll, where to go
 * next): when it appears, it comes into view and takes the focus (reveal). */
export function showCard(el, visible) {
  const appears = el.hidden && visible;
  show(el, visible);
  if (appears) reveal(el);
}

/** A card that just appeared (an offer, a vote, house rules): brought into view by the
 * page's own scroll (clear of the sticky bars) and given focus, so that a screen reader
 * reads it and a keyboard goes on from it; a field being typed in keeps its focus. */
export function reveal(el) {
  if (!el.hasAttribute("tabindex")) el.tabIndex = -1;
  el.scrollIntoView({ block: "nearest" });
  if (!document.activeElement?.matches("input, textarea, select")) el.focus({ preventScroll: true });
}

export const points = (n) => Number(n).toLocaleString("en-US");

/** "1 round", "3 rounds" (`many` for irregular plurals). */
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "1st", "2nd", "3rd", "4th"... */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th";
  return `${n}${suffix}`;
}

/** "Ann", "Ann and Bob", "Ann, Bob and Cy" */
export function names(list) {
  if (list.length <= 1) return list.join("");
  return `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
}

/** Disable a button and say what is happening while `work` runs. */
export async function busy(button, text, work) {
  const label = button.textContent;
  button.disabled = true;
  setText(button, text);
  try {
    await work();
  } finally {
    button.disabled = false;
    setText(button, label);
  }
}

/** A name field says its limit while typing (and when a paste is cut), not afterwards:
 * "3 characters left", "24 characters: the most a name can have". */
export function nameLimit(input) {
  const max = input.maxLength;
  const note = h("p", { class: "limit-note small", id: `${input.id}-limit`, "aria-live": "polite" });
  (input.closest(".inline") ?? input).after(note); // under a field that shares its row
  input.setAttribute("aria-describedby", note.id);
  let cut = false;
  input.addEventListener("paste", (event) => {
    const pasted = event.clipboardData?.getData("text") ?? "";
    cut = input.value.length - (input.selectionEnd - input.selectionStart) + pasted.length > max;
  });
  input.addEventListener("input", () => {
    const left = max - input.value.length;
    let text = "";
    if (cut) text = `Cut to ${max} characters: the most a name can have.`;
    else if (left <= 0) text = `${max} characters: the most a name can have.`;
    else if (left <= 5) text = `${left} ${left === 1 ? "character" : "characters"} left.`;
    cut = false;
    setText(note, text);
  });
}
