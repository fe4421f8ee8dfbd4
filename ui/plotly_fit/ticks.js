// Tick labels thinned and turned (names kept: names.js), axis titles, cell values, and fitFigure, which runs
// every step (see measure.js).

// ---- tick labels ----

function axisSpan(figure, key) {
  // How many data units the axis shows: its range where the figure sets one, else the cells of its heatmaps
  // or the points of its other traces (on a log axis, the decades its points cover, and a tenth more).
  const letter = key[0], id = key === letter + "axis" ? letter : letter + key.slice(5);
  const axis = figure.layout[key] || {};
  if (axis.type === "log") {
    if (Array.isArray(axis.range)) return axis.range[1] - axis.range[0];
    const values = figure.data.filter((trace) => (trace[letter + "axis"] || letter) === id)
      .flatMap((trace) => plainArray(trace[letter]) || []).filter((v) => v > 0);
    return values.length ? 1.1 * (Math.log10(Math.max(...values)) - Math.log10(Math.min(...values))) : 0;
  }
  if (Array.isArray(axis.range) && axis.range.every((end) => typeof end === "number")) {
    return Math.abs(axis.range[1] - axis.range[0]); // a range the figure sets: what the axis shows
  }
  let span = 0;
  for (const trace of figure.data) {
    if ((trace[letter + "axis"] || letter) !== id || (trace.meta && trace.meta.cell_columns)) continue;
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
  // "head"), upright labels turned by 45 degrees; an axis naming its cells keeps every name where it can
  // (names.js); otherwise every k-th label is kept.
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
    const span = axis.type === "log" ? axisSpan(figure, key) : axisCells(figure, key, ticks);
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
    const named = namesCells(texts, figure, key);
    const title = typeof axis.title === "string" ? { text: axis.title } : axis.title || {};
    const shared = title.text ? null : sharedWord(texts);
    if (shared) {
      texts = shared.rest;
      axis.title = { ...title, text: shared.word };
    }
    // short labels (letters, one-character tokens) stay level, thinned: only an axis of words turns
    const short = mostlyShort(texts);
    if (horizontal && angle === 0 && typeof axis.tickangle !== "number" && !panelBelow && !short && !fits(texts)) {
      angle = 45;
    }
    const turns = typeof axis.tickangle === "number" ? [angle] : short || panelBelow ? [0] : [0, 45, 90];
    if (named && nameEveryCell(layout, axis, ticks, texts, unitPx, horizontal ? turns : null)) {
      changed += shared ? 2 : 1;
      continue;
    }
    const keep = () => {
      const chosen = [], gap = need(texts);
      ticks.forEach((tick, i) => {
        if (!chosen.length || (tick[0] - ticks[chosen[chosen.length - 1]][0]) * unitPx >= gap) chosen.push(i);
      });
      return chosen;
    };
    let kept = keep();
    // turned words thinned down to mostly short ones ("a", ".") would write those sideways: level, thinned
    const isShort = (i) => [...texts[i]].length <= 2;
    if (angle === 45 && typeof axis.tickangle !== "number" && 2 * kept.filter(isShort).length >= kept.length) {
      angle = 0;
      kept = keep();
    }
    axis.tickmode = "array";
    axis.tickvals = kept.map((i) => ticks[i][1]);
    axis.ticktext = kept.map((i) => texts[i]);
    if (horizontal && typeof axis.tickangle !== "number") axis.tickangle = -angle;
    changed += ticks.length - kept.length + (shared ? 1 : 0);
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
  const extra = rowsAt(plotWidthOf(layout, width)) - rowsAt(WIDE_COLUMN_PX);
  if (extra > 0) {
    margin.b += extra * LEGEND_ROW_PX;
    grow(layout, extra * LEGEND_ROW_PX);
  }
  return Math.max(0, extra);
}

// ---- all of it ----

function dropCellTexts(figure, width) {
  // Values written in a heatmap's cells (by the heatmap, or by a text trace over it: viz/cell_text.py): where the
  // widest no longer fits its cell at its text size, the cells go without (the hover still gives each value),
  // rather than be shrunk below a readable size.
  const layout = figure.layout, plotWidth = plotWidthOf(layout, width, figure);
  let dropped = 0;
  for (const trace of figure.data) {
    const over = trace.meta && trace.meta.cell_columns;
    if (!over && (trace.type !== "heatmap" || !trace.texttemplate || !Array.isArray(trace.text))) continue;
    const rows = over ? [plainArray(trace.text) || []] : trace.text.filter(Array.isArray);
    const columns = over || Math.max(0, ...rows.map((row) => row.length));
    const key = axisKey(trace.xaxis, "x"), domain = (layout[key] || {}).domain || [0, 1];
    const font = fontOf(layout, trace.textfont);
    const widest = Math.max(0, ...rows.flat().map((text) => textWidth(text, font.size, 400, font.family)));
    if (columns && widest + 4 > (plotWidth * (domain[1] - domain[0])) / columns) {
      if (over) trace.visible = false;
      else trace.texttemplate = "";
      dropped += 1;
    }
  }
  return dropped;
}

function fitFigure(figure, width, touch) {
  // figure ({data, layout}) changed in place to read well at width px (touch: a touch screen); returns what was
  // changed, which is the same for every width at which the figure comes out the same.
  const layout = (figure.layout = figure.layout || {});
  figure.data = figure.data || [];
  if (touch && layout.dragmode === undefined) layout.dragmode = false;
  if (!(width > 0)) return "";
  const margin = margins(layout);
  const stacked = stackPanels(figure, width);
  const legendRows = legendBelow(figure, width);
  const across = retile(figure, width - margin.l - margin.r);
  const lines = fitTitleAndLegend(figure, width, touch);
  const rowsBelow = fitLegendBelow(figure, width);
  const titles = fitAxisTitles(figure, width);
  const taller = roomForRowNames(figure, width);
  const thinned = thinTicks(figure, width);
  const headers = fitHeaderRows(figure, width);
  const cells = dropCellTexts(figure, width);
  return JSON.stringify([stacked, legendRows, across, lines, rowsBelow, titles, taller, thinned, headers, cells,
                         layout.height]);
}
