// The browser's check of a drawing's figures (ui/rooms/figure_check.js) on the cases and rules that
// tests/test_figure_check.py writes (FIGURE_CASES: the server's rules, and each figure with whether the server's
// check refuses it): the two checks agree.
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");

const { figureProblem } = require(path.join(__dirname, "..", "..", "ui", "rooms", "figure_check.js"));
const { rules, cases } = JSON.parse(fs.readFileSync(process.env.FIGURE_CASES, "utf8"));

for (const { name, spec, refused } of cases) {
  test(`${refused ? "refused" : "accepted"}: ${name}`, () => {
    const problem = figureProblem(spec, rules);
    if (refused) assert.notStrictEqual(problem, null);
    else assert.strictEqual(problem, null);
  });
}
