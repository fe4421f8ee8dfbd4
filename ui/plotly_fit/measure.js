// A figure fitted to the width it is drawn at, before Plotly draws it: a phone's 360 px as well as a
// projector's 1600. The figures are built for a wide column, and for a compact window on the server (viz/compact.py:
// colour bars under the plot); where the plot is narrower than the column,
//  - a legend beside a plot narrower than NARROW_PX goes under it, in as many rows as its entries take,
//  - tiled grids (layout.meta.tiles, see viz/tiles.py) wrap to fewer tiles a row, down to one,
//  - panels side by side (subplots in one row) that would be too narrow, or whose row labels would lie over
//    the neighbouring panel, are stacked, one a row (labels the same as the neighbour's are shown once
//    instead); a panel's name wider than the figure wraps, a colour bar runs along the panels it colours,
//    and a legend under them stays as close under them,
//  - a title too long for the width wraps (measured in the weight it is drawn in), and a legend above the
//    plot moves under the title,
//  - an axis that names its cells (tokens) keeps every name up to 40 (names.js: a line a row, names across
//    turned and then smaller); other tick labels that would pile up are thinned out (a label every k cells; the
//    hover still names every cell), upright ones that do not fit are turned, and a log axis labels fewer of the
//    digits between its powers of ten.
// Nothing changes where everything fits, so a wide screen gets the figure as it was built. On a touch
// screen a drag over a plot scrolls the page (dragmode false): zooming stays on the toolbar's buttons; the
// toolbar is always shown there, so a title of several lines, or one under a toolbar of two rows, is lowered
// below it.

// The px of the fitting, each said in viz/compact.py (BROWSER_PX), written in by ui.plotly_in_place.fit_script.
const { NARROW_PX, MIN_PANEL_PX, TITLE_TOP_PX, LEGEND_ROW_PX, PANEL_TITLE_PX, TOOLBAR_ONE_ROW_PX, TOOLBAR_ROW_PX,
        WIDE_COLUMN_PX } = __BROWSER_PX__;
const FONT_FAMILY = "Source Sans Pro, Arial, sans-serif";

let measurer = null;
const LINE = 1.25; // a label's box across its baseline, in font sizes: a line with its ascenders and descenders

function textWidth(text, size, weight = 400, family = FONT_FAMILY) {
  // The width of text as the browser draws it (markup removed, entities decoded), in px.
  measurer = measurer || document.createElement("canvas").getContext("2d");
  measurer.font = `${weight >= 600 ? "bold" : "normal"} ${size}px ${family}`; // a semi-bold may be drawn bold
  const plain = String(text).replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
  return measurer.measureText(plain).width;
}

function fontOf(layout, font) {
  const base = layout.font || {};
  return { size: (font && font.size) || base.size || 12, family: (font && font.family) || base.family || FONT_FAMILY,
           weight: (font && font.weight) || 400 };
}

function margins(layout) {
  // The figure's margins (Plotly's defaults where it sets none), one object that every step changes.
  const margin = (layout.margin = layout.margin || {});
  for (const [side, px] of [["l", 80], ["r", 80], ["t", 100], ["b", 80]]) {
    if (typeof margin[side] !== "number") margin[side] = px;
  }
  return margin;
}

function yAxesOnTheLeft(layout) {
  return Object.keys(layout).filter((key) => /^yaxis\d*$/.test(key) && layout[key]
    && ((layout[key].side || "left") === "left"));
}

function plotWidthOf(layout, width, figure = null) {
  // The plot area's width: the figure's less its margins, the left one at least what Plotly will grow it
  // to (automargin) for a y axis's tick labels and title, the right one for the colour bars at the right
  // of the figure (given).
  const margin = margins(layout);
  let right = margin.r;
  for (const owner of figure ? colourBars(figure) : []) {
    const bar = owner.colorbar || {}, font = fontOf(layout, bar.tickfont);
    if (bar.orientation === "h") continue;
    const title = typeof bar.title === "string" ? bar.title : (bar.title || {}).text;
    right = Math.max(right, (bar.thickness ?? 30) + (bar.xpad ?? 10) + 6 + 2.6 * font.size
                            + (title ? LINE * fontOf(layout, (bar.title || {}).font).size : 0));
  }
  let left = margin.l;
  for (const key of yAxesOnTheLeft(layout)) {
    const axis = layout[key];
    if (axis.visible === false || axis.automargin === false) continue;
    const font = fontOf(layout, axis.tickfont);
    const texts = Array.isArray(axis.ticktext) ? axis.ticktext : null;
    const labels = axis.showticklabels === false ? 0
      : texts ? Math.max(0, ...texts.map((t) => textWidth(t, font.size, 400, font.family))) : 2.2 * font.size;
    const title = typeof axis.title === "string" ? axis.title : (axis.title || {}).text;
    left = Math.max(left, labels + 12 + (title ? font.size * 1.3 + 12 : 0));
  }
  return width - left - right;
}

function grow(layout, px) {
  // More room inside the figure (a wrapped title, a colour bar below): the plot area keeps its height.
  if (px > 0 && typeof layout.height === "number") layout.height = Math.round(layout.height + px);
}

// ---- numbers travelling as typed base64 blocks ({dtype, bdata, shape}) and nested arrays ----

const TYPED = { f8: Float64Array, f4: Float32Array, u1: Uint8Array, i1: Int8Array, u2: Uint16Array, i2: Int16Array,
                u4: Uint32Array, i4: Int32Array };

function decoded(value) {
  // The typed array a {dtype, bdata} block holds.
  const text = atob(value.bdata), bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new TYPED[value.dtype](bytes.buffer);
}

function gridShape(value) {
  // [rows, columns] of a 2-D value (read from a typed block's shape, not decoded), or null.
  if (value && value.bdata && TYPED[value.dtype]) {
    const shape = String(value.shape || "").split(",").map((n) => parseInt(n, 10));
    return shape.length === 2 ? shape : null;
  }
  const rows = gridRows(value);
  return rows ? [rows.length, rows[0].length] : null;
}

function gridRows(value) {
  // A 2-D value as an array of rows (typed rows stay typed), or null when it is not 2-D.
  if (value && value.bdata && TYPED[value.dtype]) {
    const shape = String(value.shape || "").split(",").map((n) => parseInt(n, 10));
    if (shape.length !== 2) return null;
    const flat = decoded(value);
    return Array.from({ length: shape[0] }, (_, r) => flat.subarray(r * shape[1], (r + 1) * shape[1]));
  }
  return Array.isArray(value) && value.length && (Array.isArray(value[0]) || ArrayBuffer.isView(value[0])) ? value : null;
}

function plainArray(value) {
  // A 1-D value as a plain array (a typed block decoded), or null.
  if (Array.isArray(value)) return value;
  if (value && value.bdata && TYPED[value.dtype]) return Array.from(decoded(value));
  return null;
}

function emptyRows(like, rows, cols) {
  // rows x cols of nothing: NaN for floats (drawn as no cell), 0 for integers, "" for text.
  const first = like[0];
  if (ArrayBuffer.isView(first)) {
    const Kind = first.constructor;
    const floats = Kind === Float32Array || Kind === Float64Array;
    return Array.from({ length: rows }, () => new Kind(cols).fill(floats ? NaN : 0));
  }
  const blank = typeof first[0] === "string" ? "" : null;
  return Array.from({ length: rows }, () => new Array(cols).fill(blank));
}

