// The TV page of a group (/watch/g/CODE): the seasons' standings, kept live.

import { setText } from "../../shell/dom.js";
import { renderSeasons } from "./season.js";
import { followGroup } from "./live.js";

const code = (/^\/watch\/g\/([A-Z0-9]{4})$/i.exec(location.pathname) || [])[1]?.toUpperCase() || "";
setText(document.getElementById("g-code"), code);
followGroup(
  code,
  "",
  (state, names) => {
    setText(document.getElementById("g-title"), `${state.name} · season ${state.season}`);
    renderSeasons(document.getElementById("g-seasons"), state, names, null, { lines: false });
  },
  () => setText(document.getElementById("g-title"), "No such group"),
);
