// What a screen reader hears, for every game: one polite log of what happened (every
// roll, BANK, 7, bell, the result) and one urgent line ("Your roll!", "Too late").
// Visually hidden and outside the game's views, so a feed that is not shown (the
// banker's) or not there (Bunco) is still heard.

const KEEP = 6; // the last few lines: older ones have been read out already

let log = null;
let alert = null;

function regions() {
  if (!log) {
    log = Object.assign(document.createElement("div"), { className: "sr-only", id: "say-log" });
    log.setAttribute("role", "log");
    log.setAttribute("aria-live", "polite");
    alert = Object.assign(document.createElement("div"), { className: "sr-only", id: "say-now" });
    alert.setAttribute("aria-live", "assertive");
    alert.setAttribute("aria-atomic", "true");
    document.body.append(log, alert);
  }
}

/** Say `text`: politely after what is being read, or (urgent) at once. */
export function announce(text, { urgent = false } = {}) {
  if (!text) return;
  regions();
  if (urgent) {
    // The same words twice in a row are still said twice: the text must change.
    alert.textContent = alert.textContent === text ? `${text}\u00a0` : text;
    return;
  }
  const line = document.createElement("p");
  line.textContent = text;
  log.append(line);
  while (log.children.length > KEEP) log.firstElementChild.remove();
}
