// The end of the game: the winner(s) and the final standings.

import { board } from "./board.js";
import { $, names, ordinal, points, setText, show } from "../../shell/dom.js";
import { nameOf, ranked } from "./rules.js";

export function finalView(ctx) {
  const updateBoard = board($("#final-board"));
  const undo = $("#final-undo");
  undo.addEventListener("click", () => ctx.command({ type: "undo" }));

  function render(state) {
    const winners = state.winners.map((id) => nameOf(state, id));
    const top = ranked(state)[0]?.player;
    setText(
      $("#final-title"),
      winners.length ? `★ ${names(winners)} ${winners.length > 1 ? "win" : "wins"}! ★` : "Game over",
    );
    const me = ctx.you?.player_id;
    const mine = ranked(state).find(({ player }) => player.id === me);
    let text = `Game over after ${state.rounds} rounds. Top score: ${points(top ? top.score : 0)}.`;
    if (mine) {
      text = state.winners.includes(me)
        ? `You won with ${points(mine.player.score)}!`
        : `You finished ${ordinal(mine.place)} with ${points(mine.player.score)}.`;
    }
    setText($("#final-me"), text);
    updateBoard(state, { me, sorted: true, showPlace: true });
    show(undo, ctx.you?.role === "banker");
  }

  return { render };
}
