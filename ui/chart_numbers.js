// "Show the numbers": a chart's data as tables a screen reader can walk and as CSV, from the figure as the server
// sent it (before the browser thins its tick labels), each value named by the labels the reader sees.
// A heatmap is a table of its own, rows by columns; lines and bars are one table, a row per x and a column per
// trace when they share their x, else a row per point. plotly_in_place.js builds them when the reader opens the
// box under a chart; tests/js/chart_numbers.test.js runs them. One name in the component's scope: chartNumbers.
const chartNumbers = (() => {
  const { plainText, values, labelAt, axisOf, shownTraces: shown } = chartDescription;

  function panelNames(layout) {
    // The names over a grid's panels (make_subplots' titles: annotations on the paper, above their panel).
    return ((layout && layout.annotations) || [])
      .filter((note) => note.yref === "paper" && note.yanchor === "bottom" && note.text)
      .map((note) => plainText(note.text));
  }

  function heatmapName(trace, layout, index, count) {
    if (trace.name) return plainText(trace.name);
    const names = panelNames(layout), axis = Number(String(trace.xaxis || "x").slice(1) || 1);
    if (count > 1 && names.length >= count && names[axis - 1]) return names[axis - 1];
    return count > 1 ? `panel ${index + 1}` : "";
  }

  function cell(value) {
    return typeof value === "number" && Number.isFinite(value) ? value : null;
  }

  function axisTitle(axis, otherwise) {
    const title = axis.title && (typeof axis.title === "string" ? axis.title : axis.title.text);
    return plainText(title) || otherwise;
  }

  function heatmapTable(trace, layout, name) {
    const rows = values(trace.z).map((row) => values(row));
    const columns = rows.reduce((most, row) => Math.max(most, row.length), 0);
    const xs = trace.x ? values(trace.x) : [...Array(columns).keys()];
    const ys = trace.y ? values(trace.y) : [...Array(rows.length).keys()];
    const xAxis = axisOf(layout, trace.xaxis, "x"), yAxis = axisOf(layout, trace.yaxis, "y");
    return {
      name,
      corner: `${axisTitle(yAxis, "row")} \\ ${axisTitle(xAxis, "column")}`,
      columns: xs.slice(0, columns).map((x) => labelAt(xAxis, x)),
      rows: rows.map((row, i) => [labelAt(yAxis, ys[i]), ...row.map(cell)]),
    };
  }

  function lineTables(traces, layout) {
    const named = traces.map((trace, i) => plainText(trace.name) || `series ${i + 1}`);
    const across = (trace) => trace.orientation === "h";
    const xs = traces.map((trace) => values(across(trace) ? trace.y : trace.x));
    const ys = traces.map((trace) => values(across(trace) ? trace.x : trace.y));
    const first = traces[0], xAxis = axisOf(layout, across(first) ? first.yaxis : first.xaxis, across(first) ? "y" : "x");
    const xName = axisTitle(xAxis, "x");
    const label = (x, i) => (x === undefined ? String(i) : labelAt(xAxis, x));
    const same = xs.every((x) => x.length === xs[0].length && x.every((v, i) => v === xs[0][i]));
    if (same) {
      const points = xs[0].length ? xs[0] : ys[0].map((_, i) => undefined);
      return [{ name: "", corner: xName, columns: named,
        rows: points.map((x, i) => [label(x, i), ...ys.map((y) => cell(y[i]))]) }];
    }
    return [{ name: "", corner: `series, ${xName}`, columns: ["value"],
      rows: ys.flatMap((y, t) => y.map((v, i) => [`${named[t]}, ${label(xs[t][i], i)}`, cell(v)])) }];
  }

  function tileTables(trace, layout, tiles) {
    // One heatmap holding several maps as tiles (viz.tiles: layout.meta.tiles, tile t at tile row t // across and
    // column t % across, a gap of cells between tiles): a table per tile, named by the title above it, its keys
    // named as under the first tile.
    const whole = heatmapTable(trace, layout, "");
    const notes = ((layout && layout.annotations) || []).filter((note) => !note.xref || note.xref === "x");
    return [...Array(tiles.count).keys()].map((t) => {
      const r0 = Math.floor(t / tiles.across) * (tiles.rows + tiles.gap), c0 = (t % tiles.across) * (tiles.cols + tiles.gap);
      const title = notes.find((note) => note.x === c0 + (tiles.cols - 1) / 2 && note.y === r0 - 0.5);
      return {
        name: title ? plainText(title.text) : `tile ${t + 1}`,
        corner: whole.corner,
        columns: whole.columns.slice(0, tiles.cols),
        rows: whole.rows.slice(r0, r0 + tiles.rows).map(([name, ...row]) => [name, ...row.slice(c0, c0 + tiles.cols)]),
      };
    });
  }

  // The figure's tables: [{name, corner, columns, rows}], each row's first cell the row's name, then its values
  // (null where the figure has none).
  function figureTables(data, layout) {
    const traces = shown(data);
    const heatmaps = traces.filter((trace) => trace.type === "heatmap");
    const tiles = layout && layout.meta && layout.meta.tiles;
    if (heatmaps.length && tiles) return heatmaps.flatMap((trace) => tileTables(trace, layout, tiles));
    if (heatmaps.length) {
      return heatmaps.map((trace, i) => heatmapTable(trace, layout, heatmapName(trace, layout, i, heatmaps.length)));
    }
    const lines = traces.filter((trace) => ["scatter", "bar", "scattergl"].includes(trace.type || "scatter")
      && (trace.y !== undefined || trace.x !== undefined));
    return lines.length ? lineTables(lines, layout) : [];
  }

  // A value as the table shows it: four significant digits (the charts' hovers show three decimals).
  function shownValue(value) {
    return value === null || value === undefined ? "" : String(Number(value.toPrecision(4)));
  }

  function csvField(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "number") return String(Number(value.toPrecision(7))); // a float32's digits, no more
    let text = String(value);
    if (/^[=+\-@\t\r]/.test(text)) text = "'" + text; // a spreadsheet must not read a token as a formula
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }

  // Every table as CSV (RFC 4180, CRLF), one row per value: the table's name (``title`` for a table without one),
  // the row, the column and the value.
  function figureCsv(tables, title = "") {
    const lines = [["table", "row", "column", "value"]];
    for (const table of tables) {
      for (const row of table.rows) {
        row.slice(1).forEach((value, j) => lines.push([table.name || title, row[0], table.columns[j], value]));
      }
    }
    return lines.map((line) => line.map(csvField).join(",")).join("\r\n") + "\r\n";
  }

  function cellCount(tables) {
    return tables.reduce((sum, table) => sum + table.rows.length * table.columns.length, 0);
  }

  return { figureTables, figureCsv, cellCount, csvField, shownValue };
})();

if (typeof module !== "undefined") module.exports = chartNumbers;
