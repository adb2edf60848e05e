// A stub: Bunco phone views are still to come. The shell's lobby already works;
// past it this says so. Interface: docs/ui.md, "How a game's pages plug in".

export const lobby = { settings: (state) => `${state.sets} ${state.sets === 1 ? "set" : "sets"} of 6 rounds` };

export function mount(ctx, root) {
  root.innerHTML = '<section class="view narrow"><h1 id="game-coming">Bunco pages are coming</h1></section>';
  return { render() {}, destroy: () => root.replaceChildren() };
}
