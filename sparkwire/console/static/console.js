// sparkwire console: the little JavaScript the pages use. Everything works without it; it adds
// the live badge of active notices, copy buttons and filters that apply on change.
(function () {
  "use strict";

  function updateBadge(badge) {
    fetch(badge.dataset.badgeUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) {
        if (body && typeof body.active === "number") {
          badge.textContent = String(body.active);
          badge.classList.toggle("zero", body.active === 0);
          badge.dataset.loaded = "1";
        }
      })
      .catch(function () { /* the next poll tries again */ });
  }

  function copy(button) {
    var target = document.getElementById(button.dataset.copy);
    if (!target) { return; }
    var text = target.textContent;
    var done = function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy"; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { select(target); });
    } else {
      select(target);
      try { document.execCommand("copy"); done(); } catch (e) { /* selected: the user copies */ }
    }
  }

  function select(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var badge = document.getElementById("badge");
    if (badge) {
      updateBadge(badge);
      setInterval(function () { updateBadge(badge); }, 5000);
    }
    document.querySelectorAll("button.copy").forEach(function (button) {
      button.addEventListener("click", function () { copy(button); });
    });
    document.querySelectorAll(".autosubmit").forEach(function (input) {
      input.addEventListener("change", function () { input.form.submit(); });
    });
  });
})();
