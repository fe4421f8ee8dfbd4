// A student's class, live in the browser: waits on the server's board for the teacher's next drawing
// (GET _class/<token>, answered when something changes) and takes it in place: each chart of the page gets the
// teacher's figure (Plotly.react, through plotly_in_place.js), the strip shows the teacher's settings and the
// address bar holds them. Where the page must change (another page, section, lesson step, model, presentation
// mode, a question revealed, the class ended), it shows the teacher's page in place of its own: the drawing's
// copy (HTML made by ui/rooms/page_copy.py) with the teacher's figures drawn into it, and the page does not run.
// Where the copy is not whole (the teacher's page shows something it cannot hold) or presentation mode changes,
// it starts a run of this session instead (setTriggerValue), once a change; until that run has drawn the page,
// the teacher's figures are shown at once in a panel above it.
// While following, the page's own controls are hidden: the teacher's settings are shown instead.
// A change of the class's status (a question revealed, the class ended, paused, resumed, sent to its own pace or
// brought back) starts a run of this session, whether it follows or explores.
const MAX_CHARS = 8000000;
const RETRY_MS = 1000;
const NUMBERED = 32; // the controls a numbered URL key can stand for (ui/rooms/schema.py's MAX_VALUES)
const NO_DRAWING_WAIT_MS = 1500; // a view with no drawing after this long: this page runs to show it
// Another page: the teacher's figures go into the panel at once, and this page's own run starts a moment later,
// at a random point of OPEN_AFTER_MS. Every student's run starts the page script on the server; started all
// at once, they would hold up the board's answers to the rest of the class, and so the figures in its panels.
const OPEN_AFTER_MS = [300, 1000];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms + Math.random() * 250));

function serverBase() {
  const backend = window.__streamlit && window.__streamlit.BACKEND_BASE_URL;
  if (!backend) return document.baseURI;
  return backend.endsWith("/") ? backend : backend + "/";
}

function sameStatus(a, b) {
  return a && b && a.kind === b.kind && a.recheck === b.recheck
    && JSON.stringify(a.revealed || []) === JSON.stringify(b.revealed || [])
    && (a.pace || "") === (b.pace || "") && Boolean(a.paused) === Boolean(b.paused);
}

function readable(drawing, figureRules) {
  // A drawing in its shape, each of its figures one the app could have drawn (figure_check.js).
  return drawing && typeof drawing === "object" && Number.isInteger(drawing.version) && typeof drawing.layout === "string"
    && drawing.charts && typeof drawing.charts === "object" && Array.isArray(drawing.settings)
    && drawing.query && typeof drawing.query === "object" && typeof drawing.page === "string"
    && Object.values(drawing.charts).every((spec) => figureProblem(spec, figureRules) === null);
}

function hideControls(keys, following) {
  // The page's own controls (their elements carry st-key-<key>) are hidden while following.
  let style = document.getElementById("lab-follow-style");
  if (!style) {
    style = document.createElement("style");
    style.id = "lab-follow-style";
    document.head.appendChild(style);
  }
  // A key with "#" stands for a control per number (a sentence, a layer): each of 0..NUMBERED - 1.
  const names = keys.flatMap((key) => (key.includes("#")
    ? Array.from({ length: NUMBERED }, (_, n) => key.replaceAll("#", String(n))) : [key]));
  const selectors = names.map((name) => `[data-testid="stMain"] .st-key-${name.replace(/[^a-zA-Z0-9_-]/g, "-")}`);
  style.textContent = following && selectors.length ? `${selectors.join(",\n")} { display: none !important; }` : "";
}

// What a copy's style may say, and MathML's namespace (its tags and attributes come from ui/rooms/page_copy.py's
// allow-list, with each run's data).
const COPY_STYLE = /^(flex: [0-9.e-]+ 1 0|text-align: ?(left|right|center));?$/;
const MATHML_NS = "http://www.w3.org/1998/Math/MathML";

function copyOf(html, allowed) {
  // The copy as inert nodes (a template runs no script and loads nothing), cut to the allow-list (a drawing read
  // from the store is checked again here).
  const tags = new Set(allowed.tags), attributes = new Set(allowed.attributes);
  const template = document.createElement("template");
  template.innerHTML = html;
  for (const element of [...template.content.querySelectorAll("*")]) {
    const mathml = element.namespaceURI === MATHML_NS;
    if (!tags.has(element.localName) || mathml !== Boolean(element.parentElement?.closest("math")
      || element.localName === "math")) { // in a formula only MathML, and MathML only in a formula
      element.remove();
      continue;
    }
    for (const { name, value } of [...element.attributes]) {
      const kept = attributes.has(name)
        && (name !== "href" || (element.localName === "a" && /^(https?:|mailto:)/i.test(value)))
        && (name !== "style" || (["div", "th", "td"].includes(element.localName) && COPY_STYLE.test(value)));
      if (!kept) element.removeAttribute(name);
    }
    if (element.localName === "a") { // a link opens beside the class, which goes on in this tab
      element.setAttribute("target", "_blank");
      element.setAttribute("rel", "noopener noreferrer");
    }
  }
  return template.content;
}

function panelIn(parentElement) {
  let panel = parentElement.querySelector(":scope > div.lab-teacher-screen");
  if (!panel) {
    panel = document.createElement("div");
    panel.className = "lab-teacher-screen";
    parentElement.appendChild(panel);
  }
  document.body.classList.add("lab-opening"); // the page below is hidden while the panel shows the teacher's
  return panel;
}

function screenName(drawing) {
  const section = drawing.query.section && drawing.query.section[0];
  return drawing.page.replaceAll("_", " ") + (section ? ` · ${section}` : "");
}

function showCopy(parentElement, drawing, allowed) {
  // The teacher's whole page: the copy (kept while it reads the same) and the teacher's figures in its places.
  const panel = panelIn(parentElement);
  if (panel.labCopy !== drawing.copy) {
    const note = document.createElement("p");
    note.className = "lab-follow";
    panel.replaceChildren(note, copyOf(drawing.copy, allowed));
    panel.labCopy = drawing.copy;
  }
  const parts = drawing.layout.split("|")[0];
  if (panel.labParts !== parts) { // another page or section: its top in view (a sentence changed: left as read)
    panel.labParts = parts;
    panel.scrollIntoView({ block: "start" });
  }
  panel.querySelector(":scope > p.lab-follow").textContent = `The teacher's screen: ${screenName(drawing)}.`;
  for (const place of panel.querySelectorAll("div[data-chart]")) {
    const spec = drawing.charts[place.dataset.chart];
    if (spec && window.__attentionLabPlotInto) window.__attentionLabPlotInto(place, JSON.stringify(spec));
    else place.replaceChildren();
  }
}

function showPanel(parentElement, drawing) {
  // The teacher's figures, at once, while this page's own run opens the teacher's page.
  const panel = panelIn(parentElement);
  panel.replaceChildren();
  panel.labCopy = panel.labParts = null;
  const note = document.createElement("p");
  note.className = "lab-follow";
  note.textContent = `The teacher's screen (${drawing.page.replaceAll("_", " ")}): this page opens it in a moment.`;
  panel.appendChild(note);
  if (!window.__attentionLabPlotInto) return;
  for (const spec of Object.values(drawing.charts)) {
    const place = document.createElement("div");
    panel.appendChild(place);
    window.__attentionLabPlotInto(place, JSON.stringify(spec));
  }
}

function settingsText(settings) {
  if (!settings.length) return "The teacher's settings: the page's defaults.";
  return "The teacher's settings: " + settings.map(([key, value]) => `${key} = ${value}`).join(" · ");
}

export default function ({ data, parentElement, setTriggerValue }) {
  const shared = (window.__attentionLabClass = window.__attentionLabClass || { figures: new Map(), version: 0 });
  if (data.version >= shared.version) {
    shared.figures.clear(); // this run drew the teacher's view itself
    shared.version = data.version;
  }
  shared.figureFor = (name) => (data.following ? shared.figures.get(name) : undefined);
  hideControls(data.controls, data.following);

  let line = parentElement.querySelector(":scope > p.lab-follow");
  if (!line) {
    line = document.createElement("p");
    line.className = "lab-follow";
    parentElement.appendChild(line);
  }
  line.textContent = data.following ? settingsText(data.settings) : "";
  line.hidden = !data.following;
  const panel = parentElement.querySelector(":scope > div.lab-teacher-screen");
  if (panel) panel.remove(); // this run drew the page itself
  document.body.classList.remove("lab-opening");

  const url = new URL(data.url, serverBase());
  // The first request asks for the board's latest (after 0), not for what follows this run's number: a view
  // that reached the board while this run was drawing an older one (a run for another reason, while a page
  // change waited for its moment) is then seen at once. A drawing this run already shows changes nothing.
  let after = 0;
  let layout = data.layout;
  // Each run calls this function again (with or without the last call's cleanup): only the latest call's
  // loop and timers may act. An older one's wake would rerun the page with the controls' values from before
  // the latest run opened the teacher's view, and so undo it.
  shared.calls = (shared.calls || 0) + 1;
  const call = shared.calls;
  if (shared.abort) shared.abort.abort(); // the older call's waiting request ends: one connection a page
  const aborter = (shared.abort = new AbortController());
  let stopped = false;
  const current = () => !stopped && call === shared.calls;
  let opening = null; // the one pending start of this page's run for another page (the latest view's)
  shared.opening = false; // whether the latest call waits to start such a run (read by the browser tests)
  let missingSince = null;
  const woken = new Set();
  const wake = (reason) => {
    if (!current() || woken.has(reason)) return;
    woken.add(reason);
    setTriggerValue("sync", reason);
  };
  const notice = (text) => {
    line.hidden = false;
    line.textContent = text;
  };

  const apply = (drawing) => {
    const copy = parentElement.querySelector(":scope > div.lab-teacher-screen");
    if (copy) copy.remove(); // this page holds the teacher's page again
    document.body.classList.remove("lab-opening");
    for (const [name, spec] of Object.entries(drawing.charts)) {
      const text = JSON.stringify(spec);
      shared.figures.set(name, text);
      if (window.__attentionLabShow) window.__attentionLabShow(name, text);
    }
    shown(drawing);
  };

  const shown = (drawing) => {
    // The strip shows the teacher's settings and the address bar holds the teacher's page and URL state.
    shared.version = drawing.version;
    line.textContent = settingsText(drawing.settings);
    const query = new URLSearchParams();
    for (const [key, values] of Object.entries(drawing.query)) for (const value of values) query.append(key, value);
    query.set("room", data.code);
    const path = new URL(drawing.page === "home" ? "." : drawing.page, serverBase()).pathname;
    history.replaceState(history.state, "", `${path}?${query}`);
  };

  const handle = ({ status, drawing }) => {
    if (!current()) return;
    if (!readable(drawing, data.figureRules)) return notice("The teacher's latest view could not be read: this page keeps the last one.");
    if (status && !sameStatus(status, data.status)) return wake(`status:${JSON.stringify(status)}`);
    if (!data.following) return;
    if (drawing.version <= data.version) {
      if (drawing.version === data.version && layout === null) layout = drawing.layout;
      return;
    }
    if (data.followPresent && drawing.present !== data.present) return wake(`view:${drawing.version}`);
    // A layout is "<the page's parts>|<what it wrote besides its charts>" (ui/rooms/drawing.py).
    const [parts, text] = drawing.layout.split("|");
    const [ownParts, ownText] = (layout || "|").split("|");
    if (parts === ownParts && text === ownText) return apply(drawing); // this page, its figures in place
    if (drawing.whole === true && typeof drawing.copy === "string") {
      if (opening !== null) { // an earlier view's run is no longer needed: this one is shown without it
        clearTimeout(opening);
        opening = null;
        shared.opening = false;
      }
      showCopy(parentElement, drawing, data.allowed); // the teacher's page in place of this one: no run
      return shown(drawing);
    }
    if (parts !== ownParts) {
      showPanel(parentElement, drawing);
      if (opening === null) { // one run for the latest view, at its moment (the run opens the room's latest)
        const [least, most] = OPEN_AFTER_MS;
        shared.opening = true;
        opening = setTimeout(() => {
          opening = null;
          if (current()) shared.opening = false;
          wake(`view:${drawing.version}`);
        }, least + Math.random() * (most - least));
      }
      return;
    }
    apply(drawing); // the same parts: the figures in place at once
    if (text !== ownText) wake(`text:${drawing.version}`); // and the page runs again for its sentences
  };

  const watchVersion = (status, drawing) => {
    // A view the board has no drawing of yet (its teacher's drawing did not come): after a while, run.
    const behind = data.following && status && status.kind === "view" && status.version > Math.max(data.version,
      readable(drawing, data.figureRules) ? drawing.version : 0);
    if (!behind) missingSince = null;
    else if (missingSince === null) missingSince = Date.now();
    else if (Date.now() - missingSince > NO_DRAWING_WAIT_MS) wake(`behind:${status.version}`);
  };

  (async () => {
    while (current()) {
      let response, body;
      try {
        url.search = `?after=${after}&mode=${data.mode}`;
        response = await fetch(url, { cache: "no-store", credentials: "same-origin", signal: aborter.signal });
        if (!current()) return;
        if (response.status === 204) continue;
        if (response.status !== 200) { // 429: the server's cap on waiting requests; asked again when it says
          const later = Number(response.headers.get("Retry-After"));
          await sleep(response.status === 429 && later > 0 ? Math.min(later, 60) * 1000 : RETRY_MS);
          continue;
        }
        const text = await response.text();
        if (!current()) return;
        const sequence = Number(response.headers.get("X-Class-Sequence"));
        if (!(sequence > after) || text.length > MAX_CHARS) {
          await sleep(RETRY_MS);
          continue;
        }
        after = sequence;
        body = JSON.parse(text);
      } catch (error) {
        if (current()) notice("The class's view could not be fetched: this page keeps the last one and tries again.");
        await sleep(RETRY_MS);
        continue;
      }
      if (body && typeof body === "object") {
        try {
          handle(body);
        } catch (error) { // a drawing this page cannot show: the last view stays, and the wait goes on
          notice("The teacher's latest view could not be shown: this page keeps the last one.");
        }
        watchVersion(body.status, body.drawing);
        if (missingSince !== null) setTimeout(() => watchVersion(body.status, body.drawing), NO_DRAWING_WAIT_MS + 50);
      }
    }
  })();

  return () => {
    stopped = true;
    if (opening !== null) clearTimeout(opening);
    if (call === shared.calls) shared.opening = false;
    if (shared.abort === aborter) aborter.abort();
    document.body.classList.remove("lab-opening");
  };
}
