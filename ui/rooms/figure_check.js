// Is a drawing's figure one the app could have drawn? The browser's check, before Plotly draws a figure a
// student's page received from the board: the same rules as the server's (classroom/figure_check.py, which sends
// them as FIGURE_RULES), so a drawing forged in the store is refused even where a server let it through.
function typedLength(block) {
  const shape = block.shape;
  if (typeof shape === "string" && /^\d+(\s*,\s*\d+)*$/.test(shape)) {
    return shape.split(",").reduce((count, size) => count * Number(size), 1);
  }
  return Math.floor(String(block.bdata || "").length * 3 / 4);
}

function walkProblem(value, rules, depth, key) {
  // [what is wrong in value, found under key, or null; how many array entries it holds]
  if (depth > rules.maxDepth) return ["it is nested too deeply", 0];
  if (typeof value === "string") {
    if (key === "source") {
      const image = new RegExp(`^(?:${rules.image})$`);
      return [image.test(value) ? null : "an image is not a data: URI of a raster image", 0];
    }
    return [new RegExp(rules.forbidden, "i").test(value) ? `a text could link or load: “${value.slice(0, 40)}”` : null, 0];
  }
  if (Array.isArray(value)) {
    let count = value.length;
    for (const child of value) {
      const [problem, entries] = walkProblem(child, rules, depth + 1, key);
      if (problem) return [problem, 0];
      count += entries;
    }
    return [null, count];
  }
  if (value && typeof value === "object") {
    if ("bdata" in value && "dtype" in value) return [null, typedLength(value)];
    let count = 0;
    for (const [childKey, child] of Object.entries(value)) {
      const [problem, entries] = walkProblem(child, rules, depth + 1, childKey);
      if (problem) return [problem, 0];
      count += entries;
    }
    return [null, count];
  }
  return [null, 0];
}

function points(trace) {
  const x = trace.x !== undefined ? trace.x : trace.y;
  if (Array.isArray(x)) return x.length;
  return x && typeof x === "object" ? typedLength(x) : 0;
}

function figureProblem(spec, rules) {
  // What in a drawing's figure ({data, layout, config?}) the app never draws, or null.
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) return "a figure is not an object";
  if (Object.keys(spec).some((key) => !["data", "layout", "config"].includes(key))) {
    return "a figure has parts other than data, layout and config";
  }
  const data = spec.data === undefined ? [] : spec.data;
  const layout = spec.layout === undefined ? {} : spec.layout;
  const config = spec.config === undefined ? {} : spec.config;
  const isObject = (value) => value && typeof value === "object" && !Array.isArray(value);
  if (!Array.isArray(data) || !isObject(layout) || !isObject(config)) {
    return "a figure's data, layout or config has the wrong shape";
  }
  const typeOf = (trace) => (trace.type === undefined ? "scatter" : trace.type);
  for (const trace of data) {
    if (!isObject(trace) || !rules.traces.includes(typeOf(trace))) return `a trace of type “${String(trace && trace.type).slice(0, 20)}”`;
  }
  const scattered = data.filter((trace) => typeOf(trace) === "scatter").reduce((sum, trace) => sum + points(trace), 0);
  if (scattered > rules.maxPoints) return `more than ${rules.maxPoints} scatter points`;
  const layoutKey = new RegExp(`^(?:${rules.layout})$`);
  const unknown = Object.keys(layout).filter((key) => !layoutKey.test(key))
    .concat(Object.keys(config).filter((key) => !rules.config.includes(key)));
  if (unknown.length) return `a layout or config key the app never sets: “${unknown[0].slice(0, 20)}”`;
  const [problem, entries] = walkProblem(spec, rules, 0, "");
  if (problem === null && entries > rules.maxValues) return `more than ${rules.maxValues} values`;
  return problem;
}

if (typeof module !== "undefined") module.exports = { figureProblem };
