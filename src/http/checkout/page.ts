import type { CheckoutView } from "../../domain/checkout.ts"

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** A strict policy: no inline script or style, nothing framed, nothing from elsewhere. */
export const CHECKOUT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

const methodSection = (v: CheckoutView) => {
  if (v.pix) {
    return `<section class="card" id="pay">
  <h2>Pague com PIX</h2>
  <img class="qr" src="${escape(v.pix.qrPath)}" alt="QR Code PIX" width="280" height="280">
  <p class="muted">Ou copie o código PIX (copia e cola):</p>
  <p class="code" id="pix-code">${escape(v.pix.code)}</p>
  <button type="button" data-copy="pix-code">Copiar código PIX</button>
  <p class="muted">Pague até ${escape(v.pix.deadline)}.</p>
</section>`
  }
  if (v.billet) {
    return `<section class="card" id="pay">
  <h2>Pague com boleto</h2>
  <p class="muted">Linha digitável:</p>
  <p class="code" id="billet-line">${escape(v.billet.digitableLine)}</p>
  <button type="button" data-copy="billet-line">Copiar linha digitável</button>
  <p><a href="${escape(v.billet.pdfPath)}">Baixar o boleto (PDF)</a></p>
  <p class="muted">Vencimento: ${escape(v.billet.dueDate)}.</p>
</section>`
  }
  if (v.card) {
    return `<section class="card">
  <h2>Cartão de crédito</h2>
  <p>${escape(v.card.brand)} terminado em ${escape(v.card.last4)}, em ${v.card.installments}x.</p>
</section>`
  }
  return ""
}

/** The buyer's page in pt-BR; its script polls `statusPath` and switches state without a reload. */
export const checkoutPage = (v: CheckoutView, statusPath: string) => `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Pagamento — ${escape(v.merchantName)}</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">
</head>
<body>
<main id="checkout" data-state="${v.state}" data-status-url="${escape(statusPath)}">
<section class="card">
  <h1>${escape(v.merchantName)}</h1>
  <p class="amount">${escape(v.amount)}</p>
  <span class="status" id="status" role="status" aria-live="polite">…</span>
</section>
<section class="card" id="paid" hidden>
  <h2>Pagamento confirmado</h2>
  <p>Obrigado! ${escape(v.merchantName)} já recebeu a confirmação do seu pagamento.</p>
</section>
${methodSection(v)}
${
  v.products.length === 0
    ? ""
    : `<section class="card"><h2>Itens</h2><ul>${v.products
        .map((p) => `<li>${p.quantity} × ${escape(p.name)} — ${escape(p.total)}</li>`)
        .join("")}</ul></section>`
}
</main>
<script src="/checkout/assets/checkout.js"></script>
</body>
</html>`
