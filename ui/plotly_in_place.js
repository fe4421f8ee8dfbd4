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

function runScript(text, source) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
    script.onload = () => {
      URL.revokeObjectURL(script.src);
      if (window.Plotly) resolve(window.Plotly);
      else reject(new Error("no Plotly in " + source));
    };
    script.onerror = () => reject(new Error("plotly.js did not run, from " + source));
    document.head.appendChild(script);
  });
}

function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__attentionLabPlotly) {
    // The address names plotly's version, so a copy the browser kept is used as it is, without asking
    // the server again (the server sends it with no date to check it against).
    const source = new URL(LIBRARY, serverBase()).href;
    window.__attentionLabPlotly = fetch(source, { cache: "force-cache" })
      .then((kept) => (kept.ok ? kept : fetch(source, { cache: "reload" }))) // never keep a failure
      .then((response) => {
        if (!response.ok) throw new Error("plotly.js: " + response.status + " from " + source);
        return response.text();
      })
      .then((text) => runScript(text, source))
      .catch((error) => {
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
    plot.labSpec = null; // drawn again on the next run
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
