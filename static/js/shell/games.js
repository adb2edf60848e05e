// Loading a game's page module by the state's `game`: /static/js/games/<game>/<page>.js
// (page "phone" or "tv"), and the style sheets it names, before it is mounted, so that
// its first frame is already laid out. The interface is in docs/ui.md.

const NAME = /^[a-z][a-z0-9_]{0,31}$/;
const sheets = new Map(); // href -> Promise, so a sheet is added once

/** The game's module for this page; rejects when the name cannot be a game's. */
export async function loadGame(game, page) {
  if (!NAME.test(String(game))) throw new Error(`Not a game name: ${JSON.stringify(game)}`);
  const module = await import(`/static/js/games/${game}/${page}.js`);
  await Promise.all((module.styles || []).map(stylesheet));
  return module;
}

function stylesheet(href) {
  if (!sheets.has(href)) {
    sheets.set(href, new Promise((resolve) => {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = href;
      link.onload = link.onerror = () => resolve();
      document.head.append(link);
    }));
  }
  return sheets.get(href);
}

/** Who created the room (the banker of a room, the organiser of a tournament)? */
export const isHost = (you) => Boolean(you) && you.role !== "player" && you.role !== "spectator";

/** Throw outside the promise chain, so that the page's error handlers (and tests) see it. */
export function surface(error) {
  setTimeout(() => {
    throw error;
  });
}
