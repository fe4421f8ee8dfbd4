// Panels side by side that stack on a narrow plot, and titles and legends that wrap (see measure.js).

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
  const plotWidth = plotWidthOf(layout, width, figure); // less the colour bars beside it, as ticks.js measures it
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
  const roomy = (p) => (p.dx[1] - p.dx[0]) * plotWidth >= Math.max(MIN_PANEL_PX, nameWidth(p))
    && namesFitAcross(figure, p.x, (p.dx[1] - p.dx[0]) * plotWidth);
  if (labelsFit && panels.every(roomy)) {
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
      // a row as tall as its font (a projector's is larger), and the legend's lift above the plot (y past 1)
      const row = Math.max(LEGEND_ROW_PX, Math.ceil(fontOf(layout, layout.legend.font).size * LINE + 6));
      const lift = ((layout.legend.y ?? 1.02) - 1) * Math.max(0, (layout.height || 0) - margin.t - margin.b);
      layout.legend = { ...layout.legend, x: 0, xanchor: "left" };
      extra = Math.max(extra, TITLE_TOP_PX + lines.length * lineHeight + rows * row + lift + 8 - margin.t);
    }
  }
  if (extra > 0) {
    margin.t += Math.round(extra);
    grow(layout, Math.round(extra));
  }
  return lines.join("<br>"); // where the lines break, which may change with the width while their number does not
}

