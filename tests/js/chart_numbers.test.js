// "Show the numbers" (ui/chart_numbers.js): a chart's data as tables named by the labels the reader sees, and as
// CSV that a spreadsheet reads as data.
const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");

global.chartDescription = require(path.join(__dirname, "..", "..", "ui", "chart_description.js"));
const { figureTables, figureCsv, cellCount, csvField, shownValue } = require(path.join(__dirname, "..", "..", "ui", "chart_numbers.js"));

const tokens = { tickvals: [0, 1, 2], ticktext: ["the", "cat", "sat"] };

test("a heatmap is a table of its rows by its columns, named by the tokens; the masked overlay is left out", () => {
  const data = [
    { type: "heatmap", z: [[0.5, 0.5, null], [0.2, 0.3, 0.5]], y: [0, 1], x: [0, 1, 2] },
    { type: "heatmap", z: [[0, 0, 1], [0, 0, 0]], hoverinfo: "skip", name: "masked" },
  ];
  const layout = { xaxis: { ...tokens, title: { text: "key" } }, yaxis: { ...tokens, title: { text: "query" } } };
  const [table, ...more] = figureTables(data, layout);
  assert.strictEqual(more.length, 0);
  assert.deepStrictEqual(table, {
    name: "",
    corner: "query \\ key",
    columns: ["the", "cat", "sat"],
    rows: [["the", 0.5, 0.5, null], ["cat", 0.2, 0.3, 0.5]],
  });
  assert.strictEqual(cellCount([table]), 6);
});

test("an axis title given as an object without text leaves the corner's default; values show four digits", () => {
  const [table] = figureTables([{ type: "heatmap", z: [[1 / 3]] }], { yaxis: { title: { font: { size: 14 } } } });
  assert.strictEqual(table.corner, "row \\ column");
  assert.strictEqual(shownValue(table.rows[0][1]), "0.3333");
  assert.strictEqual(shownValue(null), "");
});

test("a typed block of two dimensions (as the server sends numpy arrays) is read row by row", () => {
  const z = { dtype: "f4", bdata: Buffer.from(new Float32Array([1, 2, 3, 4]).buffer).toString("base64"), shape: "2, 2" };
  const [table] = figureTables([{ type: "heatmap", z }], {});
  assert.deepStrictEqual(table.rows, [["0", 1, 2], ["1", 3, 4]]);
  assert.deepStrictEqual(table.columns, ["0", "1"]);
});

test("a grid's panels are named by their titles when the traces have no names", () => {
  const data = [{ type: "heatmap", z: [[1]] }, { type: "heatmap", z: [[2]], xaxis: "x2", yaxis: "y2" }];
  const layout = {
    annotations: [
      { text: "head 1", yref: "paper", yanchor: "bottom" },
      { text: "head 2", yref: "paper", yanchor: "bottom" },
      { text: "a note", xref: "x", yref: "y" },
    ],
  };
  assert.deepStrictEqual(figureTables(data, layout).map((t) => t.name), ["head 1", "head 2"]);
});

test("a heatmap of tiles (every head of a layer in one trace) is a table per tile, named by its title", () => {
  // two heads of 2 x 2 side by side, a one-cell gap between them (null)
  const z = [[0.1, 0.9, null, 0.3, 0.7], [0.6, 0.4, null, 0.5, 0.5]];
  const layout = {
    meta: { tiles: { count: 2, rows: 2, cols: 2, across: 2, gap: 1 } },
    xaxis: { tickvals: [0, 1], ticktext: ["the", "cat"] },
    yaxis: { tickvals: [0, 1], ticktext: ["it", "was"] },
    annotations: [{ text: "head 1", x: 0.5, y: -0.5, yanchor: "bottom" }, { text: "head 2", x: 3.5, y: -0.5, yanchor: "bottom" }],
  };
  const tables = figureTables([{ type: "heatmap", z }], layout);
  assert.deepStrictEqual(tables.map((t) => [t.name, t.columns, t.rows]), [
    ["head 1", ["the", "cat"], [["it", 0.1, 0.9], ["was", 0.6, 0.4]]],
    ["head 2", ["the", "cat"], [["it", 0.3, 0.7], ["was", 0.5, 0.5]]],
  ]);
});

test("lines that share their x are one table, a column per line; others a row per point", () => {
  const shared = [
    { type: "scatter", name: "train loss", x: [0, 20], y: [4, 3] },
    { type: "scatter", name: "held-out loss", x: [0, 20], y: [4.2, NaN] },
  ];
  const [wide] = figureTables(shared, { xaxis: { title: { text: "step" } } });
  assert.deepStrictEqual(wide, { name: "", corner: "step", columns: ["train loss", "held-out loss"], rows: [["0", 4, 4.2], ["20", 3, null]] });
  const [long] = figureTables([shared[0], { type: "bar", name: "p", x: ["a"], y: [0.7] }], {});
  assert.deepStrictEqual(long.rows, [["train loss, 0", 4], ["train loss, 20", 3], ["p, a", 0.7]]);
  assert.deepStrictEqual([long.corner, long.columns], ["series, x", ["value"]]);
});

test("bars across the plot name each bar by its y", () => {
  const [table] = figureTables([{ type: "bar", orientation: "h", x: [0.6, 0.4], y: ["cat", "dog"] }], {});
  assert.deepStrictEqual(table.rows, [["cat", 0.6], ["dog", 0.4]]);
});

test("the CSV has one row per value, quoted where it must be, and no cell a spreadsheet would run", () => {
  const tables = [{ name: "head 1", corner: "", columns: ['say "hi"', "=SUM(A1)"], rows: [["a,b", 0.25, null]] }];
  assert.strictEqual(
    figureCsv(tables),
    'table,row,column,value\r\nhead 1,"a,b","say ""hi""",0.25\r\nhead 1,"a,b",\'=SUM(A1),\r\n',
  );
  assert.strictEqual(figureCsv([{ name: "", corner: "", columns: ["x"], rows: [["r", 1]] }], "Chart").split("\r\n")[1], "Chart,r,x,1");
  assert.strictEqual(csvField(-0.5), "-0.5"); // a negative number stays a number
  assert.strictEqual(csvField(Math.fround(0.1)), "0.1"); // a float32 written with its own digits
  assert.strictEqual(csvField("-1"), "'-1"); // a token that looks like one stays text
  assert.strictEqual(csvField("line\nbreak"), '"line\nbreak"');
});
