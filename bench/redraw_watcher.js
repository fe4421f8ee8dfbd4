// Installed in every page before Streamlit loads; bench/browser.py fills in the script_finished field, the idle selector and the websocket tap.
(() => {
  const FIELD = %(field)d;
  const IDLE = %(idle)r;
  const bench = window.__redraw = {armed: false, start: null, finishes: 0, paints: 0, lastPaint: null,
    runs: 0, lastRun: null,  // every script_finished since the page loaded, and when the last one came
    readyAt: null,  // when the page last became idle with every chart drawn, after a run past loadRuns
    loadRuns: 0,
    arm() { Object.assign(this, {armed: true, start: null, finishes: 0, paints: 0, lastPaint: null}); }};
  const mark = () => { if (bench.armed) { bench.armed = false; bench.start = performance.now(); } };
  for (const type of ["pointerdown", "mousedown", "keydown", "click"]) addEventListener(type, mark, true);

%(websocket)s
  const afterPaint = () => {
    if (!document.querySelector(IDLE)) { requestAnimationFrame(afterPaint); return; }
    requestAnimationFrame(() => requestAnimationFrame(() => { bench.paints += 1; bench.lastPaint = performance.now(); }));
  };
  const onFrame = (bytes) => {
    if (topField(bytes, FIELD) === undefined) return;
    bench.runs += 1;
    bench.lastRun = performance.now();
    if (bench.start === null) return;
    bench.finishes += 1;
    setTimeout(afterPaint, 0);  // after Streamlit's own handler has taken the message
  };
  tapWebSockets(onFrame);

  // While the page loads: each frame, is it idle after a run with every chart drawn? The last time it
  // became so is the load's end. The watch stops when the bench calls loaded().
  const ready = () => bench.runs > bench.loadRuns && document.querySelector(IDLE) !== null
    && [...document.querySelectorAll("div.lab-chart")].every((plot) => plot.classList.contains("js-plotly-plot"))
    && [...document.querySelectorAll("[data-testid=stPlotlyChart]")].every((chart) => chart.querySelector(".js-plotly-plot"))
    && [...document.querySelectorAll("[data-testid=stGraphVizChart]")].every((chart) => chart.querySelector("svg"));
  let wasReady = false, watching = true;
  bench.loaded = () => { watching = false; return bench.readyAt; };
  bench.watchLoad = () => {  // from now on, a load ends after the next run: an in-app navigation
    Object.assign(bench, {loadRuns: bench.runs, readyAt: null});
    wasReady = false;
    if (!watching) { watching = true; requestAnimationFrame(watch); }
  };
  const watch = () => {
    if (!watching) return;
    const now = ready();
    if (now && !wasReady) bench.readyAt = performance.now();
    wasReady = now;
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
})();
