// EurekaClaw UI: typeset the mathematics of statements and proofs with the vendored KaTeX
// (static/katex, no network). Only elements marked `.math` are typeset, so a dollar amount
// elsewhere on the page (the cost) is never read as a formula. A formula KaTeX cannot parse
// stays as its source text (throwOnError false), never disappears.
(function () {
  "use strict";
  const DELIMITERS = [
    { left: "$$", right: "$$", display: true },
    { left: "\\[", right: "\\]", display: true },
    { left: "\\(", right: "\\)", display: false },
    { left: "$", right: "$", display: false },
  ];

  function typeset(root) {
    if (!root || typeof window.renderMathInElement !== "function") return;
    const targets = root.classList && root.classList.contains("math") ? [root] : [];
    root.querySelectorAll(".math").forEach((el) => targets.push(el));
    for (const el of targets) {
      if (el.dataset.typeset === "yes") continue;
      if (el.classList.contains("proof-text")) readableRefs(el);
      try {
        window.renderMathInElement(el, { delimiters: DELIMITERS, throwOnError: false });
        el.dataset.typeset = "yes";
      } catch (e) {
        // the source text stays readable
      }
    }
  }

  // a proof written for the paper cites "Lemma~\ref{lem:L1}": on the page that is "Lemma L1"
  function readableRefs(el) {
    const text = el.textContent;
    const plain = text.replace(/~?\\(?:eq|c|C)?ref\{(?:lem:)?([^}]*)\}/g, " $1");
    if (plain !== text) el.textContent = plain;
  }

  window.eurekaMath = typeset;
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => typeset(document.body));
  } else {
    typeset(document.body);
  }
})();
