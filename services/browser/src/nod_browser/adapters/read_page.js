// Runs inside the page (page.evaluate). Returns what a model may see of it:
// never the value of a private field. Refs are data-nod-ref attributes given
// in DOM order and kept, so an unchanged page reads back with the same refs.
// Strings come back `limits.slack` longer than shown: page_reader.py masks
// the values the runner entered, then clips them to `limits.clip`.
(limits) => {
  const privacyOf = __PRIVATE_FIELD__;
  const root = document.documentElement;
  let next = Number(root.getAttribute("data-nod-next-ref") || "1");
  const refOf = (el) => {
    if (!el.hasAttribute("data-nod-ref")) el.setAttribute("data-nod-ref", "e" + next++);
    return el.getAttribute("data-nod-ref");
  };
  const selector = "form, input, textarea, select, button, a[href], [role=button], [role=link]";
  const elements = Array.from(document.querySelectorAll(selector));
  elements.forEach(refOf);
  root.setAttribute("data-nod-next-ref", String(next));

  const visible = (el) => {
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && style.display !== "none" && el.getClientRects().length > 0;
  };
  const clip = (text, n) => (text || "").replace(/\s+/g, " ").trim().slice(0, n + limits.slack);
  const nameOf = (el) => el.getAttribute("name") || el.id || "";
  const autocomplete = (el) => (el.getAttribute("autocomplete") || "").toLowerCase();
  const isPrivate = (el) => privacyOf(el) !== "";
  const isCardField = (el) => privacyOf(el) === "card";
  const isCodeField = (el) => privacyOf(el) === "code";
  const labelOf = (el) => {
    const byFor = el.labels && el.labels.length ? Array.from(el.labels).map((l) => l.innerText).join(" ") : "";
    const labelledBy = (el.getAttribute("aria-labelledby") || "").split(/\s+/)
      .map((id) => document.getElementById(id)).filter(Boolean).map((n) => n.innerText).join(" ");
    return clip(byFor || labelledBy || el.getAttribute("aria-label") || el.title, limits.clip.label);
  };
  const formRef = (el) => (el.form || el.closest("form")) ? refOf(el.form || el.closest("form")) : "";

  const NOT_FIELDS = new Set(["hidden", "submit", "button", "image", "reset"]);
  const fields = [], controls = [], forms = [];
  for (const el of elements) {
    const tag = el.tagName.toLowerCase();
    if (tag === "form") {
      forms.push({ ref: refOf(el), name: nameOf(el), action: el.action || "", method: (el.method || "get").toLowerCase() });
      continue;
    }
    if (!visible(el)) continue;
    const isField = (tag === "input" && !NOT_FIELDS.has(el.type)) || tag === "textarea" || tag === "select";
    if (isField && fields.length < limits.maxFields) {
      const masked = isPrivate(el);
      const raw = tag === "select" ? (el.selectedOptions[0] || {}).text || ""
        : (el.type === "checkbox" || el.type === "radio") ? (el.checked ? "on" : "") : el.value;
      fields.push({
        ref: refOf(el), name: nameOf(el), type: tag === "input" ? el.type : tag, label: labelOf(el),
        placeholder: clip(el.placeholder, limits.clip.placeholder), value: masked ? "" : clip(raw, limits.clip.value), masked,
        filled: !!raw, formRef: formRef(el), autocomplete: autocomplete(el),
      });
    } else if (!isField && controls.length < limits.maxControls) {
      const isLink = tag === "a" || el.getAttribute("role") === "link";
      const kind = isLink ? "link" : (el.type === "submit" || (tag === "button" && !el.getAttribute("type")) ? "submit" : "button");
      controls.push({
        ref: refOf(el), kind, text: clip(el.innerText || el.value || el.getAttribute("aria-label") || el.title, limits.clip.control),
        href: isLink ? (el.href || "") : "", formRef: formRef(el),
      });
    }
  }

  const noticeSelector = '[role=alert], [role=status], [aria-live=assertive], [aria-live=polite], ' +
    '[class*="error" i], [class*="success" i], [class*="message" i], [class*="alert" i], [class*="notice" i], [class*="flash" i]';
  const notices = [], seen = new Set();
  for (const el of document.querySelectorAll(noticeSelector)) {
    const text = clip(el.innerText, limits.clip.notice);
    if (!text || seen.has(text) || !visible(el) || notices.length >= limits.maxNotices) continue;
    seen.add(text);
    const cls = (el.className || "").toString().toLowerCase();
    const kind = el.getAttribute("role") === "alert" || /error|danger|invalid|fail/.test(cls) ? "error"
      : /success|ok|confirm/.test(cls) ? "success" : "info";
    notices.push({ kind, text });
  }

  const shown = fields.length ? elements.filter((el) => visible(el)) : [];
  const text = document.body ? document.body.innerText || "" : "";
  return {
    url: location.href, title: document.title || "", text: text.slice(0, limits.maxText + limits.slack),
    textTruncated: text.length > limits.maxText, forms, fields, controls, notices,
    loginFormPresent: shown.some((el) => el.type === "password"),
    codeFormPresent: shown.some((el) => el.tagName === "INPUT" && isCodeField(el)),
    paymentFormPresent: shown.some((el) => el.tagName === "INPUT" && isCardField(el)),
  };
}
