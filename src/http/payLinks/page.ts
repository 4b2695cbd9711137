import { formatBrl, formatDeadline } from "../../domain/checkout.ts"
import type { LinkMethod, LinkRefusal, PaymentLinkRecord } from "../../domain/paymentLink.ts"
import { INVENTORY, STYLE_TAG } from "../checkout/inventory.ts"

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** The integrity recorded in the checkout's inventory (PCI DSS 4.0 req. 6.4.3), never one computed here. */
const integrityOf = (src: string) => {
  const entry = [...INVENTORY.scripts, ...INVENTORY.styles].find((e) => e.src === src)
  if (entry === undefined) throw new Error(`${src} is not in src/http/checkout/inventory.json`)
  return entry.integrity
}

const JS = "/pay/assets/paylink.js"
const CSS = "/pay/assets/paylink.css"
const SCRIPT = `<script src="${JS}" integrity="${integrityOf(JS)}"></script>`
const STYLE = `<link rel="stylesheet" href="${CSS}" integrity="${integrityOf(CSS)}">`

const METHOD_LABELS: Record<LinkMethod, { readonly word: string; readonly label: string }> = {
  PIX: { word: "pix", label: "PIX (aprovação na hora)" },
  CARD: { word: "credit_card", label: "Cartão de crédito" },
  BOLETO: { word: "billet", label: "Boleto bancário" }
}

const head = (title: string) => `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(title)}</title>
${STYLE_TAG}
${STYLE}
</head>`

const amountSection = (l: PaymentLinkRecord) => {
  if (l.amount !== null) return `<p class="amount">${escape(formatBrl(l.amount))}</p>`
  const bounds = [
    l.minAmount === null ? "" : `mínimo ${formatBrl(l.minAmount)}`,
    l.maxAmount === null ? "" : `máximo ${formatBrl(l.maxAmount)}`
  ].filter((s) => s !== "")
  return `<label for="link-amount">Valor a pagar (R$)</label>
    <input id="link-amount" inputmode="decimal" required maxlength="20" aria-describedby="link-amount-hint">
    <p class="muted" id="link-amount-hint">Você escolhe o valor${
      bounds.length === 0 ? "" : ` (${escape(bounds.join(", "))})`
    }.</p>`
}

/** The buyer's page of a link that takes visits (pt-BR). */
export const linkPage = (l: PaymentLinkRecord, merchantName: string, visitPath: string) => {
  const open = l.amount === null
  return `${head(`${l.name} — ${merchantName}`)}
<body>
<main id="paylink">
<section class="card">
  <p class="muted">${escape(merchantName)}</p>
  <h1>${escape(l.name)}</h1>
  ${l.description === null ? "" : `<p class="description">${escape(l.description)}</p>`}
  ${open ? "" : amountSection(l)}
  ${
    l.items.length === 0
      ? ""
      : `<ul>${l.items
          .map(
            (i) =>
              `<li>${i.quantity} × ${escape(i.name)} — ` +
              `<span class="money">${escape(formatBrl(i.unitPrice * i.quantity))}</span></li>`
          )
          .join("")}</ul>`
  }
  ${l.expiresAt === null ? "" : `<p class="muted">Válido até ${escape(formatDeadline(l.expiresAt))}.</p>`}
</section>
<section class="card">
  <h2>Seus dados e a forma de pagamento</h2>
  <form id="link-form" novalidate data-visit-url="${escape(visitPath)}">
    ${open ? amountSection(l) : ""}
    <fieldset>
      <legend>Forma de pagamento</legend>
      ${l.methods
        .map(
          (m, i) =>
            `<label class="choice" for="link-method-${i}">` +
            `<input type="radio" name="method" id="link-method-${i}" data-method="${METHOD_LABELS[m].word}"` +
            `${l.methods.length === 1 ? " checked" : ""}> ${METHOD_LABELS[m].label}</label>`
        )
        .join("\n      ")}
    </fieldset>
    <label for="link-name">Nome completo</label>
    <input id="link-name" autocomplete="name" required maxlength="255">
    <label for="link-email">E-mail</label>
    <input id="link-email" type="email" autocomplete="email" required maxlength="254">
    <label for="link-document">CPF ou CNPJ</label>
    <input id="link-document" inputmode="numeric" required maxlength="32">
    ${
      l.methods.includes("CARD") && l.maxInstallments > 1
        ? `<p class="muted">No cartão, em até ${l.maxInstallments}x.</p>`
        : ""
    }
    <p class="error" id="link-error" role="alert"></p>
    <button type="submit" id="link-submit">Continuar para o pagamento</button>
  </form>
</section>
</main>
${SCRIPT}
</body>
</html>`
}

const REFUSALS: Record<LinkRefusal, { readonly title: string; readonly text: string }> = {
  inactive: {
    title: "Este link de pagamento foi desativado",
    text: "A loja desativou este link e ele não aceita mais pagamentos. Nada foi cobrado por esta página."
  },
  expired: {
    title: "Este link de pagamento expirou",
    text: "O prazo deste link terminou e ele não aceita mais pagamentos. Nada foi cobrado por esta página."
  },
  used_up: {
    title: "Este link de pagamento esgotou",
    text: "Este link já foi usado o número máximo de vezes que a loja permitiu. Nada foi cobrado por esta página."
  }
}

/** A link that takes no visit: what happened and what to do (pt-BR), under the same policy. */
export const unavailablePage = (l: PaymentLinkRecord, merchantName: string, refusal: LinkRefusal) => `${head(
  REFUSALS[refusal].title
)}
<body>
<main id="paylink" data-state="${refusal}">
<section class="card notice">
  <h1>${REFUSALS[refusal].title}</h1>
  <p>${escape(l.name)} — ${escape(merchantName)}</p>
  <p>${REFUSALS[refusal].text}</p>
  <p><strong>O que fazer:</strong> se ainda quiser pagar, fale com a loja (${escape(merchantName)})
  e peça um novo link.</p>
</section>
</main>
</body>
</html>`
