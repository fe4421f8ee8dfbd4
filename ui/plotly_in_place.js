// One Plotly figure, redrawn in place: the first run draws a plot, and every later run with a
// different figure hands it to Plotly.react, which updates the plot it already has (no new plot,
// no new element). plotly.js itself is served by this app's own server (LIBRARY), never a CDN.
const LIBRARY = "__LIBRARY__";
const CONFIG = { displaylogo: false, responsive: false };
const FAILED = "The chart could not be drawn: reload the page.";

function serverBase() {
  // Where Streamlit's server answers: the page's own address, unless the host page names another.
  const backend = window.__streamlit && window.__streamlit.BACKEND_BASE_URL;
  if (!backend) return document.baseURI;
  return backend.endsWith("/") ? backend : backend + "/";
}

function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__attentionLabPlotly) {
    // A script tag, not fetch and eval: the browser compiles the 4.8 MB while it arrives.
    window.__attentionLabPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(LIBRARY, serverBase()).href;
      script.onload = () => (window.Plotly ? resolve(window.Plotly) : reject(new Error("no Plotly in " + script.src)));
      script.onerror = () => reject(new Error("plotly.js did not load from " + script.src));
      document.head.appendChild(script);
    }).catch((error) => {
      window.__attentionLabPlotly = null; // the next run tries again
      throw error;
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
  plot.labObserver = new ResizeObserver((entries) => {
    const width = Math.round(entries[0].contentRect.width);
    if (width > 0 && width !== plot.labWidth && plot._fullLayout && window.Plotly) {
      plot.labWidth = width;
      window.Plotly.Plots.resize(plot);
    }
  });
  plot.labObserver.observe(plot);
  return plot;
}

function draw(plot, spec) {
  const failed = () => {
    plot.labSpec = null; // drawn again, as a new plot, on the next run
    if (window.Plotly) window.Plotly.purge(plot);
    plot.textContent = FAILED;
  };
  loadPlotly()
    .then((Plotly) => {
      if (plot.textContent === FAILED) plot.textContent = "";
      const figure = JSON.parse(spec);
      return Plotly.react(plot, figure.data, figure.layout, { ...CONFIG, ...figure.config });
    })
    .then(() => { plot.labWidth = Math.round(plot.getBoundingClientRect().width); })
    .catch((error) => { console.error(error); failed(); });
}

export default function (component) {
  const { data, parentElement } = component;
  const plot = plotIn(parentElement);
  const owner = Symbol("render");
  plot.labOwner = owner;
  const spec = new TextDecoder().decode(data);
  if (spec !== plot.labSpec) {
    plot.labSpec = spec;
    draw(plot, spec);
  }
  return () => {
    if (plot.labOwner !== owner) return; // a later render of this element has the plot now
    plot.labObserver.disconnect();
    if (window.Plotly) window.Plotly.purge(plot);
    plot.remove();
  };
}
