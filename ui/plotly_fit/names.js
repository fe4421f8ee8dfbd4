// Axes that name their cells (tokens, heads): up to NAMED_UP_TO of them, every cell keeps its name. A map grows
// taller so that each row gets a line for its name (not a map with square cells, whose width sets its height); a
// row of names across turns (to 45 degrees, then upright) and then takes a smaller font, down to five eighths of the
// figure's (never under SMALLEST_TICK_PX); only past that, or past NAMED_UP_TO cells, are names thinned out
// (ticks.js), the hover naming every cell.

const NAMED_UP_TO = 40; // cells named one by one: viz.labels.NAMED_UP_TO, which the figure standard checks
const SMALLEST_TICK_PX = 10; // the figure standard's smallest text
const LEVEL_GAP_PX = 4; // between level names written one a cell
// between level names of one character each (letters): a glyph's advance already holds its side bearings
const LETTER_GAP_PX = 2;

function namesCells(texts, figure = null, key = null) {
  // Labels that name cells one by one (words, not numbers along an axis; or numbers the figure says name its cells,
  // ``layout.meta.named_axes``: heads), few enough to keep every one: up to NAMED_UP_TO a map, on each of a grid's
  // tiles (viz/tiles.py) where they repeat.
  const meta = (figure && figure.layout.meta) || {};
  const named = (meta.named_axes || []).includes(key)
    || texts.some((text) => text.trim() !== "" && Number.isNaN(Number(text)));
  return named && texts.length <= NAMED_UP_TO * (meta.tiles ? meta.tiles.count : 1);
}

function mostlyShort(texts) {
  // Half of the labels or more of one or two characters (letters, one-character tokens): such an axis stays level.
  return 2 * texts.filter((text) => [...String(text)].length <= 2).length >= texts.length;
}

function axisCells(figure, key, ticks) {
  // The cells along an axis: its span, and at least the stretch its labelled ticks cover.
  return Math.max(axisSpan(figure, key), ticks[ticks.length - 1][0] - ticks[0][0] + 1);
}

function namePx(texts, size, family, angle) {
  // The px from one name's place to the next that names at ``size`` need: level, the widest and LEVEL_GAP_PX
  // (LETTER_GAP_PX between names of one character each); turned by ``angle`` degrees, a line (LINE font sizes)
  // across their baselines.
  if (angle !== 0) return (LINE * size) / Math.sin((angle * Math.PI) / 180);
  const gap = texts.every((text) => [...String(text)].length <= 1) ? LETTER_GAP_PX : LEVEL_GAP_PX;
  return widestName(texts, size, family) + gap;
}

function widestName(texts, size, family) {
  return Math.max(...texts.map((text) => textWidth(text, size, 400, family)));
}

function smallestStep(ticks, unitPx) {
  // The px from one label's place to the next, at the closest.
  return Math.min(...ticks.slice(1).map((tick, i) => (tick[0] - ticks[i][0]) * unitPx));
}

function smallestNameFont(layout) {
  // Five eighths of the figure's font, so that names keep their size relative to the rest, and readable: 10 px at
  // a desktop's 15, the figure standard's 14 px at a projector's 22.5.
  return Math.max(SMALLEST_TICK_PX, Math.round((5 / 8) * fontOf(layout).size * 2) / 2);
}

function gridNameFont(figure, width) {
  // The font a grid of tiles (viz/tiles.py) names its cells at: the largest, down to smallestNameFont, at which a
  // tile's column names fit its width (words upright, letters level); null for a figure without tiles or names.
  const layout = figure.layout, tiles = layout.meta && layout.meta.tiles, axis = layout.xaxis || {};
  if (!tiles || !Array.isArray(axis.ticktext) || axis.showticklabels === false) return null;
  const texts = axis.ticktext.slice(0, tiles.cols).map(String);
  if (texts.length < tiles.cols || !namesCells(texts, figure, "xaxis")) return null;
  const font = fontOf(layout, axis.tickfont), span = axisSpan(figure, "xaxis"); // cells across, as tiled now
  const tilePx = (plotWidthOf(layout, width, figure) * tiles.cols) / Math.max(span, tiles.cols);
  const floor = Math.min(font.size, smallestNameFont(layout)), angle = mostlyShort(texts) ? 0 : 90;
  let size = font.size;
  while (size - 0.5 >= floor && namePx(texts, size, font.family, angle) * tiles.cols > tilePx) size -= 0.5;
  return size;
}

function nameEveryCell(layout, axis, ticks, texts, unitPx, angles) {
  // Keep every label of an axis that names its cells. Across (``angles``, the turns the axis allows, in degrees:
  // level, words apart by LEVEL_GAP_PX, then 45, then upright) at the axis's font and then at smaller ones; down
  // (``angles`` null), a line a label. True when one of those fits, with the axis set to it.
  const horizontal = angles !== null, step = smallestStep(ticks, unitPx), font = fontOf(layout, axis.tickfont);
  for (let size = font.size; size >= Math.min(font.size, smallestNameFont(layout)) - 0.01; size -= 0.5) {
    for (const angle of angles || [0]) {
      if ((horizontal ? namePx(texts, size, font.family, angle) : LINE * size) > step) continue;
      if (size !== font.size) axis.tickfont = { ...(axis.tickfont || {}), size };
      if (horizontal && typeof axis.tickangle !== "number") {
        axis.tickangle = -angle;
        // upright names below a margin the server fixed for names at 45 degrees: the margin grows by the difference
        if (angle === 90 && axis.automargin === false) {
          const more = Math.ceil(widestName(texts, size, font.family) * (1 - Math.SQRT1_2));
          margins(layout).b += more;
          grow(layout, more);
        }
      }
      axis.tickmode = "array";
      axis.tickvals = ticks.map((tick) => tick[1]);
      axis.ticktext = texts;
      return true;
    }
  }
  return false;
}

function namesFitAcross(figure, key, px) {
  // False when the x axis ``key``, ``px`` wide, names its cells and could not write every name even at the smallest
  // font (words at the axis's own angle where it sets one, else upright; letters level): panels side by side that
  // narrow are stacked instead (panels.js). The angle is the one ticks.js may use, so a panel judged wide enough
  // names every cell.
  const layout = figure.layout, axis = layout[key] || {};
  if (axis.visible === false || axis.showticklabels === false) return true;
  const ticks = axisTicks(figure, key, axis);
  const texts = (ticks || []).map((tick) => String(tick[2]));
  if (texts.length < 2 || !namesCells(texts, figure, key)) return true;
  const font = fontOf(layout, axis.tickfont), size = Math.min(font.size, smallestNameFont(layout));
  const turned = typeof axis.tickangle === "number" ? Math.abs(axis.tickangle) % 180 : 90;
  const need = namePx(texts, size, font.family, mostlyShort(texts) ? 0 : turned);
  return smallestStep(ticks, px / axisCells(figure, key, ticks)) >= need;
}

function tileNamesPx(figure, tiles) {
  // The narrowest a tile of a grid (viz/tiles.py) may be for the x axis to name each of its columns at the smallest
  // font (words turned as the axis turns them, else upright; letters level): 0 where the axis names none.
  const layout = figure.layout, axis = layout.xaxis || {};
  if (axis.visible === false || axis.showticklabels === false || !Array.isArray(axis.ticktext)) return 0;
  const texts = axis.ticktext.slice(0, tiles.cols).map(String);
  if (texts.length < tiles.cols || !namesCells(texts)) return 0;
  const font = fontOf(layout, axis.tickfont), size = Math.min(font.size, smallestNameFont(layout));
  const turned = typeof axis.tickangle === "number" && axis.tickangle % 180 !== 0 ? Math.abs(axis.tickangle) % 180 : 90;
  return namePx(texts, size, font.family, mostlyShort(texts) ? 0 : turned) * tiles.cols;
}

function roomForRowNames(figure, width) {
  // A figure whose rows of named cells (queries down a map) are closer than a line of their names grows, the
  // plot area by what its closest rows need (its margins kept): px added. A grid of tiles sets its rows' names
  // smaller before it grows, down to the size its columns fit (gridNameFont): not a grid several screens tall.
  const layout = figure.layout, margin = margins(layout);
  if (typeof layout.height !== "number") return 0;
  const plotHeight = layout.height - margin.t - margin.b, gridFont = gridNameFont(figure, width);
  let needed = plotHeight;
  for (const key of Object.keys(layout).filter((name) => /^yaxis\d*$/.test(name))) {
    const axis = layout[key];
    if (!axis || axis.visible === false || axis.showticklabels === false || axis.scaleanchor) continue;
    const ticks = axisTicks(figure, key, axis);
    if (!ticks || ticks.length < 2 || !namesCells(ticks.map((tick) => String(tick[2])), figure, key)) continue;
    const span = axisCells(figure, key, ticks);
    const domain = axis.domain || [0, 1], share = domain[1] - domain[0];
    const closest = smallestStep(ticks, 1), font = fontOf(layout, axis.tickfont).size;
    if (!(share > 0 && closest > 0)) continue;
    // a grid's rows keep their font where they fit; else it gets smaller, down to its columns' (gridFont)
    const fitting = Math.floor((2 * (plotHeight * closest * share)) / (LINE * span)) / 2;
    const size = gridFont ? Math.min(font, Math.max(gridFont, fitting)) : font;
    if (size < font) axis.tickfont = { ...(axis.tickfont || {}), size };
    needed = Math.max(needed, (LINE * size * span) / closest / share);
  }
  const added = Math.ceil(needed - plotHeight);
  if (added > 0) grow(layout, added);
  return Math.max(0, added);
}

// ---- names over columns ----

function sharedWord(texts) {
  // {word, rest} when every text is "<word> <rest>" with the same word ("head 1" ... "head 12"), else null.
  const parts = texts.map((text) => /^(\S+) (.+)$/.exec(String(text)));
  if (texts.length < 2 || parts.some((part) => !part || part[1] !== parts[0][1])) return null;
  return { word: parts[0][1], rest: parts.map((part) => part[2]) };
}

function fitHeaderRows(figure, width) {
  // Rows of names over columns (annotations at data x, all at one height: "head 1" ... over a grid's
  // columns) that would touch: the shared first word dropped; the names left, set apart as an axis's names are
  // (LEVEL_GAP_PX), at their font and then smaller, down to smallestNameFont; only then every k-th name kept.
  const layout = figure.layout, margin = margins(layout), notes = layout.annotations || [];
  const rows = new Map();
  for (const note of notes) {
    const xref = note.xref || "x";
    if (!/^x\d*$/.test(xref) || note.visible === false || note.text === undefined) continue;
    const row = `${xref}|${note.yref || "y"}|${note.y}|${note.yshift || 0}`; // one height: y and its shift
    rows.set(row, [...(rows.get(row) || []), note]);
  }
  let changed = 0;
  for (const [row, members] of rows) {
    if (members.length < 2) continue;
    const xref = row.split("|")[0], key = "xaxis" + xref.slice(1);
    const span = axisSpan(figure, key);
    if (!span) continue;
    const domain = (layout[key] || {}).domain || [0, 1];
    const unitPx = (plotWidthOf(layout, width) * (domain[1] - domain[0])) / span;
    members.sort((a, b) => a.x - b.x);
    const font = fontOf(layout, members[0].font);
    const clear = (texts, chosen, size, gap) => chosen.slice(1).every((n, i) => (members[n].x - members[chosen[i]].x)
      * unitPx >= (textWidth(texts[n], size, 400, font.family) + textWidth(texts[chosen[i]], size, 400, font.family))
      / 2 + gap);
    let texts = members.map((note) => String(note.text));
    const all = members.map((_, i) => i);
    if (clear(texts, all, font.size, 0.8 * font.size)) continue;
    const shared = sharedWord(texts);
    if (shared) texts = shared.rest;
    let size = font.size;
    const floor = Math.min(font.size, smallestNameFont(layout));
    while (size - 0.5 >= floor - 0.01 && !clear(texts, all, size, LEVEL_GAP_PX)) size -= 0.5;
    const kept = [0];
    if (clear(texts, all, size, LEVEL_GAP_PX)) kept.push(...all.slice(1));
    else {
      size = font.size;
      for (let i = 1; i < members.length; i++) {
        if (clear(texts, [kept[kept.length - 1], i], size, 0.8 * size)) kept.push(i);
      }
    }
    members.forEach((note, i) => {
      note.text = texts[i];
      if (size !== font.size) note.font = { ...(note.font || {}), size };
      if (!kept.includes(i)) note.visible = false;
    });
    changed += 1;
  }
  return changed;
}
