"""The figure standard (docs/architecture.md, "Figures"), measured on the charts a page has drawn.

``DEFECTS`` runs in the page on ``[smallest px, most names across]`` and returns one record per defect of every
visible Plotly chart, as drawn:
- ``small``: a text smaller than the minimum (10 px; 14 px in presentation mode), its font size times the
  scale of its transform on screen;
- ``overlap``: two tick labels of one axis over each other, or a label of the figure (title, subplot title,
  axis title, annotation, legend entry, colour bar title) over another text;
- ``clipped``: a text that sticks out of its chart's box;
- ``sideways``: a tick label of one or two characters written at an angle, on an axis of short labels (half
  of them or more of one or two characters; an axis of words turns its labels together, and a short word
  among them turns with them);
- ``log ticks``: a log axis's tick label that is not the full number at its place (a bare "2" for 20);
- ``unnamed``: an axis of a heatmap's or a bar chart's cells named by words (tokens), or by numbers the figure says
  name its cells (``layout.meta.named_axes``: heads), at most ``NAMED_UP_TO``
  of them (across, at most ``acrossUpTo``: a phone's 390 px hold ``NAMED_ACROSS_ON_A_PHONE``), that does not write
  every cell's name (an attention map must be readable aloud); a grid of tiles names each cell on one tile.
Hover labels and the toolbar are not part of the drawn figure and are left out. A Graphviz diagram's text is
measured for its size only.

``CUT_FORMULAS`` returns one record per formula on screen wider than its box (``cut``: the part past the box's edge
is hidden until the box is scrolled) by more than ``CUT_TOLERANCE`` px (an italic letter's overhang): its LaTeX,
how far it runs past the edge.
"""

from __future__ import annotations

from viz.labels import NAMED_UP_TO  # cells: an axis of up to this many named cells writes every name

# across a phone's plot of about 280 px, names a line (12.5 px) apart: words upright, or letters level
NAMED_ACROSS_ON_A_PHONE = 22

DEFECTS = """([minPx, acrossUpTo]) => {
  const defects = [];
  const TOLERANCE = 1;  // px: boxes that touch are not over each other
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  // A text's box as drawn: the corners of its own box through its transform (a turned label is a turned box).
  const corners = (el) => {
    const m = el.getScreenCTM(), b = el.getBBox();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  // Two convex boxes are apart when some edge's normal separates them by more than TOLERANCE.
  const over = (p, q) => {
    for (const shape of [p, q]) {
      for (let i = 0; i < 4; i++) {
        const [x1, y1] = shape[i], [x2, y2] = shape[(i + 1) % 4];
        const len = Math.hypot(x2 - x1, y2 - y1) || 1, nx = (y1 - y2) / len, ny = (x2 - x1) / len;
        const span = (s) => s.map(([x, y]) => x * nx + y * ny);
        const a = span(p), b = span(q);
        if (Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)) <= TOLERANCE)
          return false;
      }
    }
    return true;
  };
  const drawnSize = (text) => {
    const m = text.getScreenCTM();
    const scale = m ? Math.hypot(m.a, m.b) : 1;
    return parseFloat(getComputedStyle(text).fontSize) * scale;
  };
  const angle = (text) => {
    const m = text.getScreenCTM();
    return m ? Math.abs(Math.atan2(m.b, m.a) * 180 / Math.PI) : 0;
  };
  const LABELS = ".gtitle, .g-gtitle text, [class*=title] text, .annotation-text, .legendtext, .cbtitle text";
  for (const plot of document.querySelectorAll("div.lab-chart.js-plotly-plot")) {
    if (!plot.checkVisibility() || !visible(plot)) continue;
    const chart = (plot.querySelector(".gtitle")?.textContent || plot.labName || "a chart").slice(0, 80);
    const box = plot.getBoundingClientRect();
    const texts = [...plot.querySelectorAll(".main-svg text, .main-svg .annotation-text")]
      .filter((t) => !t.closest(".hoverlayer, .modebar, .infolayer .rangeslider-container")
        && t.textContent.trim() !== "" && visible(t));
    const say = (kind, text, detail) => defects.push({chart, kind, text: text.slice(0, 40), detail});
    for (const t of texts) {
      const size = drawnSize(t);
      if (size < minPx - 0.05) say("small", t.textContent, `${size.toFixed(1)} px`);
      const r = t.getBoundingClientRect();
      if (r.left < box.left - TOLERANCE || r.right > box.right + TOLERANCE || r.top < box.top - TOLERANCE
          || r.bottom > box.bottom + TOLERANCE) say("clipped", t.textContent, "outside the chart's box");
    }
    // a legend longer than its box scrolls inside it (Plotly clips it): the entries out of view are cut off
    for (const legend of plot.querySelectorAll(".legend")) {
      const frame = legend.querySelector("rect.bg")?.getBoundingClientRect();
      if (!frame) continue;
      for (const entry of legend.querySelectorAll(".legendtext")) {
        const r = entry.getBoundingClientRect();
        if (r.bottom > frame.bottom + TOLERANCE || r.top < frame.top - TOLERANCE || r.right > frame.right + TOLERANCE)
          say("clipped", entry.textContent, "outside its legend's box");
      }
    }
    // tick labels of one axis
    const axes = new Map();
    for (const t of texts) {
      const tick = t.closest("[class*=xtick], [class*=ytick]");
      if (!tick) continue;
      const layer = tick.parentElement;
      if (!axes.has(layer)) axes.set(layer, []);
      axes.get(layer).push(t);
    }
    for (const ticks of axes.values()) {
      const short = ticks.filter((t) => t.textContent.trim().length <= 2);
      for (const t of (2 * short.length >= ticks.length ? short : [])) {
        const a = angle(t);
        if (a > 10 && a < 170) say("sideways", t.textContent, `${a.toFixed(0)} degrees`);
      }
      const boxes = ticks.map(corners);
      for (let i = 0; i < ticks.length; i++)
        for (let j = i + 1; j < ticks.length; j++)
          if (over(boxes[i], boxes[j])) say("overlap", ticks[i].textContent, `over tick ${ticks[j].textContent}`);
    }
    // the figure's labels against each other and against every other text
    const labels = texts.filter((t) => t.matches(LABELS) || t.closest(".legend, .annotation, .g-gtitle, .cbtitle")
      || /title/.test(t.getAttribute("class") || ""));
    for (const label of labels) {
      const r = corners(label);
      for (const other of texts) {
        if (other === label || (labels.includes(other) && texts.indexOf(other) < texts.indexOf(label))) continue;
        if (label.contains(other) || other.contains(label)) continue;
        if (over(r, corners(other))) say("overlap", label.textContent, `over ${other.textContent.slice(0, 30)}`);
      }
    }
    // log axes: each tick label is the full number at its place
    const layout = plot._fullLayout || {};
    for (const name of Object.keys(layout).filter((k) => /^[xy]axis\\d*$/.test(k))) {
      const axis = layout[name];
      if (axis.type !== "log" || !axis._id) continue;
      for (const tick of plot.querySelectorAll(`.${axis._id}tick text`)) {
        const place = tick.parentElement.__data__?.x ?? tick.__data__?.x;
        const written = tick.textContent.replace(/[\\u2212]/g, "-").replace(/[, ]/g, "");
        const value = Number(written.replace(/[kM]$/, "")) * ({k: 1e3, M: 1e6}[written.slice(-1)] || 1);
        if (place === undefined || !tick.textContent.trim()) continue;
        const want = Math.pow(10, place);
        if (!Number.isFinite(value) || Math.abs(value - want) > 0.02 * want)
          say("log ticks", tick.textContent, `at ${want.toPrecision(3)}`);
      }
    }
    // axes of named cells: a name for every cell, up to NAMED_UP_TO of them
    for (const name of Object.keys(layout).filter((k) => /^[xy]axis\\d*$/.test(k))) {
      const axis = layout[name], letter = name[0];
      if (!axis._id || axis.visible === false || axis.showticklabels === false) continue;
      let cells = 0;
      for (const trace of plot._fullData || []) {
        if (trace.visible !== true || (trace[letter + "axis"] || letter) !== axis._id) continue;
        if (trace.type === "heatmap" && Array.isArray(trace.z) && trace.z.length)
          cells = Math.max(cells, letter === "y" ? trace.z.length : trace.z[0].length);
        const along = trace.orientation === "h" ? "y" : "x";
        if (trace.type === "bar" && letter === along && trace[along]) cells = Math.max(cells, trace[along].length);
      }
      // a grid of tiles (viz/tiles.py, its gaps blank) names each of a tile's cells on one of its tiles at least
      const tiles = (plot.layout.meta || {}).tiles;
      const period = tiles ? (letter === "x" ? tiles.cols : tiles.rows) + tiles.gap : Infinity;
      if (tiles) cells = letter === "x" ? tiles.cols : tiles.rows;
      const drawn = [...plot.querySelectorAll(`.${axis._id}tick text`)].filter((t) => t.textContent.trim() !== "");
      const names = drawn.map((t) => t.textContent.trim());
      const places = new Set(drawn.map((t) => Math.round(t.parentElement.__data__?.x ?? t.__data__?.x) % period));
      const words = names.some((text) => Number.isNaN(Number(text.replace(/\\u2212/g, "-").replace(/,/g, ""))))
        || ((plot.layout.meta || {}).named_axes || []).includes(name);
      if (cells >= 2 && cells <= (letter === "x" ? acrossUpTo : NAMED_UP_TO) && words && places.size < cells)
        say("unnamed", names.slice(0, 3).join(" "), `${places.size} of ${cells} cells named on ${axis._id}`);
    }
  }
  // diagrams (Graphviz): their text as drawn, scaled to the column
  for (const diagram of document.querySelectorAll("[data-testid=stGraphVizChart] svg")) {
    if (!diagram.checkVisibility() || !visible(diagram)) continue;
    for (const t of diagram.querySelectorAll("text")) {
      const size = drawnSize(t);
      if (t.textContent.trim() && size < minPx - 0.05)
        defects.push({chart: "a diagram", kind: "small", text: t.textContent.slice(0, 40), detail: `${size.toFixed(1)} px`});
    }
  }
  return defects;
}""".replace("NAMED_UP_TO", str(NAMED_UP_TO))

CUT_TOLERANCE = 2
CUT_FORMULAS = """() => [...document.querySelectorAll('[data-testid=stMain] .katex-display')]
  .filter((box) => box.offsetParent !== null && box.scrollWidth > box.clientWidth + CUT_TOLERANCE)
  .map((box) => ({kind: 'cut', text: (box.querySelector('annotation') || box).textContent.slice(0, 80),
                  detail: `${box.scrollWidth - box.clientWidth} px past its box of ${box.clientWidth} px`,
                  chart: 'a formula'}))""".replace("CUT_TOLERANCE", str(CUT_TOLERANCE))

# Each visible chart as drawn: its title's text and its heatmaps' scales as Plotly laid them out (a range left to
# Plotly is the one it computed; a map on a shared colour axis reads the axis), for ``tests.figure_rules``.
DRAWN_SCALES = """() => [...document.querySelectorAll('div.lab-chart.js-plotly-plot')]
  .filter((plot) => plot.checkVisibility() && plot._fullLayout && plot._fullData)
  .map((plot) => ({
    title: plot._fullLayout.title?.text || '',
    maps: plot._fullData.filter((trace) => trace.type === 'heatmap' && trace.visible !== false).map((trace) => {
      const axis = trace.coloraxis ? plot._fullLayout[trace.coloraxis] : null;
      const scale = axis || trace;
      return {quantity: (scale.colorbar?.title?.text || '').trim().toLowerCase(), hover: trace.hovertemplate || '',
        low: axis ? axis.cmin : trace.zmin, high: axis ? axis.cmax : trace.zmax,
        colours: (scale.colorscale || []).map((stop) => stop[1])};
    }),
  }))"""
