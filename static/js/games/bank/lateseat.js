// The banker seats someone who arrives after the start: with a phone (the server's
// answer carries the new seat's token; the banker shows it as a QR code and a link,
// /r/CODE#token=..., that hands the seat to that phone: only the banker can hand it
// out), or without one (the banker plays for them).

import { ApiError, joinRoom, seatLink, seatQr } from "../../shell/api.js";
import { $, busy, nameLimit, setText, show } from "../../shell/dom.js";
import { JOIN_ERRORS } from "../../shell/joinview.js";
import { loopbackWarning } from "../../shell/lobbyview.js";

export function lateSeat(ctx) {
  const open = $("#late-open");
  const dialog = $("#late-dialog");
  const form = $("#late-form");
  const name = $("#late-name");
  nameLimit(name);
  const error = $("#late-error");
  const handover = $("#late-handover");
  let qrUrl = null;

  open.addEventListener("click", () => {
    form.reset();
    setText(error, "");
    show(form, true);
    show(handover, false);
    dialog.showModal();
    name.focus();
  });
  $("#late-cancel").addEventListener("click", () => dialog.close());
  $("#late-done").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    if (qrUrl) URL.revokeObjectURL(qrUrl);
    qrUrl = null;
    $("#late-qr").removeAttribute("src");
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const who = name.value.trim();
    if (!who) {
      setText(error, "Type their name.");
      name.focus();
      return;
    }
    const phone = form.elements.phone.value === "yes";
    await busy($("#late-submit"), "Seating…", async () => {
      try {
        const reply = await joinRoom(ctx.code, who, ctx.collection, { phone, banker: ctx.seat.token });
        if (!phone) {
          dialog.close();
          ctx.toast(`${who} is seated: tap Bank on their row when they call it.`);
          return;
        }
        showHandover(who, reply.token);
      } catch (failure) {
        const words = failure instanceof ApiError ? JOIN_ERRORS[failure.code] : null;
        setText(error, failure.code === "not_in_lobby" ? "The game is over: nobody can be seated." : words || failure.message);
      }
    });
  });

  async function showHandover(who, token) {
    const link = seatLink(ctx.code, token, ctx.collection);
    setText($("#late-who"), `${who}'s seat`);
    const anchor = $("#late-link");
    anchor.href = link;
    setText(anchor, "Copy this link to their phone");
    show(form, false);
    show(handover, true);
    $("#late-done").focus();
    try {
      qrUrl = await seatQr(ctx.code, token, ctx.collection);
      $("#late-qr").src = qrUrl;
      $("#late-qr").alt = `QR code: ${who}'s seat in game ${ctx.code}`;
      setText($("#late-qr-note"), loopbackWarning()); // the code carries this page's address
    } catch {
      setText($("#late-qr-note"), "No QR code (the server did not draw it): send them the link.");
    }
  }

  return {
    render(state, banker) {
      show(open, banker && state.status === "playing");
    },
  };
}
