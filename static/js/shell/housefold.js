// Reads a game's "House rules" fold of a create form: only what differs from the seed's
// rules is sent, so a room created without changes is the seed's game, byte for byte.

/**
 * `fields`: [[name, lowest, highest, the seed's value (null: empty means none)]];
 * `choices`: {radio name: the seed's value}. Returns {options} or {error}.
 */
export function houseOptions(form, fields, choices) {
  const options = {};
  for (const [name, low, high, seed] of fields) {
    const input = form.elements[name];
    const text = input.value.trim();
    if (text === "" && seed === null) continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value < low || value > high) {
      const label = input.labels[0].textContent.replace(/ \(.*/, "");
      return { error: `House rules: ${label}: a whole number from ${low} to ${high}.` };
    }
    if (value !== seed) options[name] = value;
  }
  for (const [name, seed] of Object.entries(choices)) {
    if (form.elements[name].value !== seed) options[name] = form.elements[name].value;
  }
  return { options };
}
