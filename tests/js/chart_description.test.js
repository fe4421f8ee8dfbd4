// The charts' text alternatives (ui/chart_description.js) on figures as Plotly holds them once drawn: the title
// in plain words, each trace's size and range, and its largest value named by the labels the reader sees.
const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");

const { describeChart, plainText } = require(path.join(__dirname, "..", "..", "ui", "chart_description.js"));

test("a title's markup and escapes become plain words", () => {
  assert.strictEqual(plainText("Layer 1 &amp; 2<br>the <b>cat</b>&#x27;s head\u200b"), "Layer 1 & 2 the cat's head");
});

test("a heatmap names its grid, its range and its largest cell by the tick labels", () => {
  const data = [
    { type: "heatmap", z: [[0.1, 0.9], [0.5, null]] },
    { type: "heatmap", z: [[0, 1]], hoverinfo: "skip", name: "masked" },
  ];
  const layout = {
    title: { text: "Layer 1 · 2 heads" },
    xaxis: { tickvals: [0, 1], ticktext: ["the", "cat"] },
    yaxis: { tickvals: [0, 1], ticktext: ["it", "was"] },
  };
  assert.strictEqual(
    describeChart(data, layout),
    "Chart: Layer 1 · 2 heads. a grid of 2 × 2 cells from 0.10 to 0.90, the largest at it, cat.",
  );
});

test("bars name their highest bar, upright or across", () => {
  const layout = { title: { text: "Next token" } };
  assert.strictEqual(
    describeChart([{ type: "bar", x: ["a", "b", "c"], y: [0.2, 0.7, 0.1] }], layout),
    "Chart: Next token. 3 bars, the highest b at 0.70.",
  );
  assert.strictEqual(
    describeChart([{ type: "bar", orientation: "h", y: ["x", "y"], x: [1200, 3400], name: "weights" }], layout),
    "Chart: Next token. weights: 2 bars, the highest y at 3,400.",
  );
});

test("lines give their points' range; hidden and extra traces are left out or counted", () => {
  const lines = [1, 2, 3, 4].map((i) => ({ type: "scatter", y: [i, 2 * i, NaN], name: `head ${i}` }));
  lines.push({ type: "scatter", y: [9], visible: false });
  assert.strictEqual(
    describeChart(lines, { title: "Curves" }),
    "Chart: Curves. head 1: 2 points from 1 to 2; head 2: 2 points from 2 to 4; " +
      "head 3: 2 points from 3 to 6; and 1 more.",
  );
});

test("a chart without a title or data still says it is a chart", () => {
  assert.strictEqual(describeChart([], {}), "Chart.");
  assert.strictEqual(describeChart([{ type: "heatmap", z: [[null]] }], {}), "Chart. a grid of 1 × 1 cells, none with a value.");
});

test("Plotly's typed blocks are read as the arrays they hold", () => {
  const floats = new Float32Array([0.25, 0.5, 0.125, 0.75]);
  const bdata = Buffer.from(floats.buffer).toString("base64");
  const figure = [{ type: "heatmap", z: { dtype: "f4", bdata, shape: "2, 2" } }];
  assert.strictEqual(
    describeChart(figure, { title: { text: "Blocks" } }),
    "Chart: Blocks. a grid of 2 × 2 cells from 0.13 to 0.75, the largest at 1, 1.",
  );
});

test("a cell's hover label names it in full where the axis shows only some labels", () => {
  const data = [{ type: "heatmap", z: [[0.2, 0.8]], text: [["query 1: it<br>key 1: the", "query 1: it<br>key 2: cat"]] }];
  assert.strictEqual(
    describeChart(data, { title: { text: "Map" }, xaxis: { tickvals: [0], ticktext: ["the"] } }),
    "Chart: Map. a grid of 1 × 2 cells from 0.20 to 0.80, the largest at query 1: it, key 2: cat.",
  );
});
