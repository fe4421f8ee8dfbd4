// What the app adds to Streamlit's own markup so that a keyboard and a screen reader reach everything
// (WCAG 2.2 AA; docs/accessibility.md lists each workaround and why). Run once a page load, and again as the
// page changes:
// - the sidebar's navigation: Streamlit puts its sections (a <div> holding a header and the links' <li>) straight
//   into a <ul>; the <ul> becomes a container without list semantics and each section a list named by its header;
// - a region that scrolls (a wide formula, a table, a wide row) and holds nothing a keyboard can reach gets a
//   place in the tab order and a name, so it can be scrolled with the arrow keys.
(function makeAccessible() {
  if (window.__attentionLabAccessible) return;
  // pending: a change of the page not looked at yet; fontsSeen: looked again once the fonts arrived
  const state = (window.__attentionLabAccessible = { pending: true, fontsSeen: false });

  const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]:not([tabindex='-1'])";

  function navigationLists(root) {
    for (const list of root.querySelectorAll("ul[data-testid=stSidebarNavItems]")) {
      if (![...list.children].some((child) => child.tagName !== "LI")) continue;
      list.setAttribute("role", "none");
      for (const section of list.children) {
        if (section.tagName === "LI") continue;
        section.setAttribute("role", "list");
        const header = section.querySelector(":scope > header");
        if (header) {
          header.setAttribute("role", "none");
          section.setAttribute("aria-label", header.textContent.replace(/expand_(more|less)/g, "").trim());
        }
      }
    }
  }

  function scrollsSideways(element) {
    const style = getComputedStyle(element);
    const sideways = /(auto|scroll)/.test(style.overflowX) && element.scrollWidth > element.clientWidth;
    const down = /(auto|scroll)/.test(style.overflowY) && element.scrollHeight > element.clientHeight;
    return sideways || down;
  }

  function scrollableRegions(root) {
    for (const element of root.querySelectorAll(".katex-display, pre, .lab-copy-table, .lab-teacher-screen .math.block")) {
      if (element.hasAttribute("tabindex") || !scrollsSideways(element) || element.querySelector(FOCUSABLE)) continue;
      element.setAttribute("tabindex", "0");
      element.setAttribute("role", "region");
      element.setAttribute("aria-label", element.classList.contains("katex-display") || element.classList.contains("math")
        ? "formula (scrolls sideways)" : "scrolling content");
    }
  }

  function fix() {
    navigationLists(document);
    scrollableRegions(document);
    state.pending = false;
  }
  const observer = new MutationObserver(() => {
    if (!state.pending) {
      state.pending = true;
      requestAnimationFrame(fix);
    }
  });
  observer.observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", () => requestAnimationFrame(fix));
  // A formula's width changes without a change of the page's elements when its fonts arrive: look again then,
  // and every second (a handful of elements are measured).
  if (document.fonts) document.fonts.ready.then(() => { fix(); state.fontsSeen = true; });
  else state.fontsSeen = true;
  setInterval(fix, 1000);
  fix();
})();
