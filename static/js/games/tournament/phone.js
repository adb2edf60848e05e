// A stub: Tournament phone views are still to come. The shell's lobby already works;
// past it this says so. Interface: docs/ui.md, "How a game's pages plug in".

export const lobby = {
  settings: (state) => `${state.games} games of ${state.rounds} rounds`,
  waiting: "Waiting for the organiser to start…",
  start: (state) => ({ command: { type: "next" } }), // the first game's tables
};

export function mount(ctx, root) {
  root.innerHTML = '<section class="view narrow"><h1 id="game-coming">Tournament pages are coming</h1></section>';
  return { render() {}, destroy: () => root.replaceChildren() };
}
