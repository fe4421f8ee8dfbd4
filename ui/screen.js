// The screen watcher (ui/screen.py): reports a compact window to the server, marks presentation mode on the page,
// keeps a phone's open section in view in its row of sections (its edges fade where more of it lies), and sets a
// phone's too-wide formulas smaller.

function showOpenSection(phone, tries = 300) {
  // A row of sections that scrolls (a phone, the ``phone`` media query): the open one in view, once the row has come
  // (it follows this one; the frames of about five seconds are tried). Elsewhere the row wraps: nothing to do.
  if (!window.matchMedia(phone).matches) return;
  const row = document.querySelector(SECTION_ROW);
  const open = row && row.querySelector('button[aria-checked=true]');
  if (!open) {
    if (tries > 0) requestAnimationFrame(() => showOpenSection(phone, tries - 1));
    return;
  }
  const box = row.getBoundingClientRect(), button = open.getBoundingClientRect();
  if (button.left < box.left || button.right > box.right) row.scrollLeft += button.left - box.left - 24;
}

const SECTION_ROW = '.st-key-section [data-testid=stButtonGroup] > div:has(> button)';

function markMore(row) {
  // A row of sections that scrolls says which way more of it lies (``data-more``: left, right or both; the
  // stylesheet fades that edge), again after each scroll.
  const update = () => {
    const left = row.scrollLeft > 1, right = row.scrollLeft + row.clientWidth < row.scrollWidth - 1;
    const more = left && right ? "both" : left ? "left" : right ? "right" : "";
    if ((row.dataset.more || "") !== more) row.dataset.more = more;
  };
  if (!row.__labMore) {
    row.__labMore = true;
    row.addEventListener("scroll", update, { passive: true });
  }
  update();
}

const FORMULA_FLOOR = 0.7; // a formula is set at least this share of its size; past that it scrolls in its box

function fitFormulas(phone) {
  // On a phone (the ``phone`` media query), a formula wider than its box is set smaller until it fits, down to
  // FORMULA_FLOOR of its size (KaTeX's 1.21 em); elsewhere each formula keeps its size (one set smaller on a phone
  // turned sideways gets its size back).
  const compact = window.matchMedia(phone).matches;
  for (const box of document.querySelectorAll("[data-testid=stMain] .katex-display")) {
    const formula = box.querySelector(":scope > .katex");
    if (!formula || (!compact && !formula.style.fontSize)) continue;
    formula.style.fontSize = "";
    // in steps of at least 5 %: not all of a formula's width shrinks with its font
    let share = 1;
    for (let step = 0; compact && step < 8 && share > FORMULA_FLOOR && box.scrollWidth > box.clientWidth; step++) {
      share = Math.max(FORMULA_FLOOR, share * Math.min(0.95, (0.98 * box.clientWidth) / box.scrollWidth));
      formula.style.fontSize = `${(1.21 * share).toFixed(3)}em`;
    }
  }
}

function watchFormulas(phone) {
  // Fit the formulas now and whenever the page's content or the window's width changes (once a frame at most).
  if (window.__labFormulas) return;
  let queued = false;
  const queue = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      fitFormulas(phone);
      document.querySelectorAll(SECTION_ROW).forEach(markMore);
    });
  };
  window.__labFormulas = new MutationObserver(queue);
  // new content, and content shown without new nodes (an expander opened)
  window.__labFormulas.observe(document.body, { childList: true, subtree: true, attributes: true,
                                                attributeFilter: ["open", "aria-expanded", "hidden"] });
  window.addEventListener("resize", queue);
  // a formula widens when its fonts arrive, after the nodes that hold it
  if (document.fonts) document.fonts.addEventListener("loadingdone", queue);
  queue();
}

export default function ({ data, setStateValue }) {
  const phone = `(max-width: ${data.phone}px)`;
  watchFormulas(phone);
  // Report whether the window is compact, only when the server's idea of it is wrong.
  // Presentation mode: the page's title, prose, captions and controls' labels grow (the figures' text grows on the
  // server: ui.charts.chart).
  document.body.classList.toggle("lab-presenting", Boolean(data.present));
  showOpenSection(phone);
  const query = window.matchMedia(`(max-width: ${data.below - 0.02}px)`);
  const report = () => {
    if (query.matches !== data.compact) setStateValue("compact", query.matches);
  };
  report();
  query.addEventListener("change", report);
  return () => query.removeEventListener("change", report);
}
