// Runs inside one frame's document (frame.evaluate). Returns what a model
// may see of it: never the value of a private field. Refs are data-nod-ref
// attributes given in document order (the document's own counter, also for
// elements inside open shadow roots) and kept, so an unchanged document
// reads back with the same refs; page_reader.py names their frame.
// Strings come back `limits.slack` longer than shown: page_reader.py masks
// the values the runner entered, then clips them to `limits.clip`.
(limits) => {
  const privacyOf = __PRIVATE_FIELD__;
  const { cardKinds } = __PRIVATE_FIELD_RULES__;
  const root = document.documentElement;
  if (!root) return null;
  let next = Number(root.getAttribute("data-nod-next-ref") || "1");
  const refOf = (el) => {
    if (!el.hasAttribute("data-nod-ref")) el.setAttribute("data-nod-ref", "e" + next++);
    return el.getAttribute("data-nod-ref");
  };

  // Every element, in document order, with the elements of each open shadow
  // root right after its host; bounded, so a huge page still reads in time.
  const WANTED = "form, input, textarea, select, button, a[href], [role], h1, h2, h3, dialog, [aria-modal]";
  const elements = [];  // [element, inShadowRoot]
  const shadowRoots = [];
  let visited = 0;
  const walk = (start, inShadow) => {
    const walker = document.createTreeWalker(start, NodeFilter.SHOW_ELEMENT);
    for (let node = walker.nextNode(); node && visited < limits.maxElements; node = walker.nextNode()) {
      visited++;
      if (node.matches(WANTED)) elements.push([node, inShadow]);
      if (node.shadowRoot) {
        shadowRoots.push(node.shadowRoot);
        walk(node.shadowRoot, true);
      }
    }
  };
  walk(root, false);

  const visible = (el) => {
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && style.display !== "none" && el.getClientRects().length > 0;
  };
  const clip = (text, n) => (text || "").replace(/\s+/g, " ").trim().slice(0, n + limits.slack);
  const nameOf = (el) => el.getAttribute("name") || el.id || "";
  const autocomplete = (el) => (el.getAttribute("autocomplete") || "").toLowerCase();
  const aria = (el, name) => {
    const value = el.getAttribute("aria-" + name);
    return value === "true" || value === "false" || value === "mixed" ? value : "";
  };
  const byId = (el, id) => el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : document.getElementById(id);
  const labelOf = (el) => {
    const byFor = el.labels && el.labels.length ? Array.from(el.labels).map((l) => l.innerText).join(" ") : "";
    const labelledBy = (el.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean)
      .map((id) => byId(el, id)).filter(Boolean).map((n) => n.innerText).join(" ");
    return clip(byFor || labelledBy || el.getAttribute("aria-label") || el.title, limits.clip.label);
  };
  const formOf = (el) => el.form || el.closest("form");
  const formRef = (el) => formOf(el) ? refOf(formOf(el)) : "";
  const disabled = (el) => el.matches(":disabled") || el.getAttribute("aria-disabled") === "true";
  const invalid = (el) => {
    if (["true", "grammar", "spelling"].includes(el.getAttribute("aria-invalid"))) return true;
    // Only once the site or the person has touched it: a required field
    // left empty on a fresh page is not yet "marked invalid".
    if (el.validity && el.validity.customError) return true;
    try { return el.matches(":user-invalid"); } catch (error) { return false; }
  };

  // A one-time code split over single-character boxes in one container.
  const CODE_BOX_TYPES = new Set(["text", "tel", "number", "password", ""]);
  const isBox = (el) => el.tagName === "INPUT" && CODE_BOX_TYPES.has(el.getAttribute("type") || "") &&
    el.maxLength === 1;
  const containerOf = (el) => {
    // Boxes are often wrapped one each (a span per digit): the wrapper's parent holds them.
    const parent = el.parentElement || el.getRootNode();
    return parent.querySelectorAll && parent.querySelectorAll("input").length === 1 && parent.parentElement
      ? parent.parentElement : parent;
  };
  const boxGroups = new Map();  // container -> visible boxes
  for (const [el] of elements) {
    if (!isBox(el) || !visible(el)) continue;
    const container = containerOf(el);
    if (!boxGroups.has(container)) boxGroups.set(container, []);
    boxGroups.get(container).push(el);
  }
  const codeBoxesOf = new Map();  // first box -> all boxes
  const inBoxGroup = new Set();
  for (const boxes of boxGroups.values()) {
    if (boxes.length < 4 || boxes.length > 8) continue;
    codeBoxesOf.set(boxes[0], boxes);
    const first = refOf(boxes[0]);
    for (const box of boxes) {
      refOf(box);
      box.setAttribute("__CODE_BOX_ATTRIBUTE__", first);
      inBoxGroup.add(box);
    }
  }

  const optionsOf = (el, tag) => {
    let found = [];
    if (tag === "select") found = Array.from(el.options).map((o) => o.text);
    else {
      const listId = el.getAttribute("aria-controls") || el.getAttribute("aria-owns") || "";
      const list = listId ? byId(el, listId.split(/\s+/)[0]) : null;
      if (list) found = Array.from(list.querySelectorAll("[role=option]")).map((o) => o.innerText);
    }
    return found.slice(0, limits.maxOptions).map((text) => clip(text, limits.clip.option));
  };

  const NOT_FIELDS = new Set(["hidden", "submit", "button", "image", "reset"]);
  const CONTROL_ROLES = {
    button: "button", link: "link", tab: "tab", menuitem: "menuitem", menuitemcheckbox: "menuitem",
    menuitemradio: "menuitem", checkbox: "checkbox", switch: "switch", option: "option", radio: "radio",
  };
  const fields = [], controls = [], forms = [], headings = [];
  let loginFormPresent = false, codeFormPresent = false, paymentFormPresent = false, signOutPresent = false;
  let firstField = null, dialogShown = false;
  const SIGN_OUT = /\b(sign|log)[\s-]?(out|off)\b|\blogout\b|\bsignout\b/i;
  for (const [el, inShadowRoot] of elements) {
    const tag = el.tagName.toLowerCase();
    const role = (el.getAttribute("role") || "").toLowerCase();
    if (tag === "form") {
      // From the attributes: a form's .action and .method are clobbered by
      // fields named "action" or "method" (a bank's form has one).
      let action = "";
      try { action = new URL(el.getAttribute("action") || "", document.baseURI).href; } catch (error) { action = ""; }
      const method = (el.getAttribute("method") || "get").toLowerCase() === "post" ? "post" : "get";
      forms.push({ ref: refOf(el), name: nameOf(el), action, method });
      continue;
    }
    const isHeading = /^h[1-3]$/.test(tag) || role === "heading";
    const isDialog = role === "dialog" || role === "alertdialog" || tag === "dialog" ||
      el.getAttribute("aria-modal") === "true";
    const isNativeField = (tag === "input" && !NOT_FIELDS.has(el.type)) || tag === "textarea" || tag === "select";
    const isField = isNativeField || role === "combobox";
    const isNativeControl = tag === "button" || (tag === "input" && ["submit", "button", "image", "reset"].includes(el.type)) ||
      (tag === "a" && el.hasAttribute("href"));
    const isControl = !isField && (isNativeControl || role in CONTROL_ROLES);
    if (!isHeading && !isDialog && !isField && !isControl) continue;
    if (!visible(el)) continue;
    if (isHeading && headings.length < limits.maxHeadings) {
      const text = clip(el.innerText, limits.clip.heading);
      if (text) headings.push(text);
    }
    if (isDialog && el.getBoundingClientRect().width * el.getBoundingClientRect().height > 0) dialogShown = true;
    if (isField) {
      if (inBoxGroup.has(el) && !codeBoxesOf.has(el)) continue;  // read as part of the first box
      const reason = privacyOf(el);
      const boxes = codeBoxesOf.get(el);
      const kind = boxes ? "one_time_code" : (reason === "card" ? "" : reason);
      if (firstField === null) firstField = el;
      if (el.type === "password") loginFormPresent = true;
      if (tag === "input" && (kind === "one_time_code" || boxes)) codeFormPresent = true;
      if (tag === "input" && cardKinds.includes(reason)) paymentFormPresent = true;
      if (fields.length >= limits.maxFields) continue;
      const masked = reason !== "" || !!boxes;
      const checkable = el.type === "checkbox" || el.type === "radio";
      const raw = boxes ? boxes.map((b) => b.value).join("")
        : tag === "select" ? (el.selectedOptions[0] || {}).text || ""
        : checkable ? (el.checked ? "on" : "")
        : isNativeField ? el.value : (el.innerText || "");
      fields.push({
        ref: refOf(el), name: nameOf(el),
        type: boxes ? "code_boxes" : role === "combobox" ? "combobox" : tag === "input" ? el.type : tag,
        label: labelOf(el), placeholder: clip(el.getAttribute("placeholder"), limits.clip.placeholder),
        value: masked ? "" : clip(raw, limits.clip.value), masked, filled: !!raw,
        formRef: formRef(el), autocomplete: autocomplete(el), inShadowRoot, privateKind: kind,
        invalid: invalid(el), required: !!el.required || el.getAttribute("aria-required") === "true",
        checked: checkable ? !!el.checked : false, options: optionsOf(el, tag), boxes: boxes ? boxes.length : 0,
        disabled: disabled(el),
      });
    } else if (isControl) {
      const isLink = (tag === "a" && !role) || role === "link";
      const kind = isLink ? "link" : role in CONTROL_ROLES ? CONTROL_ROLES[role]
        : (el.type === "submit" || (tag === "button" && !el.getAttribute("type"))) ? "submit" : "button";
      const text = clip(el.innerText || el.value || el.getAttribute("aria-label") || el.title, limits.clip.control);
      if (SIGN_OUT.test(text) || SIGN_OUT.test(el.getAttribute("aria-label") || "")) signOutPresent = true;
      if (controls.length >= limits.maxControls) continue;
      controls.push({
        ref: refOf(el), kind, text, href: isLink ? (el.href || "") : "", formRef: formRef(el),
        inShadowRoot, disabled: disabled(el), pressed: aria(el, "pressed") || aria(el, "checked"),
        selected: aria(el, "selected"), expanded: aria(el, "expanded"),
      });
    }
  }
  root.setAttribute("data-nod-next-ref", String(next));

  // Something covers the content: a dialog shown, or a fixed or sticky
  // layer over a large part of the window or over the first field (a
  // cookie banner). Looked for where it would be seen: a few points.
  const coveringLayer = (x, y) => {
    const hit = document.elementFromPoint(x, y);
    for (let el = hit; el && el !== document.body && el !== root; el = el.parentElement) {
      const position = getComputedStyle(el).position;
      if (position === "fixed" || position === "sticky") return el;
    }
    return null;
  };
  const area = innerWidth * innerHeight;
  const large = (el) => { const r = el.getBoundingClientRect(); return r.width * r.height >= 0.2 * area; };
  let overlayPresent = dialogShown;
  if (!overlayPresent && area > 0) {
    for (const [fx, fy] of [[0.5, 0.5], [0.25, 0.3], [0.75, 0.3], [0.25, 0.8], [0.75, 0.8]]) {
      const layer = coveringLayer(fx * innerWidth, fy * innerHeight);
      if (layer && large(layer)) { overlayPresent = true; break; }
    }
  }
  if (!overlayPresent && firstField) {
    const r = firstField.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight) {
      const layer = coveringLayer(x, y);
      let outer = firstField;  // the page sees a shadow root's content as its host
      while (outer.getRootNode().host) outer = outer.getRootNode().host;
      overlayPresent = !!layer && !layer.contains(outer);
    }
  }

  const noticeSelector = '[role=alert], [role=status], [aria-live=assertive], [aria-live=polite], ' +
    '[class*="error" i], [class*="success" i], [class*="message" i], [class*="alert" i], [class*="notice" i], [class*="flash" i]';
  const notices = [], seen = new Set();
  for (const scope of [document, ...shadowRoots]) {
    for (const el of scope.querySelectorAll(noticeSelector)) {
      const text = clip(el.innerText, limits.clip.notice);
      if (!text || seen.has(text) || !visible(el) || notices.length >= limits.maxNotices) continue;
      seen.add(text);
      const cls = (el.className || "").toString().toLowerCase();
      const kind = el.getAttribute("role") === "alert" || /error|danger|invalid|fail/.test(cls) ? "error"
        : /success|ok|confirm/.test(cls) ? "success" : "info";
      notices.push({ kind, text });
    }
  }

  // innerText leaves out what open shadow roots show: their text follows.
  const shadowText = shadowRoots.map((r) => Array.from(r.children)
    .filter((el) => !["STYLE", "SCRIPT"].includes(el.tagName)).map((el) => el.innerText || "").join("\n"));
  // Blank space as a reader sees it: a run of it is one space, or one or two
  // line breaks. A page spreading a value out (one character per element,
  // each on a line of its own) so stays within the mask's reach.
  const tidy = (t) => t.replace(/[^\S\n]+/g, " ")
    .replace(/ ?\n\s*/g, (run) => (run.split("\n").length > 2 ? "\n\n" : "\n"));
  const text = tidy([document.body ? document.body.innerText || "" : "", ...shadowText].filter(Boolean).join("\n"));
  return {
    url: location.href, origin: location.origin, title: document.title || "",
    text: text.slice(0, limits.maxText + limits.slack), textTruncated: text.length > limits.maxText,
    forms, fields, controls, notices, headings,
    loginFormPresent, codeFormPresent, paymentFormPresent, signOutPresent, overlayPresent,
  };
}
