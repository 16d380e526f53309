// When nod waits for the person on a task page: the tab's title says so
// ("Needs you"), and, once the person allowed it, a browser notification
// says so when the page is in a background tab. Permission is asked on the
// person's first click on the page (browsers allow asking only then). The
// words are the page's own (the panel's label), never a private value.
(function () {
  "use strict";
  var now = document.getElementById("now");
  if (!now) return;
  var plainTitle = document.title;
  var waiting = false;

  function waitPanel() {
    return now.querySelector("section.wait");
  }

  function notify(panel) {
    if (!window.Notification || Notification.permission !== "granted") return;
    if (!document.hidden) return;
    var what = panel.getAttribute("aria-label") || "nod needs you";
    new Notification("nod needs you", { body: what, tag: location.pathname });
  }

  function look() {
    var panel = waitPanel();
    document.title = panel ? "Needs you · " + plainTitle : plainTitle;
    if (panel && !waiting) notify(panel);
    waiting = Boolean(panel);
  }

  document.addEventListener(
    "click",
    function () {
      if (window.Notification && Notification.permission === "default") {
        Notification.requestPermission();
      }
    },
    { once: true }
  );
  new MutationObserver(look).observe(now, { childList: true, subtree: true });
  waiting = Boolean(waitPanel()); // shown with the page: the title says so, no notification
  document.title = waiting ? "Needs you · " + plainTitle : plainTitle;
})();
