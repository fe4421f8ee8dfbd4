// A figure fitted to the width it is drawn at, before Plotly draws it: a phone's 360 px as well as a
// projector's 1600. The figures are built for a wide column; where the plot is narrower than that,
//  - colour bars lie under the plot (below NARROW_PX) instead of taking a third of the width beside it,
//  - tiled grids (layout.meta.tiles, see viz/tiles.py) wrap to fewer tiles a row, down to one,
//  - panels side by side (subplots in one row) that would be too narrow, or whose row labels would lie over
//    the neighbouring panel, are stacked, one a row (labels the same as the neighbour's are shown once
//    instead); a panel's name wider than the figure wraps, a colour bar runs along the panels it colours,
//    and a legend under them stays as close under them,
//  - a title too long for the width wraps (measured in the weight it is drawn in), and a legend above the
//    plot moves under the title,
//  - tick labels that would pile up are thinned out (a label every k cells; the hover still names every
//    cell), upright ones that do not fit are turned, and a log axis labels fewer of the digits between its
//    powers of ten.
// Nothing changes where everything fits, so a wide screen gets the figure as it was built. On a touch
// screen a drag over a plot scrolls the page (dragmode false): zooming stays on the toolbar's buttons; the
// toolbar is always shown there, so a title of several lines, or one under a toolbar of two rows, is lowered
// below it.

const NARROW_PX = 420; // plots narrower than this (a phone's) get their colour bars and legends below
const MIN_PANEL_PX = 100; // a panel narrower than this, or than its name, is stacked under its neighbour
const BAR_BELOW_PX = 58; // room for a horizontal colour bar: its title, the bar and its tick labels
const TITLE_TOP_PX = 34; // where a title's first line starts (TITLE_BELOW_TOOLBAR in viz/style.py)
const LEGEND_ROW_PX = 24;
const PANEL_TITLE_PX = 30; // room above a stacked panel for its name
const TOOLBAR_ONE_ROW_PX = 240; // a plot narrower than this has its toolbar (shown on a touch screen) in two rows
const TOOLBAR_ROW_PX = 26;
const FONT_FAMILY = "Source Sans Pro, Arial, sans-serif";

let measurer = null;
const LINE = 1.25; // a label's box across its baseline, in font sizes: a line with its ascenders and descenders

function textWidth(text, size, weight = 400, family = FONT_FAMILY) {
  // The width of text as the browser draws it (markup removed, entities decoded), in px.
  measurer = measurer || document.createElement("canvas").getContext("2d");
  measurer.font = `${weight >= 600 ? "bold" : "normal"} ${size}px ${family}`; // a semi-bold may be drawn bold
  const plain = String(text).replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
  return measurer.measureText(plain).width;
}

function fontOf(layout, font) {
  const base = layout.font || {};
  return { size: (font && font.size) || base.size || 12, family: (font && font.family) || base.family || FONT_FAMILY,
           weight: (font && font.weight) || 400 };
}

function margins(layout) {
  // The figure's margins (Plotly's defaults where it sets none), one object that every step changes.
  const margin = (layout.margin = layout.margin || {});
  for (const [side, px] of [["l", 80], ["r", 80], ["t", 100], ["b", 80]]) {
    if (typeof margin[side] !== "number") margin[side] = px;
  }
  return margin;
}

function yAxesOnTheLeft(layout) {
  return Object.keys(layout).filter((key) => /^yaxis\d*$/.test(key) && layout[key]
    && ((layout[key].side || "left") === "left"));
}

function plotWidthOf(layout, width, figure = null) {
  // The plot area's width: the figure's less its margins, the left one at least what Plotly will grow it
  // to (automargin) for a y axis's tick labels and title, the right one for the colour bars at the right
  // of the figure (given).
  const margin = margins(layout);
  let right = margin.r;
  for (const owner of figure ? colourBars(figure) : []) {
    const bar = owner.colorbar || {}, font = fontOf(layout, bar.tickfont);
    if (bar.orientation === "h") continue;
    const title = typeof bar.title === "string" ? bar.title : (bar.title || {}).text;
    right = Math.max(right, (bar.thickness ?? 30) + (bar.xpad ?? 10) + 6 + 2.6 * font.size
                            + (title ? LINE * fontOf(layout, (bar.title || {}).font).size : 0));
  }
  let left = margin.l;
  for (const key of yAxesOnTheLeft(layout)) {
    const axis = layout[key];
    if (axis.visible === false || axis.automargin === false) continue;
    const font = fontOf(layout, axis.tickfont);
    const texts = Array.isArray(axis.ticktext) ? axis.ticktext : null;
    const labels = axis.showticklabels === false ? 0
      : texts ? Math.max(0, ...texts.map((t) => textWidth(t, font.size, 400, font.family))) : 2.2 * font.size;
    const title = typeof axis.title === "string" ? axis.title : (axis.title || {}).text;
    left = Math.max(left, labels + 12 + (title ? font.size * 1.3 + 12 : 0));
  }
  return width - left - right;
}

function grow(layout, px) {
  // More room inside the figure (a wrapped title, a colour bar below): the plot area keeps its height.
  if (px > 0 && typeof layout.height === "number") layout.height = Math.round(layout.height + px);
}

// ---- numbers travelling as typed base64 blocks ({dtype, bdata, shape}) and nested arrays ----

const TYPED = { f8: Float64Array, f4: Float32Array, u1: Uint8Array, i1: Int8Array, u2: Uint16Array, i2: Int16Array,
                u4: Uint32Array, i4: Int32Array };

function decoded(value) {
  // The typed array a {dtype, bdata} block holds.
  const text = atob(value.bdata), bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new TYPED[value.dtype](bytes.buffer);
}

function gridShape(value) {
  // [rows, columns] of a 2-D value (read from a typed block's shape, not decoded), or null.
  if (value && value.bdata && TYPED[value.dtype]) {
    const shape = String(value.shape || "").split(",").map((n) => parseInt(n, 10));
    return shape.length === 2 ? shape : null;
  }
  const rows = gridRows(value);
  return rows ? [rows.length, rows[0].length] : null;
}

function gridRows(value) {
  // A 2-D value as an array of rows (typed rows stay typed), or null when it is not 2-D.
  if (value && value.bdata && TYPED[value.dtype]) {
    const shape = String(value.shape || "").split(",").map((n) => parseInt(n, 10));
    if (shape.length !== 2) return null;
    const flat = decoded(value);
    return Array.from({ length: shape[0] }, (_, r) => flat.subarray(r * shape[1], (r + 1) * shape[1]));
  }
  return Array.isArray(value) && value.length && (Array.isArray(value[0]) || ArrayBuffer.isView(value[0])) ? value : null;
}

function plainArray(value) {
  // A 1-D value as a plain array (a typed block decoded), or null.
  if (Array.isArray(value)) return value;
  if (value && value.bdata && TYPED[value.dtype]) return Array.from(decoded(value));
  return null;
}

function emptyRows(like, rows, cols) {
  // rows x cols of nothing: NaN for floats (drawn as no cell), 0 for integers, "" for text.
  const first = like[0];
  if (ArrayBuffer.isView(first)) {
    const Kind = first.constructor;
    const floats = Kind === Float32Array || Kind === Float64Array;
    return Array.from({ length: rows }, () => new Kind(cols).fill(floats ? NaN : 0));
  }
  const blank = typeof first[0] === "string" ? "" : null;
  return Array.from({ length: rows }, () => new Array(cols).fill(blank));
}

// ---- tiled grids ----

function tileGeometry(tiles, across) {
  const down = Math.ceil(tiles.count / across);
  const stepR = tiles.rows + tiles.gap, stepC = tiles.cols + tiles.gap;
  return { across, down, stepR, stepC, shape: [down * stepR - tiles.gap, across * stepC - tiles.gap],
           origin: (n) => [Math.floor(n / across) * stepR, (n % across) * stepC] };
}

function tileAt(geometry, tiles, x, y) {
  // The tile holding the point (x, y) in cells (a tile's title, just above it, counts as in it).
  const col = Math.floor((x + 0.5) / geometry.stepC), row = Math.floor((y + 0.5 + tiles.gap) / geometry.stepR);
  const n = row * geometry.across + col;
  return col >= 0 && col < geometry.across && row >= 0 && n < tiles.count ? n : -1;
}

function moveCells(rows, tiles, from, to) {
  const out = emptyRows(rows, to.shape[0], to.shape[1]);
  for (let n = 0; n < tiles.count; n++) {
    const [r0, c0] = from.origin(n), [r1, c1] = to.origin(n);
    for (let r = 0; r < tiles.rows; r++) {
      const source = rows[r0 + r], target = out[r1 + r];
      for (let c = 0; c < tiles.cols; c++) target[c1 + c] = source[c0 + c];
    }
  }
  return out;
}

function gapShapes(style, tiles, geometry) {
  // The white bands between tiles and over the empty slots (as viz.tiles.gap_shapes draws them).
  const shapes = [];
  for (let c = 1; c < geometry.across; c++) {
    const start = c * geometry.stepC;
    shapes.push({ ...style, xref: "x", yref: "paper", x0: start - tiles.gap - 0.5, x1: start - 0.5, y0: 0, y1: 1 });
  }
  for (let r = 1; r < geometry.down; r++) {
    const start = r * geometry.stepR;
    shapes.push({ ...style, xref: "paper", yref: "y", x0: 0, x1: 1, y0: start - tiles.gap - 0.5, y1: start - 0.5 });
  }
  for (let n = tiles.count; n < geometry.down * geometry.across; n++) {
    const [r0, c0] = geometry.origin(n);
    shapes.push({ ...style, xref: "x", yref: "y", x0: c0 - 0.5 - tiles.gap, x1: c0 + tiles.cols - 0.5 + tiles.gap,
                  y0: r0 - 0.5 - tiles.gap, y1: r0 + tiles.rows - 0.5 + tiles.gap });
  }
  return shapes;
}

function retileTicks(axis, step, count, every) {
  // An axis's ticks on the tiles of a grid with count tiles along it (step cells from tile to tile): those
  // of the first labelled tile, repeated on every tile when more than one had labels or every is true
  // (the rows of a grid that had one row), else on the first.
  if (!axis || !Array.isArray(axis.tickvals) || !Array.isArray(axis.ticktext) || !axis.tickvals.length) return;
  const tileOf = (value) => Math.floor((value + 0.5) / step);
  const tiles = new Set(axis.tickvals.map(tileOf)), first = Math.min(...tiles);
  const local = axis.tickvals.map((value, i) => [value - first * step, axis.ticktext[i], tileOf(value)])
    .filter((tick) => tick[2] === first);
  const values = [], texts = [];
  for (let k = 0; k < (tiles.size > 1 || every ? count : 1); k++) {
    for (const [offset, text] of local) { values.push(k * step + offset); texts.push(text); }
  }
  axis.tickvals = values;
  axis.ticktext = texts;
}

function retile(figure, plotWidth) {
  const layout = figure.layout, tiles = layout.meta && layout.meta.tiles;
  if (!tiles || !(plotWidth > 0)) return null;
  let across = tiles.across;
  const tilePx = (a) => (plotWidth * tiles.cols) / (a * (tiles.cols + tiles.gap) - tiles.gap);
  while (across > 1 && tilePx(across) < tiles.min_px) across -= 1;
  if (across === tiles.across) return null;
  const from = tileGeometry(tiles, tiles.across), to = tileGeometry(tiles, across);
  for (const trace of figure.data) {
    for (const key of ["z", "text", "customdata"]) {
      const shape = gridShape(trace[key]);
      if (shape && shape[0] === from.shape[0] && shape[1] === from.shape[1]) {
        trace[key] = moveCells(gridRows(trace[key]), tiles, from, to);
      }
    }
  }
  const shapes = layout.shapes || [];
  const gap = shapes.find((shape) => shape.name === "gap");
  const moved = shapes.filter((shape) => shape.name !== "gap").map((shape) => {
    if ((shape.xref || "x") !== "x" || (shape.yref || "y") !== "y") return shape;
    const n = tileAt(from, tiles, (shape.x0 + shape.x1) / 2, (shape.y0 + shape.y1) / 2);
    if (n < 0) return shape;
    const [r0, c0] = from.origin(n), [r1, c1] = to.origin(n);
    return { ...shape, x0: shape.x0 + c1 - c0, x1: shape.x1 + c1 - c0, y0: shape.y0 + r1 - r0, y1: shape.y1 + r1 - r0 };
  });
  layout.shapes = gap ? [...moved, ...gapShapes({ ...gap, name: "gap" }, tiles, to)] : moved;
  layout.annotations = (layout.annotations || []).map((note) => {
    const xref = note.xref || "x", yref = note.yref || "y";
    if (xref !== "x") return note;
    if (yref === "paper" && note.y >= 1) { // a column header: becomes the title above its tile
      const n = Math.floor((note.x + 0.5) / from.stepC);
      if (n >= from.across || n >= tiles.count) return note;
      const [r1, c1] = to.origin(n);
      return { ...note, x: note.x - from.origin(n)[1] + c1, yref: "y", y: r1 - 0.5, yanchor: "bottom" };
    }
    if (yref !== "y") return note;
    const n = tileAt(from, tiles, note.x, note.y);
    if (n < 0) return note;
    const [r0, c0] = from.origin(n), [r1, c1] = to.origin(n);
    return { ...note, x: note.x + c1 - c0, y: note.y + r1 - r0 };
  });
  retileTicks(layout.xaxis, from.stepC, to.across, false);
  retileTicks(layout.yaxis, from.stepR, to.down, from.down === 1);
  const margin = margins(layout);
  if (typeof layout.height === "number") { // every cell keeps its height
    const cellPx = (layout.height - margin.t - margin.b) / from.shape[0];
    layout.height = Math.round(margin.t + margin.b + cellPx * to.shape[0]);
  }
  return across;
}

// ---- colour bars ----

function colourBars(figure) {
  // Every colour bar drawn: [owner object, key] pairs (a trace's own, or a colour axis's).
  const bars = [];
  const layout = figure.layout;
  for (const trace of figure.data) {
    if (trace.coloraxis || trace.showscale === false || trace.visible === false) continue;
    if (["heatmap", "contour", "histogram2d", "surface"].includes(trace.type || "scatter")) bars.push(trace);
  }
  const used = new Set(figure.data.map((trace) => trace.coloraxis).filter(Boolean));
  for (const name of used) {
    const axis = layout[name] || (layout[name] = {});
    if (axis.showscale !== false) bars.push(axis);
  }
  return bars;
}

function barsBelow(figure, width) {
  const layout = figure.layout, margin = margins(layout);
  const bars = colourBars(figure);
  if (!bars.length || width >= NARROW_PX) return false;
  const share = 1 / bars.length;
  bars.forEach((owner, i) => {
    const bar = owner.colorbar || {};
    const title = typeof bar.title === "string" ? { text: bar.title } : { ...(bar.title || {}) };
    owner.colorbar = { ...bar, orientation: "h", lenmode: "fraction", len: share * 0.86, thickness: 10,
                       x: share * (i + 0.5), xanchor: "center", xref: "paper", y: 0, yanchor: "bottom",
                       yref: "container", ypad: 6, title: { ...title, side: "bottom" } }; // under its tick labels: Plotly draws a title on top over a horizontal bar
  });
  const legendRight = figure.data.some((trace) => trace.showlegend === true) && (layout.legend || {}).orientation !== "h";
  if (!legendRight) margin.r = Math.min(margin.r, 16);
  margin.b += BAR_BELOW_PX;
  grow(layout, BAR_BELOW_PX);
  return true;
}

function legendBeside(figure, layout) {
  // The entries of a legend drawn beside the plot (Plotly's default place), or none.
  const legend = layout.legend || {};
  if (layout.showlegend === false || legend.orientation === "h" || (legend.x !== undefined && legend.x < 1)) return [];
  const named = figure.data.filter((trace) => trace.showlegend !== false && trace.name !== undefined
    && !["heatmap", "contour", "histogram2d"].includes(trace.type));
  const shown = named.filter((trace) => trace.showlegend === true || named.length > 1);
  return shown.length ? legendWidth({ data: shown }, layout) : [];
}

function legendBelow(figure, width, barsBelowToo) {
  // A narrow plot's legend goes from beside it to under it, in rows, above any colour bar there.
  const layout = figure.layout, margin = margins(layout);
  const entries = legendBeside(figure, layout);
  if (!entries.length || width >= NARROW_PX) return 0;
  const available = width - 20;
  let rows = 1, used = 0;
  for (const entry of entries) {
    if (used && used + entry > available) { rows += 1; used = 0; }
    used += entry;
  }
  const legend = layout.legend || {};
  const title = legend.title && (typeof legend.title === "string" ? legend.title : legend.title.text);
  const height = rows * LEGEND_ROW_PX + (title ? LEGEND_ROW_PX : 0) + 10;
  layout.legend = { ...legend, orientation: "h", x: 0, xanchor: "left", xref: "container", y: 0, yanchor: "bottom",
                    yref: "container", ...(title ? { title: { ...(typeof legend.title === "string" ? { text: title }
                      : legend.title), side: "top" } } : {}) };
  if (barsBelowToo) { // the colour bars sit under the legend
    for (const owner of colourBars(figure)) owner.colorbar = { ...owner.colorbar, ypad: 6 + height };
  }
  margin.r = Math.min(margin.r, 16);
  margin.b += height;
  grow(layout, height);
  return rows;
}

// ---- panels side by side ----

function axisKey(id, letter) {
  return letter + "axis" + (id && id !== letter ? id.slice(1) : "");
}

function xLabelsPx(layout, axis) {
  // The height an x axis's tick labels and title take under it.
  if (axis.visible === false) return 0;
  const font = fontOf(layout, axis.tickfont);
  const texts = Array.isArray(axis.ticktext) ? axis.ticktext : ["0000"];
  const widest = Math.max(...texts.map((t) => textWidth(t, font.size, 400, font.family)));
  const angle = typeof axis.tickangle === "number" ? Math.abs(axis.tickangle) % 180 : 0;
  const labels = axis.showticklabels === false ? 0 : font.size * 1.4 + widest * Math.sin((angle * Math.PI) / 180);
  const title = typeof axis.title === "string" ? { text: axis.title } : axis.title || {};
  const titleFont = fontOf(layout, title.font);
  // the title: its line, its standoff from the labels and Plotly's own padding around it
  return labels + 8 + (title.text ? LINE * titleFont.size + (title.standoff ?? 12) + 16 : 0);
}

function yLabelsPx(figure, layout, key) {
  // The room a y axis's tick labels (and title) take left of its panel: 0 where it shows none there.
  const axis = layout[key] || {};
  if (axis.visible === false || (axis.side || "left") !== "left"
      || String(axis.ticklabelposition || "").includes("inside")) return 0;
  const font = fontOf(layout, axis.tickfont);
  let labels = 0;
  if (axis.showticklabels !== false) {
    const ticks = axisTicks(figure, key, axis);
    labels = ticks ? Math.max(0, ...ticks.map((tick) => textWidth(tick[2], font.size, 400, font.family)))
      : 2.2 * font.size; // numbers, chosen by Plotly
  }
  const title = typeof axis.title === "string" ? axis.title : (axis.title || {}).text;
  return labels + (title ? font.size * 1.3 + 12 : 0);
}

function stackPanels(figure, width) {
  const layout = figure.layout, margin = margins(layout);
  const pairs = new Map();
  for (const trace of figure.data) pairs.set(axisKey(trace.xaxis, "x"), axisKey(trace.yaxis, "y"));
  if (pairs.size < 2) return false;
  const panels = [...pairs].map(([x, y]) => ({ x, y, dx: (layout[x] || {}).domain || [0, 1],
                                               dy: (layout[y] || {}).domain || [0, 1] }));
  const oneRow = panels.every((p) => p.dy[0] === panels[0].dy[0] && p.dy[1] === panels[0].dy[1]);
  const plotWidth = plotWidthOf(layout, width);
  if (!oneRow || panels.some((p) => p.dx[0] === 0 && p.dx[1] === 1)) return false;
  panels.sort((a, b) => a.dx[0] - b.dx[0]);
  // a panel's name (a subplot title) sits centred over its top edge
  const nameOf = (panel) => (layout.annotations || []).filter((note) => note.xref === "paper"
    && note.yref === "paper" && Math.abs(note.y - panel.dy[1]) < 1e-6
    && Math.abs(note.x - (panel.dx[0] + panel.dx[1]) / 2) < 1e-6);
  const nameFont = (note) => fontOf(layout, note.font);
  const nameWidth = (panel) => Math.max(0, ...nameOf(panel).flatMap((note) => String(note.text).split(/<br\s*\/?>/i)
    .map((line) => textWidth(line, nameFont(note).size, 400, nameFont(note).family) + 8)));
  // a panel's y labels lie in the gap left of it, over its neighbour's plot where the gap is narrower: the
  // same labels as its neighbour's (rows shared) are left out, others need the panels stacked
  let labelsFit = true, hidden = false;
  panels.slice(1).forEach((p, i) => {
    if (yLabelsPx(figure, layout, p.y) + 6 <= (p.dx[0] - panels[i].dx[1]) * plotWidth) return;
    const ticks = (key) => JSON.stringify((axisTicks(figure, key, layout[key] || (layout[key] = {})) || []).map((t) => t[2]));
    const left = layout[panels[i].y] || {};
    if (left.showticklabels !== false && ticks(p.y) === ticks(panels[i].y) && ticks(p.y) !== "[]") {
      layout[p.y] = { ...layout[p.y], showticklabels: false };
      hidden = true;
    } else labelsFit = false;
  });
  if (labelsFit && panels.every((p) => (p.dx[1] - p.dx[0]) * plotWidth >= Math.max(MIN_PANEL_PX, nameWidth(p)))) {
    return hidden ? "rows' labels once" : false;
  }
  const paperPx = layout.height - margin.t - margin.b;
  const panelPx = paperPx * (panels[0].dy[1] - panels[0].dy[0]);
  const nameLine = Math.max(0, ...panels.flatMap(nameOf).map((note) => LINE * nameFont(note).size + 8));
  const gapPx = Math.max(margin.b, xLabelsPx(layout, layout[panels[0].x] || {})) + Math.max(PANEL_TITLE_PX, nameLine);
  // a name wider than the figure wraps (centred over the plot, as wide as it may be either side), and the
  // room above its panel grows by its new lines
  const plotLeft = width - margin.r - plotWidth, centre = plotLeft + plotWidth / 2;
  const available = 2 * Math.min(centre, width - centre) - 8;
  const names = panels.map(nameOf);
  const namesPx = names.map((notes) => Math.max(0, ...notes.map((note) => {
    const font = nameFont(note), lines = String(note.text).split(/<br\s*\/?>/i);
    if (lines.every((line) => textWidth(line, font.size, 400, font.family) <= available)) return 0;
    const wrapped = lines.flatMap((line) => wrapText(line, font.size, 400, available, font.family));
    note.text = wrapped.join("<br>");
    return (wrapped.length - lines.length) * font.size * 1.3;
  })));
  const above = names.map((_, i) => (i ? gapPx : 0) + namesPx[i]); // room above each panel, the first's in the margin
  const total = panels.length * panelPx + above.slice(1).reduce((a, b) => a + b, 0);
  const firstY = layout[panels[0].y] || {};
  let offset = 0;
  panels.forEach((panel, i) => {
    offset += i ? above[i] : 0;
    const top = 1 - offset / total, bottom = top - panelPx / total;
    offset += panelPx;
    for (const note of names[i]) {
      note.x = 0.5;
      note.y = top;
    }
    layout[panel.x] = { ...(layout[panel.x] || {}), domain: [0, 1] };
    layout[panel.y] = { ...(layout[panel.y] || {}), domain: [bottom, top] };
    if (firstY.showticklabels !== false && layout[panel.y].showticklabels === false) layout[panel.y].showticklabels = true;
  });
  // a colour bar beside the plot runs along the panels it colours (a colour axis's, or its trace's), each
  // panel's below its name
  const panelOf = (trace) => panels.findIndex((p) => p.x === axisKey(trace.xaxis, "x") && p.y === axisKey(trace.yaxis, "y"));
  for (const owner of colourBars(figure)) {
    if ((owner.colorbar || {}).orientation === "h") continue;
    const name = Object.keys(layout).find((key) => /^coloraxis\d*$/.test(key) && layout[key] === owner);
    const coloured = figure.data.filter((trace) => (name ? trace.coloraxis === name : trace === owner)).map(panelOf)
      .filter((i) => i >= 0);
    if (!coloured.length) continue;
    const domains = coloured.map((i) => layout[panels[i].y].domain);
    const top = Math.max(...domains.map((d) => d[1])), bottom = Math.min(...domains.map((d) => d[0]));
    owner.colorbar = { ...owner.colorbar, y: top, yanchor: "top", yref: "paper", lenmode: "fraction", len: top - bottom };
  }
  // what lies under the plot at a fraction of its height (a legend, a note) stays as far under it in px
  const grown = paperPx + total - panelPx, legend = layout.legend;
  if (legend && (legend.yref || "paper") === "paper" && legend.y < 0) layout.legend = { ...legend, y: (legend.y * paperPx) / grown };
  for (const note of layout.annotations || []) if (note.yref === "paper" && note.y < 0) note.y = (note.y * paperPx) / grown;
  margin.t += Math.round(namesPx[0]);
  grow(layout, total - panelPx + Math.round(namesPx[0]));
  return names.flat().map((note) => note.text).join("|") || true; // the names' lines change with the width
}

// ---- title and legend ----

function wrapText(text, size, weight, available, family) {
  // text (with Plotly's markup) broken at spaces into lines at most available px wide; not inside a product
  // ("11 × 16") or a short bracket ("[11 × 16]", "(τ = 1)"), whose spaces are kept as no-break spaces.
  const glued = String(text).replace(/\[[^\]<>]{1,16}\]|\([^)<>]{1,16}\)|\S+(?: × \S+)+/g,
    (group) => group.replace(/ /g, "\u00a0"));
  const words = glued.split(/ (?![^<]*>)/);
  const lines = [];
  for (const word of words) {
    const last = lines.length ? lines[lines.length - 1] + " " + word : null;
    if (last !== null && textWidth(last, size, weight, family) <= available) lines[lines.length - 1] = last;
    else lines.push(word);
  }
  return lines;
}

function legendAbove(layout) {
  const legend = layout.legend || {};
  return legend.orientation === "h" && (legend.y ?? 1.02) >= 1 && (legend.yanchor || "auto") !== "top";
}

function legendWidth(figure, layout) {
  const font = fontOf(layout, (layout.legend || {}).font);
  return figure.data.filter((trace) => trace.showlegend !== false && trace.name)
    .map((trace) => 40 + textWidth(trace.name, font.size, 400, font.family));
}

function fitTitleAndLegend(figure, width, touch) {
  // Wrap a title wider than the figure; move a legend that would run into it under it, to the left.
  // Either takes more room at the top; the plot area keeps its height.
  const layout = figure.layout, margin = margins(layout);
  const title = typeof layout.title === "string" ? { text: layout.title } : layout.title || {};
  if (!title.text) return 0;
  const templateTitle = ((layout.template || {}).layout || {}).title || {};
  // drawn as bold as the template says (the lab's titles are semi-bold), so measured so
  const font = fontOf(layout, { ...templateTitle.font, ...title.font });
  const size = (title.font && title.font.size) || font.size * 1.2, lineHeight = size * 1.3;
  const available = width - 8; // the title starts at the figure's left edge
  let lines = String(title.text).split(/<br\s*\/?>/i);
  const given = lines.length;
  const wrap = lines.some((line) => textWidth(line, size, font.weight, font.family) > available);
  if (wrap) lines = lines.flatMap((line) => wrapText(line, size, font.weight, available, font.family));
  // Plotly hangs a title of several lines from its top 0.7 em higher than one line (by the capital's height,
  // which it adds only to one line), into the strip of the toolbar: a wrapped title is lowered by as much,
  // and so is a title built with several lines where the toolbar is always shown (a touch screen).
  // A toolbar narrower than its buttons takes two rows: the title goes under the second.
  const toolbarRow = touch && width < TOOLBAR_ONE_ROW_PX ? TOOLBAR_ROW_PX : 0;
  const lowered = wrap || (touch && given > 1) || toolbarRow > 0;
  if (lowered) {
    const pad = { ...templateTitle.pad, ...title.pad };
    const hang = lines.length > 1 ? 0.7 * size : 0;
    layout.title = { ...title, text: lines.join("<br>"), pad: { ...pad, t: (pad.t ?? TITLE_TOP_PX) + hang + toolbarRow } };
  }
  let extra = (lines.length - given) * lineHeight + (lowered && given > 1 ? 0.7 * size : 0) + toolbarRow;
  if (legendAbove(layout)) {
    const entries = legendWidth(figure, layout), plotWidth = plotWidthOf(layout, width);
    const total = entries.reduce((a, b) => a + b, 0);
    const lastLine = textWidth(lines[lines.length - 1], size, font.weight, font.family);
    if (lines.length > given || lastLine + 16 > width - margin.r - total || total > plotWidth) {
      let rows = 1, used = 0;
      for (const entry of entries) {
        if (used && used + entry > plotWidth) { rows += 1; used = 0; }
        used += entry;
      }
      layout.legend = { ...layout.legend, x: 0, xanchor: "left" };
      extra = Math.max(extra, TITLE_TOP_PX + lines.length * lineHeight + rows * LEGEND_ROW_PX + 8 - margin.t);
    }
  }
  if (extra > 0) {
    margin.t += Math.round(extra);
    grow(layout, Math.round(extra));
  }
  return lines.join("<br>"); // where the lines break, which may change with the width while their number does not
}

// ---- tick labels ----

function axisSpan(figure, key) {
  // How many data units the axis shows: the cells of its heatmaps, or the points of its other traces (on a
  // log axis, the decades its points cover, and a tenth more).
  const letter = key[0], id = key === letter + "axis" ? letter : letter + key.slice(5);
  const axis = figure.layout[key] || {};
  if (axis.type === "log") {
    if (Array.isArray(axis.range)) return axis.range[1] - axis.range[0];
    const values = figure.data.filter((trace) => (trace[letter + "axis"] || letter) === id)
      .flatMap((trace) => plainArray(trace[letter]) || []).filter((v) => v > 0);
    return values.length ? 1.1 * (Math.log10(Math.max(...values)) - Math.log10(Math.min(...values))) : 0;
  }
  let span = 0;
  for (const trace of figure.data) {
    if ((trace[letter + "axis"] || letter) !== id) continue;
    const shape = trace.type === "heatmap" ? gridShape(trace.z) : null;
    if (shape) span = Math.max(span, letter === "x" ? shape[1] : shape[0]);
    const values = trace[letter];
    if (Array.isArray(values)) span = Math.max(span, values.length);
    else if (values && values.shape) span = Math.max(span, parseInt(String(values.shape), 10));
  }
  return span;
}

function categoriesOf(figure, key) {
  // The categories of a category axis, in the order Plotly puts them: first seen, first.
  const letter = key[0], id = key === letter + "axis" ? letter : letter + key.slice(5);
  const seen = new Set();
  for (const trace of figure.data) {
    if ((trace[letter + "axis"] || letter) !== id || !Array.isArray(trace[letter])) continue;
    for (const value of trace[letter]) if (value !== null && value !== undefined) seen.add(String(value));
  }
  return [...seen];
}

function sharedWord(texts) {
  // {word, rest} when every text is "<word> <rest>" with the same word ("head 1" ... "head 12"), else null.
  const parts = texts.map((text) => /^(\S+) (.+)$/.exec(String(text)));
  if (texts.length < 2 || parts.some((part) => !part || part[1] !== parts[0][1])) return null;
  return { word: parts[0][1], rest: parts.map((part) => part[2]) };
}

function axisTicks(figure, key, axis) {
  // The labelled ticks of an axis as [position in data units, value, text], in order; null when Plotly
  // chooses them itself (a numeric axis) or there are none.
  if (axis.tickvals) axis.tickvals = plainArray(axis.tickvals) || axis.tickvals;
  if (axis.ticktext) axis.ticktext = plainArray(axis.ticktext) || axis.ticktext;
  const categories = categoriesOf(figure, key);
  const isCategory = axis.type === "category" || (axis.type === undefined && categories.length
    && categories.every((c) => isNaN(Number(c))));
  if (Array.isArray(axis.tickvals) && Array.isArray(axis.ticktext)) {
    const index = new Map(categories.map((c, i) => [c, i]));
    const at = (value) => (axis.type === "log" ? Math.log10(value) : value);
    const ticks = axis.tickvals.map((value, i) => [typeof value === "number" ? at(value) : index.get(String(value)),
                                                    value, axis.ticktext[i]]);
    return ticks.every((tick) => typeof tick[0] === "number") ? ticks.sort((a, b) => a[0] - b[0]) : null;
  }
  if (isCategory && (axis.dtick === undefined || axis.dtick === 1) && axis.tickmode !== "linear") {
    return categories.map((c, i) => [i, c, c]);
  }
  return null;
}

function logRange(figure, key) {
  // [lowest, highest] power of ten a log axis shows (its range, or its traces' values), or null.
  const letter = key[0], id = key === letter + "axis" ? letter : letter + key.slice(5);
  const axis = figure.layout[key] || {};
  if (Array.isArray(axis.range)) return [Math.min(...axis.range), Math.max(...axis.range)];
  const values = figure.data.filter((trace) => (trace[letter + "axis"] || letter) === id)
    .flatMap((trace) => plainArray(trace[letter]) || []).filter((v) => v > 0).map(Math.log10);
  return values.length ? [Math.min(...values), Math.max(...values)] : null;
}

function powerLabel(power) {
  // A power of ten as Plotly writes it on a log axis: 0.01, 1, 1000, 10k, 100M.
  if (power <= 3) return String(Number((10 ** power).toPrecision(1)));
  return String(10 ** (power % 3)) + ["k", "M", "G", "T", "P"][Math.floor(power / 3) - 1];
}

function thinLogTicks(figure, key, axis, length, font) {
  // A log axis whose ticks Plotly chooses, over more than a decade: Plotly labels the digits between powers of
  // ten, in a smaller font ("2 3 ... 9", its "D1"), or some of them ("2 5", "D2"), by a count of ticks that
  // does not look at the labels, so that on a short axis they may touch. Where they would, fewer are labelled:
  // "2 5", else the powers alone, or every k-th power. True when the axis was changed.
  if (axis.type !== "log" || axis.tickvals !== undefined || axis.dtick !== undefined || axis.tickmode === "array"
      || axis.nticks) return false;
  const span = logRange(figure, key), decades = axisSpan(figure, key);
  if (!span || !(decades >= 1) || !(length > 0)) return false; // within a decade Plotly spaces its ticks evenly
  const horizontal = key[0] === "x", small = 0.75 * font.size, decadePx = length / decades;
  const powers = [];
  for (let p = Math.floor(span[0]); p <= Math.ceil(span[1]); p++) powers.push(powerLabel(p));
  const power = horizontal ? Math.max(...powers.map((t) => textWidth(t, font.size, 400, font.family))) : font.size;
  const digit = horizontal ? textWidth("8", small, 400, font.family) : small;
  const pad = horizontal ? 4 : 1;
  const fits = (dtick) => (dtick === "D1" ? decadePx * Math.log10(10 / 9) >= (digit + power) / 2 + pad
    : dtick === "D2" ? decadePx * Math.log10(2) >= (digit + power) / 2 + pad : decadePx * dtick >= power + pad);
  // Plotly's own choice (axes.autoTicks): its count of ticks is the axis length over 40 px (y) or 80 px (x)
  const rough = decades / (Math.min(9, Math.max(4, length / (horizontal ? 80 : 40))) + 1);
  const chosen = rough > 0.7 ? Math.ceil(rough) : rough > 0.3 ? "D2" : "D1";
  if (fits(chosen)) return false;
  axis.dtick = chosen === "D1" && fits("D2") ? "D2" : Math.max(typeof chosen === "number" ? chosen : 1,
                                                               Math.ceil((power + pad) / decadePx));
  return true;
}

function thinTicks(figure, width) {
  // Tick labels that would touch: a shared first word moved to the axis title ("head 1" ... -> 1 ... under
  // "head"), upright labels turned by 45 degrees, and then every k-th label kept.
  const layout = figure.layout, margin = margins(layout);
  const plotWidth = plotWidthOf(layout, width, figure), plotHeight = (layout.height || 450) - margin.t - margin.b;
  let changed = 0;
  const keys = new Set(Object.keys(layout).filter((name) => /^[xy]axis\d*$/.test(name)));
  for (const trace of figure.data) {
    if (!["pie", "table", "sankey", "parcoords"].includes(trace.type)) {
      keys.add(axisKey(trace.xaxis, "x"));
      keys.add(axisKey(trace.yaxis, "y"));
    }
  }
  for (const key of keys) {
    const axis = layout[key] || (layout[key] = {});
    if (!axis || axis.visible === false || axis.showticklabels === false) continue;
    const horizontal = key[0] === "x";
    const domain = axis.domain || [0, 1];
    const length = (horizontal ? plotWidth : plotHeight) * (domain[1] - domain[0]);
    if (thinLogTicks(figure, key, axis, length, fontOf(layout, axis.tickfont))) {
      changed += 1;
      continue;
    }
    const ticks = axisTicks(figure, key, axis);
    if (!ticks || ticks.length < 2) continue;
    const span = axis.type === "log" ? axisSpan(figure, key)
      : Math.max(axisSpan(figure, key), ticks[ticks.length - 1][0] - ticks[0][0] + 1);
    if (!(span > 0)) continue;
    // labels turned to fit would run into a panel below this one: there they are thinned out upright
    const anchor = layout[axisKey(axis.anchor && axis.anchor !== "free" ? axis.anchor : "y", "y")] || {};
    const panelBelow = horizontal && (anchor.domain || [0, 1])[0] > 0.05;
    const unitPx = length / span, font = fontOf(layout, axis.tickfont);
    let angle = typeof axis.tickangle === "number" ? Math.abs(axis.tickangle) % 180 : 0;
    // from one label to the next: a line of text (labels side by side, turned or stacked), or the widest
    // label and a gap (upright labels in a row)
    const widest = new Map(); // texts -> the widest of them, measured once
    const need = (texts) => {
      if (!horizontal) return LINE * font.size;
      if (angle !== 0) return (LINE * font.size) / Math.sin((angle * Math.PI) / 180);
      if (!widest.has(texts)) widest.set(texts, Math.max(...texts.map((t) => textWidth(t, font.size, 400, font.family))));
      return widest.get(texts) + 8;
    };
    const fits = (texts) => {
      const gap = need(texts);
      return ticks.slice(1).every((tick, i) => (tick[0] - ticks[i][0]) * unitPx >= gap);
    };
    let texts = ticks.map((tick) => String(tick[2]));
    if (fits(texts)) {
      // upright labels that fit stay upright on a narrow plot (Plotly would turn them, into what is below)
      if (horizontal && angle === 0 && typeof axis.tickangle !== "number" && width < NARROW_PX) axis.tickangle = 0;
      continue;
    }
    const title = typeof axis.title === "string" ? { text: axis.title } : axis.title || {};
    const shared = title.text ? null : sharedWord(texts);
    if (shared) {
      texts = shared.rest;
      axis.title = { ...title, text: shared.word };
    }
    // short labels (letters, one-character tokens) stay level, thinned: only an axis of words turns
    const short = 2 * texts.filter((text) => [...text].length <= 2).length >= texts.length;
    if (horizontal && angle === 0 && typeof axis.tickangle !== "number" && !panelBelow && !short && !fits(texts)) {
      angle = 45;
    }
    const kept = [], gap = need(texts);
    ticks.forEach((tick, i) => {
      if (!kept.length || (tick[0] - ticks[kept[kept.length - 1]][0]) * unitPx >= gap) kept.push(i);
    });
    axis.tickmode = "array";
    axis.tickvals = kept.map((i) => ticks[i][1]);
    axis.ticktext = kept.map((i) => texts[i]);
    if (horizontal && typeof axis.tickangle !== "number") axis.tickangle = -angle;
    changed += ticks.length - kept.length + (shared ? 1 : 0);
  }
  return changed;
}

function fitHeaderRows(figure, width) {
  // Rows of names over columns (annotations at data x, all at one height: "head 1" ... over a grid's
  // columns) that would touch: the shared first word dropped, then every k-th name kept.
  const layout = figure.layout, margin = margins(layout), notes = layout.annotations || [];
  const rows = new Map();
  for (const note of notes) {
    const xref = note.xref || "x";
    if (!/^x\d*$/.test(xref) || note.visible === false || note.text === undefined) continue;
    const row = `${xref}|${note.yref || "y"}|${note.y}`;
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
    const widthOf = (text) => textWidth(text, font.size, 400, font.family);
    const clear = (texts, chosen) => chosen.slice(1).every((n, i) => (members[n].x - members[chosen[i]].x) * unitPx
      >= (widthOf(texts[n]) + widthOf(texts[chosen[i]])) / 2 + 6);
    let texts = members.map((note) => String(note.text));
    const all = members.map((_, i) => i);
    if (clear(texts, all)) continue;
    const shared = sharedWord(texts);
    if (shared) texts = shared.rest;
    const kept = [0];
    for (let i = 1; i < members.length; i++) if (clear(texts, [kept[kept.length - 1], i])) kept.push(i);
    members.forEach((note, i) => {
      note.text = texts[i];
      if (!kept.includes(i)) note.visible = false;
    });
    changed += 1;
  }
  return changed;
}

function fitAxisTitles(figure, width) {
  // An x axis title wider than the figure wraps; the plot area keeps its height.
  const layout = figure.layout, margin = margins(layout);
  let added = 0;
  for (const key of Object.keys(layout).filter((name) => /^xaxis\d*$/.test(name))) {
    const axis = layout[key], title = axis && (typeof axis.title === "string" ? { text: axis.title } : axis.title);
    if (!title || !title.text || axis.visible === false) continue;
    const font = fontOf(layout, title.font || axis.title_font);
    const plotWidth = plotWidthOf(layout, width), domain = axis.domain || [0, 1];
    const centre = width - margin.r - plotWidth + plotWidth * (domain[0] + domain[1]) / 2;
    const available = 2 * Math.min(centre, width - centre) - 12; // the title is centred under its axis
    const lines = String(title.text).split(/<br\s*\/?>/i);
    if (lines.every((line) => textWidth(line, font.size, 400, font.family) <= available)) continue;
    const wrapped = lines.flatMap((line) => wrapText(line, font.size, 400, available, font.family));
    axis.title = { ...title, text: wrapped.join("<br>") };
    added = Math.max(added, (wrapped.length - lines.length) * font.size * 1.3);
  }
  if (added > 0) {
    margin.b += Math.round(added);
    grow(layout, Math.round(added));
  }
  return added > 0;
}

function fitLegendBelow(figure, width) {
  // On a narrow plot, a horizontal legend under it that takes more rows than in a wide column gets the
  // room for them, so that the plot area keeps its height.
  const layout = figure.layout, margin = margins(layout), legend = layout.legend || {};
  if (width >= NARROW_PX || legend.orientation !== "h" || !((legend.y ?? 1) < 0)) return 0;
  const entries = legendWidth(figure, layout);
  const rowsAt = (plotWidth) => {
    let rows = 1, used = 0;
    for (const entry of entries) {
      if (used && used + entry > plotWidth) { rows += 1; used = 0; }
      used += entry;
    }
    return rows;
  };
  const extra = rowsAt(plotWidthOf(layout, width)) - rowsAt(900);
  if (extra > 0) {
    margin.b += extra * LEGEND_ROW_PX;
    grow(layout, extra * LEGEND_ROW_PX);
  }
  return Math.max(0, extra);
}

// ---- all of it ----

function dropCellTexts(figure, width) {
  // Values written in a heatmap's cells: where the widest no longer fits its cell at its text size, the
  // cells go without (the hover still gives each value), rather than be shrunk below a readable size.
  const layout = figure.layout, plotWidth = plotWidthOf(layout, width, figure);
  let dropped = 0;
  for (const trace of figure.data) {
    if (trace.type !== "heatmap" || !trace.texttemplate || !Array.isArray(trace.text)) continue;
    const rows = trace.text.filter(Array.isArray), columns = Math.max(0, ...rows.map((row) => row.length));
    const key = axisKey(trace.xaxis, "x"), domain = (layout[key] || {}).domain || [0, 1];
    const font = fontOf(layout, trace.textfont);
    const widest = Math.max(0, ...rows.flat().map((text) => textWidth(text, font.size, 400, font.family)));
    if (columns && widest + 4 > (plotWidth * (domain[1] - domain[0])) / columns) {
      trace.texttemplate = "";
      dropped += 1;
    }
  }
  return dropped;
}

function fitFigure(figure, width, touch) {
  // figure ({data, layout}) changed in place to read well at width px; returns what was changed, which is
  // the same for every width at which the figure comes out the same.
  const layout = (figure.layout = figure.layout || {});
  figure.data = figure.data || [];
  if (touch && layout.dragmode === undefined) layout.dragmode = false;
  if (!(width > 0)) return "";
  const margin = margins(layout);
  const stacked = stackPanels(figure, width);
  const below = barsBelow(figure, width);
  const legendRows = legendBelow(figure, width, below);
  const across = retile(figure, width - margin.l - margin.r);
  const lines = fitTitleAndLegend(figure, width, touch);
  const rowsBelow = fitLegendBelow(figure, width);
  const titles = fitAxisTitles(figure, width);
  const thinned = thinTicks(figure, width);
  const headers = fitHeaderRows(figure, width);
  const cells = dropCellTexts(figure, width);
  return JSON.stringify([stacked, below, legendRows, across, lines, rowsBelow, titles, thinned, headers, cells,
                         layout.height]);
}
