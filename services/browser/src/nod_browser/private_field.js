// Why a form field is private, or "" when it is not. One definition, used by
// the page reader (masking, page checks) and by TypeText (which refuses them).
(el) => {
  const name = el.getAttribute("name") || el.id || "";
  const autocomplete = (el.getAttribute("autocomplete") || "").toLowerCase();
  const form = el.form || el.closest("form");
  const paymentForm = !!form &&
    !!form.querySelector('[autocomplete^="cc-"], [name*="card" i], [name*="cvc" i], [name*="cvv" i]');
  if (el.type === "password") return "password";
  if (autocomplete.startsWith("cc-") || /card|^cc|cc[-_]|cvc|cvv|csc/i.test(name) ||
      (/number/i.test(name) && paymentForm)) return "card";
  if (autocomplete === "one-time-code" || /otp|one.?time|totp|^code$/i.test(name)) return "code";
  if (el.hasAttribute("data-nod-private")) return "entered";
  if (/pass|secret|security.?code/i.test(name)) return "name";
  return "";
}
