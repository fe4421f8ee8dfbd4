// The head view's hover (viz/head_view.py): a pointer on a query's name lights that query's lines in every head
// drawn, as BertViz does, and leaving it brings back what the figure drew (the chosen query's, or every query's). The figure carries what this needs in
// layout.meta.links: each drawn head's opacity levels [T, T], the x offset of each head's panel and the query
// names. Its line traces come first, LEVELS of them per head in level order (one trace per
// opacity a tenth apart), so a query's lines replace their x and y in place; the query names' trace is
// meta.links.names.
const headViewHover = (() => {
  // Per head and level, the x and y of the lines query -> key j of that opacity level (links.grid, the server's
  // viz.head_view.opacity_levels: 0 is a line not drawn).
  function segments(links, query) {
    const out = [];
    links.grid.forEach((head, k) => {
      const levels = Array.from({ length: links.levels }, () => ({ x: [], y: [] }));
      head[query].forEach((level, key) => {
        if (!(level >= 1 && level <= links.levels)) return;
        const line = levels[level - 1];
        line.x.push(links.offsets[k], links.offsets[k] + 1, null);
        line.y.push(query, key, null);
      });
      out.push(...levels);
    });
    return out;
  }

  function names(links, query) {
    // The query names as drawn (escaped by the server, thinned on long inputs), the lit query's in full and bold.
    return links.labels.map((label, i) => (i === query ? `<b>${links.full[i]}</b>` : label));
  }

  function light(plot, links, query) {
    const lines = segments(links, query);
    const indices = lines.map((_, i) => i);
    window.Plotly.restyle(plot, { x: lines.map((l) => l.x), y: lines.map((l) => l.y) }, indices);
    window.Plotly.restyle(plot, { text: [names(links, query)] }, [links.names]);
  }

  function attach(plot) {
    // Once per plot element; the figure's own meta is read at each event, so a new figure drawn in place works. What
    // the figure drew is kept when a query is first lit and drawn again when the pointer leaves, unless a new
    // figure has replaced it meanwhile (Plotly.react gives the plot new data).
    if (plot.labHeadViewHover || !plot.on) return;
    plot.labHeadViewHover = true;
    let lit = null, drawn = null;
    const linksOf = () => plot.layout && plot.layout.meta && plot.layout.meta.links;
    plot.on("plotly_hover", (event) => {
      const links = linksOf();
      const point = event && event.points && event.points[0];
      if (!links || !point || point.curveNumber !== links.names || point.pointNumber === lit) return;
      if (lit === null) {
        const lines = plot.data.slice(0, links.names);
        drawn = { data: plot.data, x: lines.map((t) => t.x), y: lines.map((t) => t.y), text: plot.data[links.names].text };
      }
      lit = point.pointNumber;
      light(plot, links, lit);
    });
    plot.on("plotly_unhover", () => {
      const links = linksOf();
      if (!links || lit === null) return;
      lit = null;
      if (!drawn || drawn.data !== plot.data) return;
      const indices = drawn.x.map((_, i) => i);
      window.Plotly.restyle(plot, { x: drawn.x, y: drawn.y }, indices);
      window.Plotly.restyle(plot, { text: [drawn.text] }, [links.names]);
    });
  }

  return { attach, segments, names };
})();

if (typeof module !== "undefined") module.exports = headViewHover;
