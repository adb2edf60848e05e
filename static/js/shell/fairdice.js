// Re-checks every draw of a room's fair dice in the browser, exactly as
// scripts/verify_dice.py does: docs/fair-dice.md. checkDice(events) -> {count, wrong}.
// SHA-256 and HMAC come from @noble/hashes (static/vendor/), not WebCrypto: a phone on the
// venue's Wi-Fi opens the game over plain http, where `crypto.subtle` does not exist.

import { hmac } from "/static/vendor/noble-hashes/hmac.js";
import { sha256 as sha256Bytes } from "/static/vendor/noble-hashes/sha2.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "/static/vendor/noble-hashes/utils.js";

const sha256 = (hex) => bytesToHex(sha256Bytes(hexToBytes(hex)));

/** Draw n's bytes, one at a time: HMAC-SHA256(seed, "n:block:c1,c2…"), block 0, 1… */
function byteReader(seed, n, clients) {
  const key = hexToBytes(seed);
  let block = 0;
  let bytes = new Uint8Array(0);
  let at = 0;
  return () => {
    if (at === bytes.length) {
      bytes = hmac(sha256Bytes, key, utf8ToBytes(`${n}:${block++}:${clients.join(",")}`));
      at = 0;
    }
    return bytes[at++];
  };
}

/** Uniform in 0..bound-1: a byte at or above 256 - 256 % bound is skipped (no modulo bias). */
function below(next, bound) {
  for (;;) {
    const byte = next();
    if (byte < 256 - (256 % bound)) return byte % bound;
  }
}

function redraw(seed, clients, draw) {
  const next = byteReader(seed, draw.n, clients);
  const values = [];
  if (!draw.shuffle) {
    for (let i = 0; i < draw.values.length; i++) values.push((below(next, draw.sides)) + 1);
    return values;
  }
  const order = draw.values.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = below(next, i + 1); // Fisher-Yates
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** {count: rolls checked, wrong: null when every one checks out, else what is wrong first}
 * (async, as the page awaits it: the check itself is synchronous). */
export async function checkDice(events) {
  const clients = [];
  let seated = [];
  let waiting = [];
  let count = 0;
  let commit = null;
  for (const e of events) {
    const fair = e.fair || {};
    const data = e.data;
    const drawn = fair.drawn || [];
    commit = fair.dice_commit || commit;
    const seating = (data.seating || []).flat().map((p) => seated.indexOf(p));
    const shown = seating.length ? seating : data.dice;
    if (drawn.length && shown !== undefined && !same(shown, drawn.flatMap((d) => d.values))) {
      return { count, wrong: `Event ${e.seq} does not show what was drawn.` };
    }
    waiting.push(...drawn.map((draw) => ({ seq: e.seq, draw, seeds: [...clients] })));
    if (e.type === "kick") seated = seated.filter((p) => p !== data.player_id);
    if (e.type === "join") seated.push(data.player_id);
    if (fair.client_seed) clients.push(fair.client_seed);
    const reveal = fair.dice_reveal;
    if (!reveal) continue;
    if (sha256(reveal.seed) !== commit) {
      return { count, wrong: `The seed revealed at event ${e.seq} is not the one committed.` };
    }
    for (const { seq, draw, seeds } of waiting) {
      if (draw.n !== count + 1 || !same(redraw(reveal.seed, seeds, draw), draw.values)) {
        return { count, wrong: `Roll ${count + 1} (event ${seq}) does not check out.` };
      }
      count += 1;
    }
    waiting = [];
    commit = reveal.next_commit;
  }
  return { count, wrong: waiting.length ? `${waiting.length} rolls still wait for their seed.` : null };
}

/** What the page says of a check. */
export const verdict = ({ count, wrong }) =>
  wrong || (count === 1 ? "The 1 roll checks out." : `All ${count} rolls check out.`);
