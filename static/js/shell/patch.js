// The states-as-patches extension (docs/protocol.md): a `patch` message carries the
// operations that turn the state the phone has (seq `base`) into the new one (seq
// `seq`): RFC 6902's add, remove and replace, each written as [op, path, value].

/** The state after `ops`, on a copy of `state`; throws when an operation does not fit
 * (the phone then asks for the whole state). */
export function applyPatch(state, ops) {
  let doc = structuredClone(state);
  for (const [op, path, value] of ops) {
    if (path === "") {
      doc = structuredClone(value);
      continue;
    }
    const tokens = path.split("/").slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
    const last = tokens.pop();
    let target = doc;
    for (const token of tokens) {
      target = target[Array.isArray(target) ? Number(token) : token];
      if (target === null || typeof target !== "object") throw new Error(`no ${path}`);
    }
    if (Array.isArray(target)) {
      const index = last === "-" ? target.length : Number(last);
      if (!Number.isInteger(index) || index < 0 || index > target.length) throw new Error(`no ${path}`);
      if (op === "add") target.splice(index, 0, structuredClone(value));
      else if (index === target.length) throw new Error(`no ${path}`);
      else if (op === "remove") target.splice(index, 1);
      else target[index] = structuredClone(value);
    } else if (op === "add") {
      target[last] = structuredClone(value);
    } else if (!Object.hasOwn(target, last)) {
      throw new Error(`no ${path}`);
    } else if (op === "remove") {
      delete target[last];
    } else {
      target[last] = structuredClone(value);
    }
  }
  return doc;
}
