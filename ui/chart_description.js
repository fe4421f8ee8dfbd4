// A chart's text alternative for a screen reader, from the figure as Plotly drew it (its data decoded): the title,
// then what each trace holds and where its largest value is, named by the axis labels the reader sees.
// plotly_in_place.js sets it as the chart's aria-label after every draw; tests/js/chart_description.test.js runs it.
// One name in the scope it shares with the other scripts of the chart component: chartDescription.
const chartDescription = (() => {
  const DESCRIBED_TRACES = 3;

  function plainText(text) {
    const entities = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'", "&#39;": "'" };
    return String(text || "")
      .replace(/<br\s*\/?>/gi, " ")
      .replace(/<[^>]+>/g, "")
      .replace(/&(amp|lt|gt|quot|#x27|#39);/g, (entity) => entities[entity])
      .replace(/\u200b/g, "")
      .replace(/\s+/g, " ")
      .trim();
  }

  const TYPED = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array,
    u2: Uint16Array, i4: Int32Array, u4: Uint32Array };

  // An array as the figure holds it (a list, a typed array, or Plotly's typed block {dtype, bdata, shape}) as a
  // plain list; a block of two dimensions as a list of rows.
  function values(held) {
    if (held && typeof held === "object" && "bdata" in held && TYPED[held.dtype]) {
      const raw = held.bdata; // base64 as sent, or the bytes once plotly.js has decoded them
      const buffer = typeof raw === "string" ? Uint8Array.from(atob(raw), (c) => c.charCodeAt(0)).buffer
        : raw instanceof ArrayBuffer ? raw : raw.buffer;
      const flat = Array.from(new TYPED[held.dtype](buffer));
      const shape = String(held.shape || flat.length).split(",").map(Number);
      if (shape.length !== 2) return flat;
      return Array.from({ length: shape[0] }, (_, i) => flat.slice(i * shape[1], (i + 1) * shape[1]));
    }
    return Array.from(held || [], (item) => (item && typeof item === "object" && !Array.isArray(item) ? values(item) : item));
  }

  function number(value) {
    if (Number.isInteger(value)) return value.toLocaleString("en");
    const size = Math.abs(value);
    if (size !== 0 && (size >= 1e5 || size < 1e-3)) return value.toExponential(2);
    return size >= 100 ? value.toLocaleString("en", { maximumFractionDigits: 0 }) : value.toFixed(2);
  }

  function axisOf(layout, id, letter) {
    const name = letter + "axis" + (id && id !== letter ? id.slice(1) : "");
    return (layout && layout[name]) || {};
  }

  // The label the reader sees at a data coordinate: the tick text at that tick value, a category, or the number.
  function labelAt(axis, value) {
    if (Array.isArray(axis.tickvals) && Array.isArray(axis.ticktext)) {
      const at = axis.tickvals.findIndex((tick) => Number(tick) === Number(value));
      if (at >= 0) return plainText(axis.ticktext[at]);
    }
    return typeof value === "number" ? number(value) : plainText(value);
  }

  function finiteValues(list) {
    return list.filter((value) => typeof value === "number" && Number.isFinite(value));
  }

  function heatmapText(trace, layout) {
    const rows = values(trace.z).map((row) => values(row));
    const cells = rows.flatMap((row, i) => row.map((value, j) => [value, i, j]));
    const finite = cells.filter(([value]) => typeof value === "number" && Number.isFinite(value));
    const columns = rows.reduce((most, row) => Math.max(most, row.length), 0);
    if (!finite.length) return `a grid of ${rows.length} × ${columns} cells, none with a value`;
    const [top, i, j] = finite.reduce((best, cell) => (cell[0] > best[0] ? cell : best));
    const low = finite.reduce((least, cell) => Math.min(least, cell[0]), Infinity);
    const x = trace.x ? values(trace.x)[j] : j;
    const y = trace.y ? values(trace.y)[i] : i;
    const hover = Array.isArray(trace.text) && Array.isArray(trace.text[i]) ? trace.text[i][j] : null;
    const where = hover  // the cell's own hover label names it in full ("query 3: it, key 2: animal")
      ? plainText(String(hover).replace(/<br\s*\/?>/gi, ", "))
      : `${labelAt(axisOf(layout, trace.yaxis, "y"), y)}, ${labelAt(axisOf(layout, trace.xaxis, "x"), x)}`;
    return `a grid of ${rows.length} × ${columns} cells from ${number(low)} to ${number(top)}, the largest at ${where}`;
  }

  function barText(trace, layout) {
    const across = trace.orientation === "h";
    const heights = values(across ? trace.x : trace.y);
    const names = (across ? trace.y : trace.x) ? values(across ? trace.y : trace.x) : heights.map((_, i) => i);
    const finite = finiteValues(heights);
    if (!finite.length) return `${heights.length} bars without a value`;
    const top = heights.indexOf(Math.max(...finite));
    const axis = axisOf(layout, across ? trace.yaxis : trace.xaxis, across ? "y" : "x");
    const count = `${heights.length} bar${heights.length === 1 ? "" : "s"}`;
    return `${count}, the highest ${labelAt(axis, names[top])} at ${number(heights[top])}`;
  }

  function lineText(trace) {
    const held = values(trace.y);
    const finite = finiteValues(held);
    if (!finite.length) return `${held.length} points without a value`;
    const low = Math.min(...finite), high = Math.max(...finite);
    return `${finite.length} point${finite.length === 1 ? "" : "s"} from ${number(low)} to ${number(high)}`;
  }

  function traceText(trace, layout) {
    const name = trace.name ? `${plainText(trace.name)}: ` : "";
    if (trace.type === "heatmap") return name + heatmapText(trace, layout);
    if (trace.type === "bar") return name + barText(trace, layout);
    return name + lineText(trace);
  }

  function shownTraces(data) {
    // The traces that hold the chart's data: not hidden, and not an overlay the pointer passes through (masked
    // cells, the values written on cells).
    return (data || []).filter((trace) => trace.visible !== false && trace.hoverinfo !== "skip");
  }

  function describeChart(data, layout) {
    const title = plainText(layout && layout.title && (layout.title.text || layout.title));
    const shown = shownTraces(data);
    const parts = shown.slice(0, DESCRIBED_TRACES).map((trace) => traceText(trace, layout));
    if (shown.length > DESCRIBED_TRACES) parts.push(`and ${shown.length - DESCRIBED_TRACES} more`);
    return [title ? `Chart: ${title}.` : "Chart.", parts.length ? parts.join("; ") + "." : ""].join(" ").trim();
  }

  return { describeChart, shownTraces, plainText, values, labelAt, axisOf };
})();

if (typeof module !== "undefined") module.exports = chartDescription;
