// One Plotly figure, redrawn in place: the first run draws a plot, and every later run with a
// different figure hands it to Plotly.react, which updates the plot it already has (no new plot,
// no new element). plotly.js itself is served by this app's own server (LIBRARY), never a CDN.
const LIBRARY = "__LIBRARY__";
const CONFIG = { displaylogo: false, responsive: false };

function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__attentionLabPlotly) {
    window.__attentionLabPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(LIBRARY, document.baseURI).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        window.__attentionLabPlotly = null; // the next run tries again
        reject(new Error("plotly.js did not load"));
      };
      document.head.appendChild(script);
    });
  }
  return window.__attentionLabPlotly;
}

function plotIn(parent) {
  let plot = parent.querySelector(":scope > div.lab-chart");
  if (plot) return plot;
  plot = document.createElement("div");
  plot.className = "lab-chart";
  parent.appendChild(plot);
  // Follow the column's width (sidebar opened or closed, window resized, an expander opened).
  let width = 0;
  plot.labObserver = new ResizeObserver((entries) => {
    const now = Math.round(entries[0].contentRect.width);
    if (now !== width && now > 0 && plot._fullLayout && window.Plotly) {
      width = now;
      window.Plotly.Plots.resize(plot);
    }
  });
  plot.labObserver.observe(plot);
  return plot;
}

export default function (component) {
  const { data, parentElement } = component;
  const plot = plotIn(parentElement);
  const spec = new TextDecoder().decode(data);
  if (spec !== plot.labSpec) {
    plot.labSpec = spec;
    const figure = JSON.parse(spec);
    const draw = (Plotly) => Plotly.react(plot, figure.data, figure.layout, { ...CONFIG, ...figure.config });
    if (window.Plotly) draw(window.Plotly);
    else loadPlotly().then(draw, () => {
      plot.labSpec = null;
      plot.textContent = "The chart could not be drawn: reload the page.";
    });
  }
  return () => {
    plot.labObserver.disconnect();
    if (window.Plotly) window.Plotly.purge(plot);
    plot.remove();
  };
}
