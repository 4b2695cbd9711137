import { ELO_RANGES } from "../../domain/card.ts"
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

  // The hosted card form (docs/checkout.md "Hosted card form"): brand and Luhn as the buyer types, then
  // the card goes to the gateway in a POST body (never a URL) and the page shows the outcome.
  var form = document.getElementById("card-form");
  if (!form) return;
  var elo = ${JSON.stringify(ELO_RANGES)};
  function digits(s) { return (s || "").replace(/[\\s-]/g, ""); }
  function brandOf(pan) {
    if (!/^\\d+$/.test(pan)) return null;
    if (pan.length >= 6) {
      var bin = Number(pan.slice(0, 6));
      for (var i = 0; i < elo.length; i++) if (bin >= elo[i][0] && bin <= elo[i][1]) return "Elo";
    }
    if (pan.charAt(0) === "4") return "Visa";
    var p2 = Number(pan.slice(0, 2)), p4 = Number(pan.slice(0, 4));
    if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return "Mastercard";
    return null;
  }
  function luhn(pan) {
    var sum = 0;
    for (var i = 0; i < pan.length; i++) {
      var d = pan.charCodeAt(pan.length - 1 - i) - 48;
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return pan.length >= 13 && sum % 10 === 0;
  }
  // The buyer's plan, when the charge lets them choose: the total and the button follow the choice.
  var plan = document.getElementById("cc-installments");
  if (plan) plan.addEventListener("change", function () {
    var total = plan.options[plan.selectedIndex].getAttribute("data-total");
    document.getElementById("cc-total").textContent = total;
    document.getElementById("cc-pay-total").textContent = total;
  });
  var number = document.getElementById("cc-number");
  var brand = document.getElementById("cc-brand");
  var error = document.getElementById("cc-error");
  var submit = document.getElementById("cc-submit");
  number.addEventListener("input", function () {
    var b = brandOf(digits(number.value));
    brand.textContent = b ? "(" + b + ")" : "";
  });
  var fieldIds = {
    holder_name: "cc-holder", number: "cc-number", exp_month: "cc-month", exp_year: "cc-year", cvv: "cc-cvv",
    installments: "cc-installments"
  };
  function fail(message, field) {
    error.textContent = message;
    var input = field && document.getElementById(fieldIds[field]);
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
  }
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    Object.keys(fieldIds).forEach(function (k) {
      var input = document.getElementById(fieldIds[k]);
      if (input) input.removeAttribute("aria-invalid");
    });
    var pan = digits(number.value);
    if (!document.getElementById("cc-holder").value.trim())
      return fail("Informe o nome impresso no cartão.", "holder_name");
    if (!/^\\d{13,19}$/.test(pan) || !luhn(pan)) return fail("Confira o número do cartão.", "number");
    if (!brandOf(pan)) return fail("Aceitamos Visa, Mastercard ou Elo.", "number");
    var body = {
      holder_name: document.getElementById("cc-holder").value,
      number: pan,
      exp_month: document.getElementById("cc-month").value,
      exp_year: document.getElementById("cc-year").value,
      cvv: document.getElementById("cc-cvv").value
    };
    if (plan) body.installments = Number(plan.value);
    error.textContent = "";
    submit.disabled = true;
    submit.textContent = "Processando…";
    fetch(form.getAttribute("data-pay-url"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      cache: "no-store"
    })
      .then(function (r) { return r.json().then(function (b) { return { ok: r.ok, body: b }; }); })
      .then(function (res) {
        if (res.ok) {
          var reason = document.getElementById("reason");
          if (reason) reason.textContent = res.body.reason || "";
          // The amount heading follows the plan the buyer chose (its total from the installment table).
          var heading = root.querySelector(".amount");
          if (plan && heading) heading.textContent = document.getElementById("cc-total").textContent;
          show(res.body.status);
          return;
        }
        var first = res.body && res.body.errors && res.body.errors[0];
        submit.disabled = false;
        submit.textContent = "Tentar de novo";
        var message = first ? "Confira o campo: " + first.message : (res.body && res.body.message);
        fail(message || "Não foi possível pagar.", first && first.field);
      })
      .catch(function () {
        submit.disabled = false;
        submit.textContent = "Tentar de novo";
        fail("Sem conexão. Tente de novo.");
      });
  });
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
label{display:block;font-weight:600;margin:10px 0 4px}
input,select{width:100%;padding:10px;border:1px solid #8a93a6;border-radius:8px;font-size:1rem;background:#fff;
  color:inherit}
input[aria-invalid=true],select[aria-invalid=true]{border-color:#a11}
.row{display:flex;gap:8px;align-items:flex-end}
#cc-total-line{margin-top:8px}
.row>div{flex:1;min-width:0}
.error{color:#a11;font-weight:600;min-height:1em}
button:disabled{background:#5b6475}
[hidden]{display:none!important}
`
