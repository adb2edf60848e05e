// The current game's tables, as links: a table room opens with the same token as the
// tournament (the organiser's is every table's banker; a player's is its seat there), so
// the seat is stored for the table's code before the page goes there (shell/store.js).
// The organiser can also hand a table to a second scorekeeper: a banker link as a QR code.

import { ApiError, seatQr } from "../../shell/api.js";
import { h, setText } from "../../shell/dom.js";
import { saveSeat } from "../../shell/store.js";
import { namesOf } from "./standings.js";

const STATUS_TEXT = { lobby: "not started", playing: "▶ playing", finished: "✓ finished" };
export const tableStatus = (status) => STATUS_TEXT[status] || status;

/** Store the table room's seat for this phone's token (no re-join), then open it. */
export function seatAt(ctx, table) {
  const host = ctx.you?.role === "organiser";
  saveSeat(table.code, {
    token: ctx.seat.token,
    role: host ? "banker" : "player",
    player_id: host ? null : ctx.you?.player_id,
    name: ctx.seat.name,
    collection: "rooms",
  });
}

export function tableLink(ctx, table, text, cls = "button primary") {
  return h("a", { class: cls, href: `/r/${table.code}`, onclick: () => seatAt(ctx, table) }, text);
}

const handed = new Map(); // table code -> banker token made for it (kept across renders)

async function bankerLink(ctx, table) {
  const response = await fetch(`/api/tournaments/${ctx.code}/tables/${table.table}/banker`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ctx.seat.token}` },
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data.error?.code, data.error?.message || "The link could not be made.");
  return data.banker_token;
}

/** The link as a QR code, drawn by the server from a POST (the token stays out of URLs). */
function qrImage(table, token) {
  const img = h("img", {
    class: "qr",
    alt: `QR code: the banker's page of table ${table.table}`,
    width: 200,
    height: 200,
  });
  seatQr(table.code, token).then((url) => (img.src = url), () => img.remove());
  return img;
}

function handover(table) {
  const token = handed.get(table.code);
  const link = `${location.origin}/r/${table.code}#token=${token}`;
  return h(
    "div",
    { class: "handover" },
    qrImage(table, token),
    h("p", { class: "small" }, "The scorekeeper scans this to become table ", String(table.table), "'s banker: ", h("a", { href: link, class: "handover-link" }, link)),
  );
}

/** The organiser's card for each table: status, players, open as banker, hand over. */
export function organiserTables(ctx, state, redraw) {
  return state.tables.map((table) =>
    h(
      "li",
      { class: "t-card", dataset: { table: table.table } },
      h("h3", {}, `Table ${table.table} · ${table.code} · ${tableStatus(table.status)}`),
      h("p", {}, namesOf(state, table.players)),
      tableLink(ctx, table, `Open table ${table.table} as its banker`),
      handed.has(table.code)
        ? handover(table)
        : h(
            "button",
            {
              type: "button",
              class: "secondary",
              onclick: async (event) => {
                const button = event.currentTarget;
                button.disabled = true;
                setText(button, "Making the link…");
                try {
                  handed.set(table.code, await bankerLink(ctx, table));
                } catch (failure) {
                  ctx.toast(failure.message);
                }
                redraw();
              },
            },
            `Hand table ${table.table} to a scorekeeper`,
          ),
    ),
  );
}

/** Every table in one line each, for a player: "Table 1 (K7QF): Ann, Bob — ▶ playing". */
export function tablesSummary(state) {
  return state.tables.map((table) =>
    h("li", { dataset: { table: table.table } }, `Table ${table.table}: ${namesOf(state, table.players)} — ${tableStatus(table.status)}`),
  );
}
