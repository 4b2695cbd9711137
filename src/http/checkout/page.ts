import type { CheckoutState, CheckoutView } from "../../domain/checkout.ts"
import { STATE_LABELS } from "./labels.ts"
import { SCRIPT_TAG, STYLE_TAG } from "./inventory.ts"

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** A section shown only in `states`; the page's script shows and hides it as the status changes. */
const when = (states: ReadonlyArray<CheckoutState>, current: CheckoutState) =>
  `data-when="${states.join(" ")}"${states.includes(current) ? "" : " hidden"}`

const todayLine = (amount: string | undefined) =>
  amount === undefined ? "" : `<p>Valor para pagamento hoje: <strong id="billet-today">${escape(amount)}</strong></p>`

/**
 * The plan: fixed by the merchant, a line; chosen by the buyer, a list of the offered plans with each
 * total from the installment table (docs/checkout.md "Hosted card form"). The script keeps the total and
 * the button's amount in step with the choice.
 */
const planField = (amount: string, form: NonNullable<CheckoutView["cardForm"]>) => {
  if (form.options === undefined) {
    return `<p>Parcelamento: <strong id="cc-plan">${escape(form.plan)}</strong>
      (total <span class="money">${escape(amount)}</span>)</p>`
  }
  const options = form.options
    .map((o) => {
      const selected = o.installments === form.installments ? " selected" : ""
      const text = escape(`${o.plan} (total ${o.total})`)
      return `<option value="${o.installments}" data-total="${escape(o.total)}"${selected}>${text}</option>`
    })
    .join("")
  const chosen = form.options.find((o) => o.installments === form.installments) ?? form.options[0]!
  return `<label for="cc-installments">Parcelamento</label>
    <select id="cc-installments" aria-describedby="cc-total-line">${options}</select>
    <p id="cc-total-line">Total: <strong class="money" id="cc-total">${escape(chosen.total)}</strong></p>`
}

const pixBody = (
  pix: NonNullable<CheckoutView["pix"]>
) => `<img class="qr" src="${escape(pix.qrPath)}" alt="QR Code PIX" width="280" height="280">
  <p class="muted">Ou copie o código PIX (copia e cola):</p>
  <p class="code" id="pix-code">${escape(pix.code)}</p>
  <button type="button" data-copy="pix-code">Copiar código PIX</button>`

const billetBody = (billet: NonNullable<CheckoutView["billet"]>) => `<p class="muted">Linha digitável:</p>
  <p class="code" id="billet-line">${escape(billet.digitableLine)}</p>
  <button type="button" data-copy="billet-line">Copiar linha digitável</button>
  <p><a href="${escape(billet.pdfPath)}">Baixar o boleto (PDF)</a></p>
  <p class="muted">Vencimento: ${escape(billet.dueDate)}.</p>
  ${todayLine(billet.amountToday)}
  ${
    billet.instructions === undefined
      ? ""
      : `<ul class="muted" id="billet-terms">${billet.instructions.map((l) => `<li>${escape(l)}</li>`).join("")}</ul>`
  }`

const methodSection = (v: CheckoutView, payPath: string) => {
  // A bolepix (docs/boleto.md "Bolepix"): the slip and its due-date PIX charge, both payable; the first
  // payment settles it, so the page says a second one is given back.
  if (v.pix && v.billet) {
    return `<section class="card" id="pay" ${when(["pending"], v.state)}>
  <h2>Pague com boleto ou PIX</h2>
  ${billetBody(v.billet)}
  <h3>Ou pague com PIX</h3>
  ${pixBody(v.pix)}
  <p class="muted">Pague por um só meio: o primeiro pagamento quita o boleto e um segundo é devolvido.</p>
</section>`
  }
  if (v.pix) {
    return `<section class="card" id="pay" ${when(["pending"], v.state)}>
  <h2>Pague com PIX</h2>
  ${pixBody(v.pix)}
  <p class="muted">Pague até ${escape(v.pix.deadline)}.</p>
</section>`
  }
  if (v.billet) {
    return `<section class="card" id="pay" ${when(["pending"], v.state)}>
  <h2>Pague com boleto</h2>
  ${billetBody(v.billet)}
</section>`
  }
  if (v.cardForm) {
    // The hosted card form (docs/checkout.md): posted by the page's script to /card as JSON, never as a
    // URL or a native form submission (form-action 'none'); no field has a name, so nothing autosubmits.
    return `<section class="card" id="pay" ${when(["pending"], v.state)}>
  <h2>Pague com cartão de crédito</h2>
  <form id="card-form" novalidate data-pay-url="${escape(payPath)}">
    <label for="cc-holder">Nome impresso no cartão</label>
    <input id="cc-holder" autocomplete="cc-name" required maxlength="255">
    <label for="cc-number">Número do cartão <span id="cc-brand" class="muted" aria-live="polite"></span></label>
    <input id="cc-number" inputmode="numeric" autocomplete="cc-number" required maxlength="23"
      aria-describedby="cc-number-hint">
    <p class="muted" id="cc-number-hint">Visa, Mastercard ou Elo</p>
    <div class="row">
      <div><label for="cc-month">Mês (MM)</label>
        <input id="cc-month" inputmode="numeric" autocomplete="cc-exp-month" required maxlength="2"></div>
      <div><label for="cc-year">Ano (AAAA)</label>
        <input id="cc-year" inputmode="numeric" autocomplete="cc-exp-year" required maxlength="4"></div>
      <div><label for="cc-cvv">CVV</label>
        <input id="cc-cvv" inputmode="numeric" autocomplete="cc-csc" required maxlength="4"></div>
    </div>
    ${planField(v.amount, v.cardForm)}
    <p class="error" id="cc-error" role="alert"></p>
    <button type="submit" id="cc-submit">Pagar <span id="cc-pay-total">${escape(v.amount)}</span></button>
  </form>
</section>`
  }
  if (v.card) {
    return `<section class="card">
  <h2>Cartão de crédito</h2>
  <p>${escape(v.card.brand)} terminado em ${escape(v.card.last4)}</p>
  <p class="muted">${escape(v.card.plan)}</p>
</section>`
  }
  return ""
}

/** What was refunded and what the buyer still paid for (issue 23: a partial refund is not "estornado"). */
const refundSection = (v: CheckoutView) => {
  if (!v.refund) return ""
  return `<section class="card" ${when(["partially_refunded"], v.state)}>
  <h2>Estorno parcial</h2>
  <p>Parte do valor foi devolvida a você pelo mesmo meio de pagamento;
  o restante continua pago a ${escape(v.merchantName)}.</p>
  <dl class="sums">
    <div><dt>Valor pago</dt><dd>${escape(v.amount)}</dd></div>
    <div><dt>Valor estornado</dt><dd>${escape(v.refund.refunded)}</dd></div>
    <div><dt>Valor mantido</dt><dd>${escape(v.refund.kept)}</dd></div>
  </dl>
</section>
<section class="card" ${when(["refunded"], v.state)}>
  <h2>Pagamento estornado</h2>
  <p>O valor de ${escape(v.refund.refunded)} foi devolvido a você pelo mesmo meio de pagamento.</p>
</section>`
}

/** Each ending says what happened and what the buyer can do next. */
const noticeSections = (v: CheckoutView) => {
  const shop = escape(v.merchantName)
  const what = v.billet ? "este boleto" : v.pix ? "este código PIX" : "esta cobrança"
  const deadline =
    v.pix && !v.billet
      ? ` em ${escape(v.pix.deadline)},`
      : v.billet
        ? ` no vencimento, ${escape(v.billet.dueDate)},`
        : ""
  return `<section class="card" id="paid" ${when(["paid"], v.state)}>
  <h2>Pagamento confirmado</h2>
  <p>Obrigado! ${shop} já recebeu a confirmação do seu pagamento.</p>
</section>
<section class="card" ${when(["processing"], v.state)}>
  <h2>Pagamento em análise</h2>
  <p>Estamos conferindo o pagamento. Esta página se atualiza sozinha: não é preciso pagar de novo.</p>
</section>
<section class="card notice" ${when(["expired"], v.state)}>
  <h2>O prazo para pagar terminou</h2>
  <p>O prazo de pagamento terminou${deadline} e ${what} não pode mais ser pago. Nada foi cobrado.</p>
  <p><strong>O que fazer:</strong> se ainda quiser concluir a compra,
  fale com a loja (${shop}) e peça uma nova cobrança.</p>
</section>
<section class="card notice" ${when(["refused"], v.state)}>
  <h2>Pagamento não aprovado</h2>
  <p>O pagamento foi recusado e nada foi cobrado.</p>
  <p id="reason">${escape(v.reason ?? "")}</p>
  <p><strong>O que fazer:</strong> tente outro cartão ou fale com a loja (${shop}).</p>
</section>
<section class="card notice" ${when(["failed"], v.state)}>
  <h2>Não foi possível processar o pagamento</h2>
  <p>Houve uma falha ao processar o pagamento e nada foi cobrado.</p>
  <p><strong>O que fazer:</strong> tente de novo em alguns minutos ou fale com a loja (${shop}).</p>
</section>
<section class="card notice" ${when(["disputed"], v.state)}>
  <h2>Pagamento em contestação</h2>
  <p>Este pagamento está sendo contestado junto ao banco ou à bandeira.
  Para saber mais, fale com a loja (${shop}).</p>
</section>`
}

/** The buyer's page in pt-BR; its script polls `statusPath` and switches state without a reload. */
export const checkoutPage = (v: CheckoutView, statusPath: string) => `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Pagamento — ${escape(v.merchantName)}</title>
${STYLE_TAG}
</head>
<body>
<main id="checkout" data-state="${v.state}" data-status-url="${escape(statusPath)}">
<section class="card">
  <h1>${escape(v.merchantName)}</h1>
  <p class="amount">${escape(v.amount)}</p>
  <span class="status" id="status" role="status" aria-live="polite">${STATE_LABELS[v.state]}</span>
</section>
${noticeSections(v)}
${refundSection(v)}
${methodSection(v, statusPath.replace(/\/status$/, "/card"))}
${
  v.products.length === 0
    ? ""
    : `<section class="card"><h2>Itens</h2><ul>${v.products
        .map((p) => `<li>${p.quantity} × ${escape(p.name)} — <span class="money">${escape(p.total)}</span></li>`)
        .join("")}</ul></section>`
}
</main>
${SCRIPT_TAG}
</body>
</html>`
