// Why a form field is private, or "" when it is not: the rules of
// domain/private_fields.py, given as __PRIVATE_FIELD_RULES__. One definition,
// used by the page reader (masking, page checks) and by TypeText (which refuses them).
(el) => {
  const { rules, paymentForm } = __PRIVATE_FIELD_RULES__;
  const name = el.getAttribute("name") || el.id || "";
  const autocomplete = (el.getAttribute("autocomplete") || "").toLowerCase();
  const form = el.form || el.closest("form");
  const named = (pattern) => pattern !== "" && new RegExp(pattern, "i").test(name);
  const inPaymentForm = () => !!form && !!form.querySelector(paymentForm);
  let label = null;  // read only when a rule asks for it
  const labelText = () => {
    if (label === null) {
      const labels = el.labels ? Array.from(el.labels).map((l) => l.textContent).join(" ") : "";
      label = [labels, el.getAttribute("aria-label"), el.getAttribute("placeholder")].join(" ");
    }
    return label;
  };
  const labelled = (pattern) => pattern !== "" && new RegExp(pattern, "i").test(labelText());
  for (const rule of rules) {
    if (rule.input_types.includes(el.type) || rule.autocomplete.includes(autocomplete) ||
        rule.autocomplete_prefixes.some((prefix) => autocomplete.startsWith(prefix)) ||
        named(rule.name_pattern) || (named(rule.name_pattern_in_payment_form) && inPaymentForm()) ||
        labelled(rule.label_pattern) ||
        (rule.attribute !== "" && el.hasAttribute(rule.attribute))) {
      return rule.reason;
    }
  }
  return "";
}
