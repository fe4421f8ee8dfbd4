// "Show the numbers" under a chart (the page's side of ui/chart_numbers.js): a box that, once opened, holds the
// figure's data as tables and a CSV download, built again whenever the chart is drawn anew while the box is open
// (plotly_in_place.js calls numbersIn when it mounts a chart and fillNumbers after each draw).
const TABLE_CELLS = 2000; // more values than this: the CSV only

function numbersIn(parent, plot) {
  let box = parent.querySelector(":scope > details.lab-numbers");
  if (box) return box;
  box = document.createElement("details");
  box.className = "lab-numbers";
  const summary = document.createElement("summary");
  summary.textContent = "Show the numbers";
  box.appendChild(summary);
  box.addEventListener("toggle", () => box.open && fillNumbers(box, plot));
  parent.appendChild(box);
  return box;
}

function element(tag, text, attributes = {}) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text; // user text is text, never HTML
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

function numbersTable(table, title) {
  const shown = element("table");
  shown.appendChild(element("caption", [title, table.name].filter(Boolean).join(" · ")));
  const head = shown.createTHead().insertRow();
  for (const name of [table.corner, ...table.columns]) head.appendChild(element("th", name, { scope: "col" }));
  const body = shown.createTBody();
  for (const [name, ...row] of table.rows) {
    const line = body.insertRow();
    line.appendChild(element("th", name, { scope: "row" }));
    for (const value of row) line.appendChild(element("td", chartNumbers.shownValue(value)));
  }
  return shown;
}

function fillNumbers(box, plot) {
  if (!plot.labSpec) return;
  for (const old of [...box.children].slice(1)) old.remove();
  if (box.labCsv) URL.revokeObjectURL(box.labCsv);
  const figure = JSON.parse(plot.labSpec);
  const title = chartDescription.plainText(figure.layout && figure.layout.title && (figure.layout.title.text
    || figure.layout.title)) || "chart";
  const tables = chartNumbers.figureTables(figure.data, figure.layout);
  const count = chartNumbers.cellCount(tables);
  if (count === 0) {
    box.appendChild(element("p", "This chart draws no values of its own: its title and picture say what it shows."));
    return;
  }
  box.labCsv = URL.createObjectURL(new Blob([chartNumbers.figureCsv(tables, title)], { type: "text/csv" }));
  const file = title.replace(/[^\w.-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 80) || "chart";
  box.appendChild(element("a", `Download the numbers (CSV, ${count.toLocaleString("en")} values)`,
    { href: box.labCsv, download: `${file}.csv`, class: "lab-numbers-csv" }));
  if (count > TABLE_CELLS) {
    box.appendChild(element("p", `${count.toLocaleString("en")} values: too many for a table here; the CSV has them all.`));
    return;
  }
  // a region that scrolls, reachable by keyboard and named
  const region = element("div", undefined, { role: "region", tabindex: "0", "aria-label": `The numbers of ${title}` });
  region.className = "lab-numbers-tables";
  for (const table of tables) region.appendChild(numbersTable(table, title));
  box.appendChild(region);
}
