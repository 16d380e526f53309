// The origin a click on this element, or a submission of its form, sends
// the form's fields to: the button's formaction, else its form's action,
// resolved against the document's base address. No form (a script's button),
// a form sent to a dialog or to javascript: stays with the document: its
// own origin. "null" for an address with no origin (data:, about:).
(el) => {
  const own = self.origin;
  const submits = (el.tagName === "BUTTON" && el.type === "submit") ||
    (el.tagName === "INPUT" && (el.type === "submit" || el.type === "image"));
  const form = el.form || el.closest("form");
  if (!form) return own;
  const method = ((submits && el.getAttribute("formmethod")) || form.getAttribute("method") || "");
  if (method.toLowerCase() === "dialog") return own;
  // getAttribute, not form.action: a field named "action" shadows that.
  const action = submits && el.hasAttribute("formaction")
    ? el.getAttribute("formaction") : form.getAttribute("action");
  if (!action || !action.trim()) return own;
  let url;
  try {
    url = new URL(action.trim(), el.ownerDocument.baseURI);
  } catch (error) {
    return "null";
  }
  return url.protocol === "javascript:" ? own : url.origin;
}
