// Runs inside one frame's document (frame.evaluate) for a page's picture
// (screenshots.py). Never returns a private field's value, and is never given
// a value the session entered: the runner matches the text it returns.
//
// op "scan": marks every private field (the rules of private_field.js; a
// password field; a one-time code's boxes) with data-nod-cover=<nonce>, and
// returns the document's shown text as segments, each with the boxes it is
// drawn in (viewport coordinates of this frame): every text node (open
// shadow roots too), the value and placeholder of every field that is not
// private, an image's alt text, what ::before and ::after show. From then on
// it watches the document: what changes, and whether it scrolled.
// op "mark": the segments named (by their index) get the mark too; returns
// their boxes.
// op "check": whether anything changed since the scan (Playwright's own
// overlay and hidden caret aside) and the text of every change, old and new;
// whether a mark was taken away; whether it scrolled. Then it scans again
// (the segments and private fields as they are now), stops watching and
// takes every mark away.
// "mark" and "check" answer {lost: true} in another document than the scan's
// (the frame navigated meanwhile). With `texts` false (the session entered
// nothing) only private fields are looked for.
(args) => {
  const privacyOf = __PRIVATE_FIELD__;
  const COVER = "data-nod-cover";
  const BOX_OF = "__CODE_BOX_ATTRIBUTE__";
  const KEY = "__nodPicture";
  const root = document.documentElement;
  if (!root) return null;
  // texts: false when the session entered nothing (private fields alone are covered).
  const { nonce, maxElements, maxText, texts } = args;
  const NOT_SHOWN = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META", "LINK"]);
  const NOT_FIELDS = new Set(["hidden", "checkbox", "radio", "file", "range", "color"]);
  const width = innerWidth, height = innerHeight;

  const boxesOf = (rects) => {
    const boxes = [];
    for (const r of rects) {
      if (r.width <= 0 || r.height <= 0) continue;
      if (r.right < 0 || r.bottom < 0 || r.left > width || r.top > height) continue;
      boxes.push([r.left, r.top, r.width, r.height]);
    }
    return boxes;
  };
  const elementBoxes = (el) => boxesOf([el.getBoundingClientRect()]);
  const textBoxes = (node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return boxesOf(range.getClientRects());
  };
  // What a ::before or ::after shows: its quoted strings and attr() values.
  const pseudoText = (el, which) => {
    const content = getComputedStyle(el, which).content;
    if (!content || content === "none" || content === "normal") return "";
    const parts = [];
    const token = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([^)\s]+)\s*\)/g;
    for (let m = token.exec(content); m; m = token.exec(content)) {
      if (m[3] !== undefined) parts.push(el.getAttribute(m[3]) || "");
      else parts.push((m[1] ?? m[2]).replace(/\\(.)/g, "$1"));
    }
    return parts.join("");
  };
  const isPrivate = (el) => el.type === "password" || el.hasAttribute(BOX_OF) || privacyOf(el) !== "";
  const fieldValue = (el) => {
    if (el.tagName === "SELECT") return Array.from(el.selectedOptions).map((o) => o.text).join(" ");
    return el.value || "";
  };

  // Every element and text node in document order, an open shadow root's
  // right after its host; bounded (a page past the bound is all covered).
  const scan = (mark) => {
    const segments = [], holders = [], covers = [], roots = [];
    let visited = 0, textLength = 0, complete = true;
    // boxes: made only for text that is kept.
    const add = (text, holder, boxes) => {
      if (!texts || !text || !text.trim()) return;
      if (textLength + text.length > maxText) { complete = false; return; }
      textLength += text.length;
      segments.push([text, boxes()]);
      holders.push(holder);
    };
    const walk = (start) => {
      const walker = document.createTreeWalker(start, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (++visited > maxElements) { complete = false; return; }
        if (node.nodeType === Node.TEXT_NODE) {
          const parent = node.parentElement;
          if (parent && NOT_SHOWN.has(parent.tagName.toUpperCase())) continue;
          // A shadow root's own text: its host holds it.
          add(node.data, [node, parent || (node.parentNode && node.parentNode.host)], () => textBoxes(node));
          continue;
        }
        const el = node;
        const tag = el.tagName.toUpperCase();
        if (NOT_SHOWN.has(tag)) continue;
        const field = (tag === "INPUT" && !NOT_FIELDS.has(el.type)) || tag === "TEXTAREA" || tag === "SELECT";
        if (field && isPrivate(el)) {
          if (mark) el.setAttribute(COVER, nonce);
          covers.push(...elementBoxes(el));
        } else if (field) {
          add(fieldValue(el), [el, el], () => elementBoxes(el));
          add(el.getAttribute("placeholder"), [el, el], () => elementBoxes(el));
        } else if (tag === "IMG") {
          add(el.getAttribute("alt"), [el, el], () => elementBoxes(el));
        }
        if (texts) {
          for (const which of ["::before", "::after"]) {
            add(pseudoText(el, which), [el, el], () => elementBoxes(el));
          }
        }
        if (el.shadowRoot) {
          roots.push(el.shadowRoot);
          walk(el.shadowRoot);
        }
      }
    };
    walk(root);
    return { segments, holders, covers, roots, complete };
  };

  const textOf = (node) => {
    if (!node) return "";
    if (node.nodeType === Node.TEXT_NODE) return node.data;
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return "";
    let text = node.textContent || "";
    if (node.querySelectorAll) {
      for (const f of node.querySelectorAll("input, textarea, select")) {
        if (!isPrivate(f)) text += "\n" + fieldValue(f);
      }
    }
    if (node.tagName === "INPUT" || node.tagName === "TEXTAREA" || node.tagName === "SELECT") {
      if (!isPrivate(node)) text += "\n" + fieldValue(node);
    }
    return text;
  };

  // Playwright's own work on the page while it takes the picture: its
  // overlay (x-pw-*), the caret it hides on each field (caret-color).
  const playwrights = (n) => n.nodeType === Node.ELEMENT_NODE &&
    (n.tagName.toUpperCase().startsWith("X-PW-") || (n.tagName === "STYLE" && n.textContent === "body {}"));
  const withoutCaret = (style) => (style || "").replace(/caret-color\s*:[^;]*;?/gi, "").trim();
  // What a change shows, before and after: a page that shows a value for a
  // moment (between the scan and the picture) is caught here.
  const note = (state, records) => {
    const keep = (text) => {
      if (!texts || !text || !text.trim()) return;
      state.length += text.length;
      if (state.length <= maxText) state.changes.push(text);
    };
    for (const r of records) {
      if (r.type === "attributes" && r.attributeName === COVER) {
        // Only this runner writes a mark, and never over its own: a write
        // over it is the page taking it away.
        if (r.oldValue === nonce) state.tampered = true;
        continue;
      }
      if (r.type === "attributes" && r.attributeName === "style" &&
          withoutCaret(r.oldValue) === withoutCaret(r.target.getAttribute("style"))) continue;
      if (r.type === "childList" && [...r.addedNodes, ...r.removedNodes].every(playwrights)) continue;
      state.mutated = true;
      if (state.length > maxText) continue;  // too much changed: the picture is not kept
      if (r.type === "attributes") keep(r.oldValue), keep(r.target.getAttribute(r.attributeName));
      if (r.type === "characterData") keep(r.oldValue), keep(r.target.data);
      for (const n of r.addedNodes || []) keep(textOf(n));
      for (const n of r.removedNodes || []) keep(textOf(n));
    }
  };

  if (args.op === "scan") {
    const prior = window[KEY];
    if (prior && prior.stop) prior.stop();
    const found = scan(true);
    const state = {
      nonce, holders: found.holders, changes: [], length: 0, mutated: false, tampered: false, scrolled: false,
    };
    const observer = new MutationObserver((records) => note(state, records));
    const options = { subtree: true, childList: true, characterData: true, characterDataOldValue: true,
      attributes: true, attributeOldValue: true };
    observer.observe(root, options);
    for (const shadow of found.roots) observer.observe(shadow, options);
    const scrolled = () => { state.scrolled = true; };
    addEventListener("scroll", scrolled, { capture: true, passive: true });
    state.stop = () => {
      note(state, observer.takeRecords());
      observer.disconnect();
      removeEventListener("scroll", scrolled, { capture: true });
    };
    Object.defineProperty(window, KEY, { value: state, configurable: true, enumerable: false });
    return { segments: found.segments, covers: found.covers, complete: found.complete, width, height };
  }

  const state = window[KEY];
  // Another document since the scan (the frame navigated): the picture may show it.
  if (!state || state.nonce !== nonce) return { lost: true };

  if (args.op === "mark") {
    const boxes = [];
    for (const index of args.indexes) {
      const holder = state.holders[index];
      if (!holder) continue;
      const [node, el] = holder;
      if (el && el.getAttribute(COVER) !== nonce) el.setAttribute(COVER, nonce);
      boxes.push(...(node.nodeType === Node.TEXT_NODE ? textBoxes(node) : elementBoxes(node)));
    }
    return { boxes };
  }

  // op "check"
  state.stop();
  const again = scan(false);
  for (const scope of [document, ...again.roots]) {
    for (const el of scope.querySelectorAll(`[${COVER}]`)) el.removeAttribute(COVER);
  }
  delete window[KEY];
  return {
    segments: again.segments, covers: again.covers, complete: again.complete,
    changes: state.changes, changedTooMuch: state.length > maxText, mutated: state.mutated, tampered: state.tampered,
    scrolled: state.scrolled, width, height,
  };
}
