// The browser's fitting of a figure to its width (ui/plotly_fit/, as one script: PLOTLY_FIT names the file that
// tests/test_plotly_fit_node.py writes), under Node's own test runner. Text is measured by a stand-in canvas, a
// character 0.6 of the font size wide, so each width below is computed by hand; the browser tests
// (tests/e2e/test_plotly_fit.py) measure with Chromium's own fonts.
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const vm = require("node:vm");

const CHARACTER = 0.6; // of the font size: the stand-in canvas's width of any character
const canvas = {
  font: "",
  measureText(text) {
    return { width: CHARACTER * parseFloat(/([\d.]+)px/.exec(this.font)[1]) * [...text].length };
  },
};
const context = vm.createContext({ document: { createElement: () => ({ getContext: () => canvas }) }, atob });
vm.runInContext(fs.readFileSync(process.env.PLOTLY_FIT, "utf8"), context);
const fit = (expression) => vm.runInContext(expression, context);
// a value of the script's realm as plain JSON (its arrays are of another realm; NaN, no cell, reads null)
const plain = (value) => JSON.parse(JSON.stringify(value));
const near = (actual, expected) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} is not ${expected}`);

test("level names of one character each are set LETTER_GAP_PX apart, longer names LEVEL_GAP_PX", () => {
  const [letterGap, wordGap] = fit("[LETTER_GAP_PX, LEVEL_GAP_PX]");
  assert.ok(letterGap < wordGap);
  near(fit('namePx(["q", "z", "a"], 14, "f", 0)'), CHARACTER * 14 + letterGap);
  near(fit('namePx(["q", "the", "a"], 14, "f", 0)'), 3 * CHARACTER * 14 + wordGap);
  // turned names need a line (LINE font sizes) across their baselines, whatever their length
  near(fit('namePx(["q", "the"], 14, "f", 90)'), fit("LINE") * 14);
});

test("a grid of tiles moved from two a row to one keeps each cell in its tile", () => {
  const tiles = { count: 2, rows: 2, cols: 2, gap: 1 };
  context.tiles = tiles;
  const from = fit("tileGeometry(tiles, 2)"), to = fit("tileGeometry(tiles, 1)");
  assert.deepStrictEqual(plain(from.shape), [2, 5]);
  assert.deepStrictEqual(plain(to.shape), [5, 2]);
  // head 1 in columns 0-1, head 2 in 3-4 (a gap column between): head 2 goes under head 1, a gap row between
  context.rows = [[1, 2, NaN, 5, 6], [3, 4, NaN, 7, 8]];
  context.from = from;
  context.to = to;
  const moved = plain(fit("moveCells(rows, tiles, from, to)"));
  assert.deepStrictEqual(moved, [[1, 2], [3, 4], [null, null], [5, 6], [7, 8]]);
});

test("a grid's names repeat on every tile once it is retiled, where more than one tile had names", () => {
  context.axis = { tickvals: [0, 1, 3, 4], ticktext: ["a", "b", "a", "b"] };
  fit("retileTicks(axis, 3, 3, false)");
  assert.deepStrictEqual(plain(context.axis.tickvals), [0, 1, 3, 4, 6, 7]);
  assert.deepStrictEqual(plain(context.axis.ticktext), ["a", "b", "a", "b", "a", "b"]);
  // names under the first tile only stay there, unless the axis asks for every tile
  context.axis = { tickvals: [0, 1], ticktext: ["a", "b"] };
  fit("retileTicks(axis, 3, 2, false)");
  assert.deepStrictEqual(plain(context.axis.tickvals), [0, 1]);
});

test("a grid too narrow for its tiles a row goes one a row, its cells keeping their height", () => {
  const figure = {
    data: [{ type: "heatmap", z: [[1, 2, NaN, 5, 6], [3, 4, NaN, 7, 8]] }],
    layout: {
      height: 200,
      margin: { l: 10, r: 10, t: 50, b: 50 },
      meta: { tiles: { count: 2, rows: 2, cols: 2, gap: 1, across: 2, min_px: 150 } },
    },
  };
  context.figure = figure;
  fit("fitFigure(figure, 320, false)"); // 300 px of plot: two tiles of 120 px, under the 150 they need
  assert.deepStrictEqual(plain(figure.data[0].z), [[1, 2], [3, 4], [null, null], [5, 6], [7, 8]]);
  assert.strictEqual(figure.layout.height, 50 + 50 + (100 / 2) * 5); // 50 px a cell, five rows of them
  const wide = { data: [{ type: "heatmap", z: [[1, 2, NaN, 5, 6]] }], layout: plain(figure.layout) };
  wide.layout.meta.tiles.rows = 1;
  wide.layout.height = 200;
  context.wide = wide;
  fit("fitFigure(wide, 420, false)"); // 400 px: two tiles of 160 px fit
  assert.deepStrictEqual(plain(wide.data[0].z), [[1, 2, null, 5, 6]]);
});

test("names over a grid's columns drop their shared word, then are set closer and smaller before any is left out", () => {
  const header = (pitch) => ({
    data: [],
    layout: {
      font: { size: 14 },
      margin: { l: 0, r: 0, t: 50, b: 50 },
      xaxis: { range: [-0.5, 11.5] },
      annotations: Array.from({ length: 12 }, (_, i) => ({ text: `head ${i + 1}`, x: i, y: 1.05, yref: "paper" })),
    },
    width: 12 * pitch,
  });
  const fitted = (pitch) => {
    context.figure = header(pitch);
    fit(`fitHeaderRows(figure, ${12 * pitch})`);
    return plain(context.figure.layout.annotations);
  };
  // 22 px apart: "10" and "11" need 2 · 0.6 · 14 + LEVEL_GAP_PX = 20.8 px, not the 28 a word's gap of 0.8 em asks
  const roomy = fitted(22);
  assert.deepStrictEqual(roomy.map((note) => note.text), Array.from({ length: 12 }, (_, i) => String(i + 1)));
  assert.ok(roomy.every((note) => note.visible !== false && note.font === undefined));
  // 18 px apart: at 11.5 px, 1.2 · 11.5 + 4 = 17.8 px; every head still named
  const tight = fitted(18);
  assert.ok(tight.every((note) => note.visible !== false && note.font.size === 11.5));
  // 10 px apart: no size fits, so every k-th name is kept at the figure's font
  const crowded = fitted(10);
  assert.ok(crowded.some((note) => note.visible === false) && crowded[0].visible !== false);
  assert.ok(crowded.every((note) => note.font === undefined));
});
