// Tiled grids that wrap, and legends that go under a narrow plot (see measure.js for the whole of the fitting).

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
  const narrowest = Math.max(tiles.min_px, tileNamesPx(figure, tiles)); // its title, and its columns' names
  while (across > 1 && tilePx(across) < narrowest) across -= 1;
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

function legendBeside(figure, layout) {
  // The entries of a legend drawn beside the plot (Plotly's default place), or none.
  const legend = layout.legend || {};
  if (layout.showlegend === false || legend.orientation === "h" || (legend.x !== undefined && legend.x < 1)) return [];
  const named = figure.data.filter((trace) => trace.showlegend !== false && trace.name !== undefined
    && !["heatmap", "contour", "histogram2d"].includes(trace.type));
  const shown = named.filter((trace) => trace.showlegend === true || named.length > 1);
  return shown.length ? legendWidth({ data: shown }, layout) : [];
}

function legendBelow(figure, width) {
  // A narrow plot's legend goes from beside it to under it, in rows, above any colour bar there (the server lays
  // a compact window's colour bars under the plot: viz/compact.py).
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
  for (const owner of colourBars(figure)) { // colour bars under the plot sit under the legend
    const bar = owner.colorbar || {};
    if (bar.orientation === "h" && bar.yref === "container") owner.colorbar = { ...bar, ypad: (bar.ypad ?? 0) + height };
  }
  margin.r = Math.min(margin.r, 16);
  margin.b += height;
  grow(layout, height);
  return rows;
}

