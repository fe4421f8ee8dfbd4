// One Plotly figure, redrawn in place: the first run draws a plot, and every later run with a
// different figure hands it to Plotly.react, which updates the plot it already has (no new plot,
// no new element). plotly.js itself is served by this app's own server (LIBRARY), never a CDN.
const LIBRARY = "__LIBRARY__";
const FAILED = "The chart could not be drawn: reload the page.";

// Full screen for the projector: the plot fills the screen (its height too) until Esc or a second
// click. Where the browser allows no element full screen (a phone, a frame without the permission),
// the plot fills the window instead (EXPANDED, styled by FULL_SCREEN_CSS).
const EXPANDED = "lab-chart-expanded";

function isFullScreen(plot) {
  return document.fullscreenElement === plot || plot.classList.contains(EXPANDED);
}

function holdPlace(plot, on) {
  // While the plot is out of the page's flow, its element (the plot and "Show the numbers") keeps its height:
  // nothing below it moves.
  plot.parentElement.style.minHeight = on ? plot.parentElement.getBoundingClientRect().height + "px" : "";
}

function expand(plot, on) {
  if (on) holdPlace(plot, true);
  plot.classList.toggle(EXPANDED, on);
  if (!on) holdPlace(plot, false);
  fitToScreen(plot);
}

function toggleFullScreen(plot) {
  if (document.fullscreenElement === plot) return document.exitFullscreen();
  if (plot.classList.contains(EXPANDED)) return expand(plot, false);
  if (!document.fullscreenEnabled || !plot.requestFullscreen) return expand(plot, true);
  holdPlace(plot, true);
  return plot.requestFullscreen().catch(() => expand(plot, true));
}

function onFullScreenChange(plot) {
  if (document.fullscreenElement !== plot) holdPlace(plot, false);
  fitToScreen(plot);
}

if (!window.__attentionLabEscape) {
  window.__attentionLabEscape = true;
  addEventListener("keydown", (event) => {
    if (event.key === "Escape") document.querySelectorAll("." + EXPANDED).forEach((plot) => expand(plot, false));
  });
}

const FULL_SCREEN = {
  name: "lab-full-screen",
  title: "Full screen (Esc to leave)",
  icon: { width: 24, height: 24, path: "M3 3h7v2H5v5H3zm11 0h7v7h-2V5h-5zM3 14h2v5h5v2H3zm16 0h2v7h-7v-2h5z" },
  click: toggleFullScreen,
};
// Plotly.react draws a new plot when the config differs from the last one (compared deeply, functions
// by identity), so every run passes these same values and this same button object.
// No "Share chart" button: it would send the figure to Plotly's cloud, and a classroom may be offline.
// No box or lasso select: no figure does anything with a selection.
const CONFIG = { displaylogo: false, showSendToCloud: false, responsive: false, modeBarButtonsToAdd: [FULL_SCREEN],
                 modeBarButtonsToRemove: ["select2d", "lasso2d"] };

function screenSize(plot) {
  // Full screen: the plot's box inside its padding (FULL_SCREEN_CSS); otherwise its column's width
  // (null: Plotly's autosize) and the figure's own height.
  if (isFullScreen(plot)) {
    const style = getComputedStyle(plot);
    return { width: plot.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
             height: plot.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) };
  }
  return { autosize: true, width: null, height: plot.labHeight === undefined ? null : plot.labHeight };
}

function layoutForScreen(layout, plot) {
  // The figure's layout as drawn now: its own, or at the screen's size while the plot is full screen
  // (its own height is kept for the way back).
  plot.labHeight = layout.height;
  return isFullScreen(plot) ? { ...layout, ...screenSize(plot) } : layout;
}

function fitToScreen(plot) {
  if (plot._fullLayout && window.Plotly) window.Plotly.relayout(plot, screenSize(plot));
}

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
  plot.labObserver = new ResizeObserver((entries) => {
    if (!plot._fullLayout || !window.Plotly) return;
    if (isFullScreen(plot)) return fitToScreen(plot); // the window was resized or the phone turned
    // Follow the column's width (sidebar opened or closed, window resized, an expander opened), and fit
    // the figure to it again once the width has settled, if that changes what the figure needs.
    const width = Math.round(entries[0].contentRect.width);
    if (width > 0 && width !== plot.labWidth) {
      plot.labWidth = width;
      window.Plotly.Plots.resize(plot);
      clearTimeout(plot.labRefit);
      plot.labRefit = setTimeout(() => refit(plot), REFIT_AFTER_MS);
    }
  });
  plot.labObserver.observe(plot);
  plot.addEventListener("fullscreenchange", () => onFullScreenChange(plot));
  return plot;
}

// Touch screens: a drag over a plot scrolls the page (plotly_fit/).
const TOUCH = window.matchMedia("(hover: none) and (pointer: coarse)");
const REFIT_AFTER_MS = 120;

function fitted(plot, spec) {
  // The figure of spec, fitted to the plot's width now (plotly_fit/); plot.labFit says how.
  const figure = JSON.parse(spec);
  plot.labFit = fitFigure(figure, plot.clientWidth, TOUCH.matches);
  return figure;
}

function refit(plot) {
  // After a width change: draw the figure again if it fits the new width differently.
  plot.labRefit = null;
  if (!plot.labSpec || !plot._fullLayout || isFullScreen(plot)) return;
  const shown = plot.labFit;
  const figure = fitted(plot, plot.labSpec);
  if (plot.labFit === shown) return;
  window.Plotly.react(plot, figure.data, layoutForScreen(figure.layout, plot), { ...CONFIG, ...figure.config });
}

// Masked cells are hatched grey: viz.masking's overlay (a heatmap trace named "masked", flat grey where a cell is
// masked, transparent elsewhere) is drawn through an SVG filter that lays diagonal stripes over its opaque part.
const HATCH = "lab-hatch";
const STRIPES = "data:image/svg+xml," + encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'>"
  + "<path d='M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4' stroke='#6f6f6f' stroke-width='1.6'/></svg>");

function hatchFilter() {
  if (document.getElementById(HATCH)) return;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", "0");
  svg.setAttribute("height", "0");
  svg.style.position = "absolute";
  svg.innerHTML = `<defs><filter id="${HATCH}" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB">`
    + `<feImage href="${STRIPES}" x="0" y="0" width="8" height="8" result="stripe"/>`
    + `<feTile in="stripe" result="stripes"/>`
    + `<feComposite in="stripes" in2="SourceAlpha" operator="in" result="inside"/>`
    + `<feMerge><feMergeNode in="SourceGraphic"/><feMergeNode in="inside"/></feMerge></filter></defs>`;
  document.body.appendChild(svg);
}

function hatchMasked(plot) {
  // Each heatmap's group carries its trace (d3's data): the masked overlay's image gets the filter.
  for (const group of plot.querySelectorAll("g.hm")) {
    const trace = group.__data__ && group.__data__[0] && group.__data__[0].trace;
    const image = group.querySelector("image");
    if (trace && trace.name === "masked" && image) {
      hatchFilter();
      image.setAttribute("filter", `url(#${HATCH})`);
    }
  }
}

function drawn(plot) {
  // The plot's first drawing is hatched here; every later one (a new figure, a resize, full screen) by its event.
  if (plot.labHatching || !plot.on) return;
  plot.labHatching = true;
  hatchMasked(plot);
  plot.on("plotly_afterplot", () => hatchMasked(plot));
  headViewHover.attach(plot); // a head view lights the lines of the query under the pointer (ui/head_view_hover.js)
}

function described(plot) {
  // What a screen reader says of the chart (ui/chart_description.js), from the figure as drawn; the plot stays a
  // figure whose toolbar is reachable, not an image.
  plot.setAttribute("role", "figure");
  try {
    plot.setAttribute("aria-label", chartDescription.describeChart(plot.data, plot.layout));
  } catch (error) { // never in the way of the chart itself
    console.warn("no text alternative:", error);
    plot.setAttribute("aria-label", "Chart");
  }
}

function emptied(plot) {
  // The plot as a new one: Plotly's state and its event handlers gone (the hatching's and the head view's hover
  // are added again once drawn).
  if (window.Plotly) window.Plotly.purge(plot);
  plot.labHatching = false;
  plot.labHeadViewHover = false;
}

function draw(plot, spec) {
  const failed = () => {
    plot.labSpec = null; // drawn again, as a new plot, on the next run
    emptied(plot);
    plot.textContent = FAILED;
  };
  loadPlotly()
    .then((Plotly) => {
      if (plot.textContent === FAILED) plot.textContent = "";
      const figure = fitted(plot, spec);
      const react = () => Plotly.react(plot, figure.data, layoutForScreen(figure.layout || {}, plot),
        { ...CONFIG, ...figure.config });
      // A figure with another grid of subplots than the one drawn (a phone's layout of the same chart, say) is
      // one Plotly may fail to update in place: it is then drawn as a new plot.
      return Promise.resolve().then(react).catch((error) => {
        console.warn("drawn again as a new plot:", error);
        emptied(plot);
        return react();
      });
    })
    .then(() => {
      plot.labWidth = Math.round(plot.getBoundingClientRect().width);
      described(plot);
      drawn(plot);
      if (plot.labNumbers && plot.labNumbers.open) fillNumbers(plot.labNumbers, plot);
    })
    .catch((error) => { console.error(error); failed(); });
}

// The charts on the page by name, for a class's drawing (ui/rooms/follower.js): a student's browser hands a
// chart the teacher's newer figure with show(name, spec), and a run's own figure gives way to a newer one
// the browser already shows (window.__attentionLabClass.figureFor).
const CHARTS = (window.__attentionLabCharts = window.__attentionLabCharts || new Map());

function show(plot, spec) {
  if (spec !== plot.labSpec) {
    plot.labSpec = spec;
    draw(plot, spec);
  }
}

if (!window.__attentionLabShow) {
  window.__attentionLabShow = (name, spec) => {
    const plot = CHARTS.get(name);
    if (plot && plot.isConnected) show(plot, spec);
    return Boolean(plot && plot.isConnected);
  };
  // A figure drawn into an element of another part of the page (the class's panel of the teacher's screen), its
  // numbers under it as under the page's own charts.
  window.__attentionLabPlotInto = (parent, spec) => {
    const plot = plotIn(parent);
    plot.labNumbers = numbersIn(parent, plot);
    show(plot, spec);
  };
}

export default function (component) {
  const { data, parentElement } = component;
  const plot = plotIn(parentElement);
  plot.labNumbers = numbersIn(parentElement, plot);
  const owner = Symbol("render");
  plot.labOwner = owner;
  const text = new TextDecoder().decode(data);
  const cut = text.indexOf("\n");
  const name = text.slice(0, cut);
  const following = window.__attentionLabClass;
  plot.labName = name;
  CHARTS.set(name, plot);
  show(plot, (following && following.figureFor(name)) || text.slice(cut + 1));
  return () => {
    if (plot.labOwner !== owner) return; // a later render of this element has the plot now
    if (CHARTS.get(plot.labName) === plot) CHARTS.delete(plot.labName);
    plot.labObserver.disconnect();
    clearTimeout(plot.labRefit);
    emptied(plot);
    plot.remove();
    if (plot.labNumbers.labCsv) URL.revokeObjectURL(plot.labNumbers.labCsv);
    plot.labNumbers.remove();
  };
}
