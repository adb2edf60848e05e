// Re-checks every draw of a room's fair dice in the browser (WebCrypto), exactly as
// scripts/verify_dice.py does: docs/fair-dice.md. checkDice(events) -> {count, wrong}.

const hexBytes = (hex) => Uint8Array.from(hex.match(/../g) || [], (pair) => parseInt(pair, 16));
const toHex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
const sha256 = async (hex) => toHex(await crypto.subtle.digest("SHA-256", hexBytes(hex)));

/** Draw n's bytes, one at a time: HMAC-SHA256(seed, "n:block:c1,c2…"), block 0, 1… */
function byteReader(key, n, clients) {
  let block = 0;
  let bytes = new Uint8Array(0);
  let at = 0;
  return async () => {
    if (at === bytes.length) {
      const message = new TextEncoder().encode(`${n}:${block++}:${clients.join(",")}`);
      bytes = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
      at = 0;
    }
    return bytes[at++];
  };
}

/** Uniform in 0..bound-1: a byte at or above 256 - 256 % bound is skipped (no modulo bias). */
async function below(next, bound) {
  for (;;) {
    const byte = await next();
    if (byte < 256 - (256 % bound)) return byte % bound;
  }
}

async function redraw(seed, clients, draw) {
  const key = await crypto.subtle.importKey("raw", hexBytes(seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const next = byteReader(key, draw.n, clients);
  const values = [];
  if (!draw.shuffle) {
    for (let i = 0; i < draw.values.length; i++) values.push((await below(next, draw.sides)) + 1);
    return values;
  }
  const order = draw.values.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = await below(next, i + 1); // Fisher-Yates
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** {count: rolls checked, wrong: null when every one checks out, else what is wrong first}. */
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
    if ((await sha256(reveal.seed)) !== commit) {
      return { count, wrong: `The seed revealed at event ${e.seq} is not the one committed.` };
    }
    for (const { seq, draw, seeds } of waiting) {
      if (draw.n !== count + 1 || !same(await redraw(reveal.seed, seeds, draw), draw.values)) {
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
