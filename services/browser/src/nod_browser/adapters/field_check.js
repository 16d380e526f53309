// Whether a field may take a private value now: the rules of
// domain/field_rules.py, given as __FIELD_RULES__. What kind of private
// field an element looks like is private_field.js's answer, asked with
// one kind's rules at a time.
//
// Three uses, on [want, inner]:
// - inner null, on a field's elements (a code over boxes: its first box, or
//   every box): the kind rules for the value field `want`, then the
//   visibility rules: {rule: "" or the rule broken, x, y, destination}; x,
//   y: the field's centre in this frame's viewport, destination: the
//   origin its form sends to.
// - want null: only that destination (of a submit button, say).
// - inner [[x, y], ...], on an <iframe> holding such fields at those points:
//   the visibility rules for the frame itself, hit-tested at each point:
//   [{rule, x, y}, ...], the points in this frame's viewport.
(elements, [want, inner]) => {
  const R = __FIELD_RULES__;
  const V = R.visibility;
  const kind = R.kinds[want];
  const privateKindOf = (RULES) => __PRIVATE_FIELD__;
  const looks = {};
  for (const [reason, rules] of Object.entries(R.privateRules)) {
    looks[reason] = privateKindOf({ rules, paymentForm: R.paymentForm });
  }
  const destinationOf = __DESTINATION__;
  const matches = (pattern, text) => pattern !== "" && new RegExp(pattern, "i").test(text);
  const textOf = (ids, el) => (ids || "").split(/\s+/).filter(Boolean)
    .map((id) => el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : null)
    .filter(Boolean);
  const labelsOf = (el) => [...(el.labels || []), ...textOf(el.getAttribute("aria-labelledby"), el)];
  // What a person reads as the field's label.
  const shownLabel = (el) => [
    ...labelsOf(el).map((l) => l.textContent),
    el.getAttribute("aria-label"), el.getAttribute("placeholder"), el.getAttribute("title"),
  ].filter(Boolean).join(" ");

  const kindRule = (el) => {
    const tag = el.tagName.toLowerCase();
    if (!kind.tags.includes(tag)) return R.rules.wrongKind;
    if (tag === "input" && !kind.input_types.includes(el.type)) return R.rules.wrongKind;
    if (kind.not_like.some((k) => looks[k] && looks[k](el) !== "")) return R.rules.wrongKind;
    const label = shownLabel(el);
    const autocomplete = el.getAttribute("autocomplete") || "";
    const naming = [el.getAttribute("name"), el.id, autocomplete, label].join(" ");
    const decided = kind.looks_like.length || kind.named || kind.input_modes.length || kind.any_select;
    const isKind = !decided ||
      kind.looks_like.some((k) => looks[k] && looks[k](el) !== "") ||
      matches(kind.named, naming) ||
      kind.input_modes.includes((el.getAttribute("inputmode") || "").toLowerCase()) ||
      (kind.any_select && tag === "select");
    if (!isKind) return R.rules.wrongKind;
    if (matches(kind.labelled_otherwise, label + " " + autocomplete) && !matches(kind.own_words, label)) {
      return R.rules.labelledOtherwise;
    }
    if (el.disabled || el.readOnly || el.getAttribute("aria-disabled") === "true") {
      return R.rules.disabled;
    }
    return "";
  };

  // The flat tree's parent: across a shadow root to its host.
  const parentOf = (node) => node.parentElement || (node.getRootNode().host || null);
  const opacityOf = (el) => {
    let opacity = 1;
    for (let node = el; node; node = parentOf(node)) opacity *= Number(getComputedStyle(node).opacity);
    return opacity;
  };
  const inViewport = (x, y) => x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
  // What a person could scroll to: the page's scrollable area, less the
  // axis the page does not let them scroll.
  const offPage = (x, y) => {
    const page = document.scrollingElement || document.documentElement;
    const hidden = (axis) => [document.documentElement, document.body].some((node) =>
      node && ["hidden", "clip"].includes(getComputedStyle(node)["overflow" + axis]));
    const docX = x + scrollX, docY = y + scrollY;
    const width = hidden("X") ? innerWidth : Math.max(page.scrollWidth, innerWidth);
    const height = hidden("Y") ? innerHeight : Math.max(page.scrollHeight, innerHeight);
    return docX < 0 || docY < 0 || docX >= width || docY >= height;
  };
  const centre = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  };
  // The rules every element a value is seen through must pass; `at` maps
  // the element to the point to hit-test (its centre, or a point inside a frame).
  const shownRule = (el, at, ownsHit) => {
    if (!el.isConnected) return [R.rules.gone];
    if (!el.checkVisibility()) return [R.rules.notShown];
    if (getComputedStyle(el).visibility !== "visible") return [R.rules.invisible];
    const box = el.getBoundingClientRect();
    // A frame too small to see shows nothing of what it holds.
    const seen = Math.min(box.width, box.height, innerWidth, innerHeight);
    if (seen < V.min_size_px) return [R.rules.zeroSize];
    let [x, y] = at(el);
    if (offPage(x, y)) return [R.rules.offScreen];
    if (!inViewport(x, y)) {
      el.scrollIntoView({ block: "center", inline: "center" });
      [x, y] = at(el);
      if (!inViewport(x, y)) return [R.rules.offScreen];
    }
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
    if (!hit || !ownsHit(hit)) return [R.rules.covered];
    return ["", x, y];
  };

  const list = Array.isArray(elements) ? elements : [elements];
  if (inner) {
    // The frame's content box starts past its border and padding, at its scale.
    const frame = list[0];
    return inner.map(([innerX, innerY]) => {
      const at = (el) => {
        const r = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        const scale = el.offsetWidth ? r.width / el.offsetWidth : 1;
        const left = el.clientLeft + parseFloat(style.paddingLeft);
        const top = el.clientTop + parseFloat(style.paddingTop);
        return [r.left + (left + innerX) * scale, r.top + (top + innerY) * scale];
      };
      const [rule, x, y] = shownRule(frame, at, (hit) => hit === frame);
      if (rule) return { rule };
      if (opacityOf(frame) < V.min_opacity) return { rule: R.rules.transparent };
      return { rule: "", x, y };
    });
  }
  if (list.length === 0) return { rule: R.rules.gone };
  if (!want) return { rule: "", destination: destinationOf(list[0]) };

  // A code over boxes: the whole group its first box heads.
  const fields = [];
  for (const el of list) {
    const group = el.getAttribute(R.codeBoxAttribute);
    const boxes = group && group === el.getAttribute("data-nod-ref")
      ? Array.from(el.getRootNode().querySelectorAll(`[${R.codeBoxAttribute}="${group}"]`)) : [el];
    for (const box of boxes) if (!fields.includes(box)) fields.push(box);
  }
  for (const el of fields) {
    const broken = kindRule(el);
    if (broken) return { rule: broken };
    if (!kind.visible) continue;
    const labels = labelsOf(el);
    const owns = (hit) => hit === el || el.contains(hit) ||
      labels.some((label) => label === hit || label.contains(hit));
    const [rule] = shownRule(el, centre, owns);
    if (rule) return { rule };
    const focusable = el.tabIndex >= 0 && !el.disabled;
    if (opacityOf(el) < V.min_opacity && !(kind.may_be_transparent && focusable)) {
      return { rule: R.rules.transparent };
    }
  }
  const [x, y] = centre(fields[0]);
  return { rule: "", x, y, destination: destinationOf(fields[0]) };
}
