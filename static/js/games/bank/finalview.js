// The end of the game: the winner(s), the final standings, every round; for the banker,
// play again with the same group (dropping people first if need be) and the last undo.

import { board } from "./board.js";
import { drawHistory } from "./history.js";
import { $, h, names, ordinal, plural, points, setText, show } from "../../shell/dom.js";
import { nameOf, ranked } from "./rules.js";
import { undoPreviewText } from "./words.js";

export function finalView(ctx) {
  const updateBoard = board($("#final-board"));
  const undo = $("#final-undo");
  const again = $("#again-btn");
  const dropList = $("#again-drop");
  undo.addEventListener("click", () => ctx.command({ type: "undo" }));
  again.addEventListener("click", async () => {
    const drop = [...dropList.querySelectorAll("input:checked")].map((box) => box.value);
    again.disabled = true;
    setText(again, "Making the next game…");
    const reply = await ctx.command({ type: "play_again", drop });
    if (!reply.ok) {
      again.disabled = false;
      drawAgain(ctx.state);
    } // ok: the next state names next_game, and the shell takes every phone there
  });
  dropList.addEventListener("change", () => drawAgain(ctx.state));

  function drawAgain(state) {
    const dropped = dropList.querySelectorAll("input:checked").length;
    const playing = state.players.length - dropped;
    again.disabled = playing < 1;
    setText(again, `Play again (${playing} ${playing === 1 ? "player" : "players"})`);
  }

  function drawDrops(state) {
    const key = state.players.map((p) => p.id).join(",");
    if (dropList.dataset.key === key) return;
    dropList.dataset.key = key;
    dropList.replaceChildren(
      ...state.players.map((p) =>
        h("li", {},
          h("input", { type: "checkbox", id: `drop-${p.id}`, value: p.id }),
          h("label", { for: `drop-${p.id}` }, `Leave out ${p.name}`)),
      ),
    );
  }

  function render(state) {
    const winners = state.winners.map((id) => nameOf(state, id));
    const top = ranked(state)[0]?.player;
    setText(
      $("#final-title"),
      winners.length ? `★ ${names(winners)} ${winners.length > 1 ? "win" : "wins"}! ★` : "Game over",
    );
    const me = ctx.you?.player_id;
    const mine = ranked(state).find(({ player }) => player.id === me);
    let text = `Game over after ${plural(state.rounds, "round")}. Top score: ${points(top ? top.score : 0)}.`;
    if (mine) {
      const tied = ranked(state).filter(({ place }) => place === mine.place).length > 1;
      if (state.winners.includes(me)) {
        text = tied ? `You won, tied with ${points(mine.player.score)}!` : `You won with ${points(mine.player.score)}!`;
      } else {
        text = `You ${tied ? "tied for" : "finished"} ${ordinal(mine.place)} with ${points(mine.player.score)}.`;
      }
    }
    setText($("#final-me"), text);
    updateBoard(state, { me, sorted: true, showPlace: true });
    drawHistory($("#final-history"), state);
    const banker = ctx.you?.role === "banker";
    const open = banker && !state.next_game && !state.tournament; // a tournament seats its own next game
    show($("#again-box"), open);
    if (open) {
      drawDrops(state);
      if (!again.textContent.startsWith("Making")) drawAgain(state);
    }
    show(undo, banker && Boolean(state.undo_preview));
    const what = undoPreviewText(state);
    setText($("#final-undo-what"), what);
    const wait = $("#final-wait");
    setText(
      wait,
      state.tournament
        ? `Back to tournament ${state.tournament.code} in a moment: the places and points are there.`
        : "If the banker plays again, this phone goes to the new game by itself.",
    );
    show(wait, Boolean(state.tournament) || (!banker && !state.next_game));
  }

  return { render };
}
