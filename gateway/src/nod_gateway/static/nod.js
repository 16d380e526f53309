// The live timeline: lines arrive over server-sent events. A step's line
// carries its step's number (data-step) and takes the place of the line
// shown for that step, so a step appears once and changes in place; any
// other line is appended. The "what nod needs from you" panel is replaced
// only when it shows something new, so a form being filled in is never
// wiped. Every frame carries its event's number; the browser's EventSource
// resends the last one when it reconnects, and the server resumes after
// it: no line is missed or shown twice.
// A step's page picture that isn't there (none was kept: it failed, or the
// task's pictures reached their limit) says so instead of a broken image.
document.addEventListener("error", function (event) {
  var image = event.target;
  if (!image || !image.classList || !image.classList.contains("line-page")) return;
  var said = document.createElement("span");
  said.textContent = image.dataset.missing || "";
  image.replaceWith(said);
}, true);

(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.EventSource || live.dataset.ended === "yes") return;
  var timeline = document.getElementById("timeline");
  var now = document.getElementById("now");
  var last = Number(live.dataset.after || "0");
  var source = null;

  function showLine(event) {
    var number = Number(event.lastEventId);
    if (number <= last) return;
    last = number;
    var holder = document.createElement("ol");
    holder.innerHTML = event.data;
    var fresh = holder.firstElementChild;
    if (!fresh) return;
    var step = fresh.dataset.step;
    var shown = step ? timeline.querySelector('li[data-step="' + step + '"]') : null;
    if (!shown) {
      timeline.appendChild(fresh);
      return;
    }
    // Details the person opened stay open as the step moves on.
    var opened = shown.querySelector("details.line-more[open]");
    var folded = fresh.querySelector("details.line-more");
    if (opened && folded) folded.open = true;
    shown.replaceWith(fresh);
  }

  function showPanel(event) {
    var number = Number(event.lastEventId);
    if (number > last) last = number;
    var holder = document.createElement("div");
    holder.innerHTML = event.data;
    var fresh = holder.firstElementChild;
    var shown = now.firstElementChild;
    if (!fresh || (shown && shown.dataset.key === fresh.dataset.key)) return;
    now.replaceChildren(fresh);
    if (window.htmx) window.htmx.process(fresh);
  }

  function connect() {
    source = new EventSource(live.dataset.events + "?after=" + last);
    source.onopen = function () {
      live.textContent = ""; // a problem shown before is over
    };
    source.addEventListener("line", showLine);
    source.addEventListener("panel", showPanel);
    source.addEventListener("end", function () {
      source.close();
      live.dataset.ended = "yes";
    });
    source.addEventListener("problem", function (event) {
      live.textContent = event.data;
    });
    source.onerror = function () {
      // An answer that wasn't a stream (a restart, a 503): open a new one
      // from the last line shown. A dropped stream reconnects by itself.
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
    };
  }

  connect();
})();
