import { STATE_LABELS } from "./labels.ts"

/**
 * The checkout page's script and stylesheet, served from /checkout/assets/ so that the page's
 * Content-Security-Policy can forbid every inline script and style.
 */
export const CHECKOUT_JS = `"use strict";
(function () {
  var root = document.getElementById("checkout");
  if (!root) return;
  var statusUrl = root.getAttribute("data-status-url");
  var labels = ${JSON.stringify(STATE_LABELS)};
  // Each notice names the states it belongs to (data-when); the server rendered the first state already.
  function show(state) {
    root.setAttribute("data-state", state);
    var label = document.getElementById("status");
    if (label) label.textContent = labels[state] || state;
    document.querySelectorAll("[data-when]").forEach(function (el) {
      el.hidden = el.getAttribute("data-when").split(" ").indexOf(state) < 0;
    });
  }
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy"));
      var text = source ? source.textContent || "" : "";
      var done = function () { button.textContent = "Copiado!"; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () {});
      } else {
        var range = document.createRange();
        range.selectNodeContents(source);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        try { document.execCommand("copy"); done(); } catch (e) {}
      }
    });
  });
  var final = { paid: true, expired: true, refused: true, failed: true, partially_refunded: true, refunded: true };
  function poll() {
    if (final[root.getAttribute("data-state")]) return;
    fetch(statusUrl, { headers: { accept: "application/json" }, cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) { if (body && body.status) show(body.status); })
      .catch(function () {})
      .then(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 2000);
})();
`

export const CHECKOUT_CSS = `*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d2330;
  line-height:1.45}
main{max-width:480px;margin:0 auto;padding:16px}
.card{background:#fff;border-radius:12px;padding:20px;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:16px;
  overflow-wrap:anywhere}
h1{font-size:1.1rem;margin:0 0 4px}
h2{font-size:1.05rem;margin:0 0 8px}
p{margin:0 0 8px}
.amount{font-size:2rem;font-weight:700;margin:8px 0;white-space:nowrap}
.money{white-space:nowrap}
.status{display:inline-block;padding:4px 10px;border-radius:999px;background:#eef1f6;font-size:.9rem}
[data-state=paid] .status{background:#dff5e3;color:#146c2e}
[data-state=partially_refunded] .status,[data-state=refunded] .status,[data-state=processing] .status{
  background:#fff4d6;color:#6b4a00}
[data-state=expired] .status,[data-state=refused] .status,[data-state=failed] .status,
[data-state=disputed] .status{background:#fde2e1;color:#a11}
.notice{border-left:4px solid #c9302c}
.qr{display:block;width:100%;max-width:280px;height:auto;margin:12px auto}
.code{font-family:ui-monospace,monospace;font-size:.8rem;word-break:break-all;
  background:#f4f5f7;padding:8px;border-radius:8px}
button{width:100%;padding:12px;border:0;border-radius:8px;background:#1b5fd6;color:#fff;font-size:1rem;margin-top:8px;
  cursor:pointer}
a{color:#1b5fd6}
ul{padding-left:18px;margin:0}
.sums{margin:8px 0 0}
.sums div{display:flex;justify-content:space-between;gap:12px;padding:6px 0;border-top:1px solid #eef1f6}
.sums dt{color:#5b6475}
.sums dd{margin:0;font-weight:600;white-space:nowrap}
.muted{color:#5b6475;font-size:.9rem}
[hidden]{display:none!important}
`
