// The site's own script, on top of Furo's (tools/site.py): what the theme leaves to the mouse.
//
// 1. On a narrow screen Furo opens its two sidebars with <label>s of hidden checkboxes, which a
//    keyboard cannot reach. Each label gets a button around its icon: Tab reaches it, Enter or Space
//    opens the sidebar and moves into it, it says whether the sidebar is open, and Escape (or Tab out
//    of it) closes it and gives the focus back. site.css hides a closed sidebar, so its links take
//    no focus off screen.
// 2. A box that scrolls sideways (code, an output, a table, a diagram) is reachable from the
//    keyboard, so that its arrow keys scroll it, and named, for as long as it does scroll: checked
//    when the page is drawn, when its width changes and when a folded part opens.
// The words come from the page (templates/page.html puts them there, in the edition's language).
"use strict";

(() => {
  const labels = JSON.parse(document.getElementById("hm-labels")?.textContent || "{}");
  const focusable = "a[href], button, input:not([type=hidden]), select, textarea, [tabindex='0']";
  const shows = (e) => e.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });

  function sidebar(checkboxId, drawer, label) {
    const box = document.getElementById(checkboxId);
    if (!box || !drawer) return;
    drawer.id ||= `hm-${checkboxId.replace(/_/g, "")}`;
    const buttons = [];
    const shown = () => buttons.find((button) => button.offsetParent !== null);
    const say = () => buttons.forEach((b) => b.setAttribute("aria-expanded", String(box.checked)));
    const close = (giveBack) => {
      if (!box.checked) return;
      box.checked = false;
      say();
      if (giveBack) shown()?.focus();
    };
    for (const icon of document.querySelectorAll(`label[for="${checkboxId}"]:not(.overlay)`)) {
      const button = document.createElement("button"); // inside the label: a click on it is the button's
      Object.assign(button, { type: "button", className: "hm-sidebar-button" });
      button.setAttribute("aria-label", label);
      button.setAttribute("aria-controls", drawer.id);
      button.append(...icon.childNodes);
      button.querySelectorAll("svg").forEach((svg) => svg.setAttribute("aria-hidden", "true"));
      icon.append(button);
      buttons.push(button);
      button.addEventListener("click", () => {
        box.checked = !box.checked;
        say();
        if (box.checked) [...drawer.querySelectorAll(focusable)].find(shows)?.focus();
      });
    }
    box.addEventListener("change", say);
    drawer.addEventListener("keydown", (event) => event.key === "Escape" && close(true));
    drawer.addEventListener("focusout", (event) => {
      const next = event.relatedTarget;
      if (next && !drawer.contains(next) && !buttons.includes(next)) close(false);
    });
    say();
  }

  sidebar("__navigation", document.querySelector(".sidebar-drawer"), labels.navigation);
  sidebar("__toc", document.querySelector(".toc-drawer"), labels.contents);
  document.querySelectorAll(".furo-related-icon, .back-to-top svg").forEach((icon) => {
    icon.setAttribute("aria-hidden", "true");
  });

  function kind(box) {
    if (box.matches(".hm-diagram")) return "diagram";
    if (box.matches(".table-wrapper") || box.querySelector(":scope > table")) return "table";
    return box.closest(".cell_output") ? "output" : "code";
  }

  function scrolls(box) {
    const style = getComputedStyle(box);
    const sideways = /auto|scroll/.test(style.overflowX) && box.scrollWidth > box.clientWidth + 1;
    return sideways || (/auto|scroll/.test(style.overflowY) && box.scrollHeight > box.clientHeight + 1);
  }

  // Where a box may scroll: what Furo's, MyST-NB's, site.css's or an output's own style lets overflow.
  const candidates = "article pre, article .output, article .table-wrapper, article .hm-diagram, " +
    "article [style*='overflow'], .announcement pre";

  function markScrollingBoxes() {
    for (const box of document.querySelectorAll(candidates)) {
      const marked = box.hasAttribute("data-hm-scrolls");
      if (scrolls(box) && !marked) {
        box.setAttribute("data-hm-scrolls", "");
        box.tabIndex = 0;
        box.setAttribute("role", "group");
        box.setAttribute("aria-label", (labels.scrolls || {})[kind(box)] || "");
      } else if (marked && !scrolls(box)) {
        ["data-hm-scrolls", "tabindex", "role", "aria-label"].forEach((name) => box.removeAttribute(name));
      }
    }
  }

  markScrollingBoxes();
  let width = window.innerWidth;
  window.addEventListener("resize", () => {
    if (window.innerWidth === width) return;
    width = window.innerWidth;
    markScrollingBoxes();
  });
  document.addEventListener("toggle", markScrollingBoxes, true); // a folded cell opened
  document.fonts?.ready.then(markScrollingBoxes); // the Chinese font changes widths as it arrives
})();
