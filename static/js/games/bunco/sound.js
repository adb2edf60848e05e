// The bell and a Bunco's fanfare, through the shell's sounds: one setting for every page
// (off by default, remembered on this phone; the top bar's toggle is the same switch).

import { beep } from "../../shell/sound.js";

/** Ring the bell ("bell") or a Bunco ("bunco"); silent while sound is off. */
export function ring(kind = "bell") {
  beep(kind);
}
