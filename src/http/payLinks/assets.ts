/**
 * The payment link page's script and stylesheet (docs/payment-links.md), served from /pay/assets/ and
 * listed with their SRI hashes in src/http/checkout/inventory.json, under the checkout's CSP (no inline
 * script or style; `form-action 'none'`: the script posts the form as JSON, then goes to checkout_url).
 */
export const PAYLINK_JS = `"use strict";
(function () {
  var form = document.getElementById("link-form");
  if (!form) return;
  var error = document.getElementById("link-error");
  var submit = document.getElementById("link-submit");
  var amount = document.getElementById("link-amount");
  var fieldIds = {
    method: "link-method-0", amount: "link-amount", "customer.name": "link-name",
    "customer.email": "link-email", "customer.document": "link-document"
  };
  function fail(message, field) {
    error.textContent = message;
    var input = field && document.getElementById(fieldIds[field]);
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
  }
  // "1.234,56", "1234,5" or "1234" reais → centavos; null when it is not an amount.
  function centavos(text) {
    var t = (text || "").replace(/\\s|R\\$/g, "");
    if (!/^\\d{1,3}(\\.\\d{3})*(,\\d{1,2})?$|^\\d+(,\\d{1,2})?$/.test(t)) return null;
    var parts = t.replace(/\\./g, "").split(",");
    return Number(parts[0]) * 100 + (parts[1] ? Number((parts[1] + "0").slice(0, 2)) : 0);
  }
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    Object.keys(fieldIds).forEach(function (k) {
      var el = document.getElementById(fieldIds[k]);
      if (el) el.removeAttribute("aria-invalid");
    });
    var chosen = form.querySelector("input[data-method]:checked");
    if (!chosen) return fail("Escolha a forma de pagamento.", "method");
    var body = {
      method: chosen.getAttribute("data-method"),
      customer: {
        name: document.getElementById("link-name").value,
        email: document.getElementById("link-email").value,
        document: document.getElementById("link-document").value
      }
    };
    if (amount) {
      var cents = centavos(amount.value);
      if (cents === null || cents < 1) return fail("Informe o valor em reais, por exemplo 25,00.", "amount");
      body.amount = cents;
    }
    error.textContent = "";
    submit.disabled = true;
    submit.textContent = "Criando o pagamento…";
    fetch(form.getAttribute("data-visit-url"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      cache: "no-store"
    })
      .then(function (r) {
        return r.json().then(function (b) {
          return { ok: r.ok, status: r.status, retry: r.headers.get("retry-after"), body: b };
        });
      })
      .then(function (res) {
        if (res.ok && res.body.checkout_url) { window.location.assign(res.body.checkout_url); return; }
        var first = res.body && res.body.errors && res.body.errors[0];
        submit.disabled = false;
        submit.textContent = "Tentar de novo";
        var busy = res.status === 429
          ? "Muitos pagamentos neste link agora. Tente de novo em " + (res.retry || "alguns") + " segundos."
          : null;
        var message = busy || (first ? "Confira o campo: " + first.message : (res.body && res.body.message));
        fail(message || "Não foi possível criar o pagamento.", first && first.field);
      })
      .catch(function () {
        submit.disabled = false;
        submit.textContent = "Tentar de novo";
        fail("Sem conexão. Tente de novo.");
      });
  });
})();
`

export const PAYLINK_CSS = `fieldset{border:0;padding:0;margin:0}
legend{font-weight:600;margin:10px 0 4px;padding:0}
.choice{display:flex;align-items:center;gap:10px;padding:10px;border:1px solid #8a93a6;border-radius:8px;
  margin-bottom:8px;font-weight:400}
.choice input{width:auto;margin:0}
.description{color:#5b6475}
`
