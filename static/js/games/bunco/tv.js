// A stub: Bunco tv views are still to come. The shell's lobby already works;
// past it this says so. Interface: docs/ui.md, "How a game's pages plug in".

export { lobby } from "./phone.js";

export function mount(ctx, root) {
  root.innerHTML = '<section class="view narrow"><h1 id="game-coming">Bunco pages are coming</h1></section>';
  return { render() {}, destroy: () => root.replaceChildren() };
}
