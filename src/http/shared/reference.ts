/**
 * The one-line summary of every operation, in the merchant's words, and the description of those
 * whose endpoint carries none (issue 23.5: the reference at /docs lists operations by their summary).
 * Keyed by operationId (`group.endpoint`); a test checks that every operation has both, so a new
 * endpoint without them fails it. Descriptions written on an endpoint win over these.
 */
export const reference: Readonly<Record<string, { readonly summary: string; readonly description?: string }>> = {
  "ops.health": {
    summary: "Liveness: the process answers",
    description: "200 while the process serves HTTP. For a supervisor's liveness probe; it does not ask the database."
  },
  "ops.ready": {
    summary: "Readiness: database reachable and migrations applied",
    description: "200 when the service can take traffic; 503 while the database is unreachable or the process drains."
  },
  "ops.metrics": {
    summary: "Prometheus metrics",
    description: "Request counts and durations by route template, rate-limit decisions, jobs and webhook deliveries."
  },
  "documents.pixQr": { summary: "PIX QR code image (for the buyer)" },
  "documents.boletoPdf": { summary: "Boleto PDF (for the buyer)" },
  "checkout.page": { summary: "Hosted payment page (for the buyer)" },
  "checkout.status": { summary: "Live status of a hosted payment page" },
  "checkout.script": {
    summary: "Script of the hosted payment page",
    description: "Served from the gateway itself so that the page's Content-Security-Policy allows only 'self'."
  },
  "checkout.style": {
    summary: "Style sheet of the hosted payment page",
    description: "Served from the gateway itself so that the page's Content-Security-Policy allows only 'self'."
  },
  "auth.signup": { summary: "Create an account and its first API key" },
  "auth.login": { summary: "Log in: get a short-lived access token" },
  "apiKeys.me": { summary: "Read your API key record" },
  "apiKeys.regenerate": { summary: "Regenerate your API key (the old one stops at once)" },
  "customers.create": { summary: "Create a customer (or get the one with this CPF)" },
  "customers.list": {
    summary: "List customers",
    description:
      "Every live customer of the account, newest first. Optional `createdFrom` / `createdTo` (a date " +
      "YYYY-MM-DD or an ISO 8601 timestamp, inclusive); any other parameter is a 400 naming it."
  },
  "customers.get": {
    summary: "Read a customer",
    description: "The customer; 404 when unknown, deleted or of another account, 400 when the id is not a UUID."
  },
  "customers.update": { summary: "Change a customer's name, email or phone" },
  "customers.remove": { summary: "Delete a customer" },
  "orders.create": { summary: "Create an order (an amount to charge a customer)" },
  "orders.list": {
    summary: "List orders",
    description:
      "Every order of the account, newest first. Optional `status` (PENDING, PAID, CANCELLED, EXPIRED), " +
      "`createdFrom`, `createdTo` (a date YYYY-MM-DD or an ISO 8601 timestamp, inclusive); any other " +
      "parameter is a 400 naming it."
  },
  "orders.get": {
    summary: "Read an order",
    description: "The order and its status; 404 when unknown or of another account."
  },
  "transactions.list": {
    summary: "List transactions",
    description:
      "Every transaction of the account (made through /api or /public/v1), newest first; `[]` when none. " +
      "Optional `status`, `method` (PIX, BOLETO, CARD), `createdFrom`, `createdTo` (a date YYYY-MM-DD or " +
      "an ISO 8601 timestamp, inclusive); any other parameter is a 400 naming it."
  },
  "transactions.get": {
    summary: "Read a transaction",
    description:
      "The transaction and its status. Before fulfilling an order, read it here and act only on PAID: a " +
      "webhook alone is not proof of payment. 404 when unknown or of another account."
  },
  "transactions.amountDue": { summary: "What a boleto asks on a date (fine, interest, discount)" },
  "payments.process": { summary: "Charge an order by PIX, boleto or card" },
  "payments.tokenize": { summary: "Save a card as a reusable token" },
  "payments.refund": { summary: "Refund a transaction, in full or in part" },
  "payments.transaction": { summary: "Read a transaction with its payment details" },
  "webhooks.upsert": { summary: "Register or replace your webhook URL" },
  "webhooks.get": {
    summary: "Read your webhook registration",
    description: "The registered URL and when it was set; 404 when none is registered."
  },
  "webhooks.remove": { summary: "Remove your webhook URL" },
  "webhooks.deliveries": { summary: "List webhook deliveries" },
  "webhooks.retry": { summary: "Retry a webhook delivery now" },
  "sandbox.pay": { summary: "Sandbox: pay a pending PIX or boleto" },
  "sandbox.expire": { summary: "Sandbox: expire a pending PIX or boleto" },
  "sandbox.antifraud": { summary: "Sandbox: approve or reject a card in manual review" },
  "sandbox.chargeback": { summary: "Sandbox: move a card dispute (chargeback)" },
  "sandbox.med": { summary: "Sandbox: move a PIX dispute (MED)" },
  "sandbox.settle": { summary: "Sandbox: make a transaction's money available now" },
  "sandbox.sendWithdrawal": { summary: "Sandbox: let a withdrawal's business day come now" },
  "v1Transactions.create": { summary: "Create a transaction (credit_card, pix or billet)" },
  "v1Transactions.list": { summary: "List transactions" },
  "v1Transactions.get": { summary: "Read a transaction" },
  "v1Transactions.amountDue": { summary: "What a billet asks on a date (fine, interest, discount)" },
  "v1Transactions.refund": { summary: "Refund a transaction, in full or in part" },
  "v1Installments.simulate": { summary: "Simulate card installments for an amount" },
  "v1Balance.balance": { summary: "Read the balance (available, pending, reserved)" },
  "v1Balance.financials": { summary: "List financial movements of a period" },
  "v1Withdrawals.create": { summary: "Withdraw available money to a bank account" },
  "v1Withdrawals.list": { summary: "List withdrawals" },
  "v1Withdrawals.get": { summary: "Read a withdrawal" },
  "v1Subaccounts.create": { summary: "Create a subaccount (a recipient of split payments)" },
  "v1Subaccounts.list": { summary: "List subaccounts" },
  "v1Subaccounts.get": { summary: "Read a subaccount" },
  "v1Antifraud.get": { summary: "Read the antifraud analysis of a card transaction" },
  "v1PaymentLinks.create": { summary: "Create a payment link" },
  "v1PaymentLinks.list": { summary: "List payment links" },
  "v1PaymentLinks.get": { summary: "Read a payment link" },
  "v1PaymentLinks.update": { summary: "Edit a payment link" },
  "v1PaymentLinks.deactivate": { summary: "Deactivate a payment link" },
  "v1PaymentLinks.activate": { summary: "Activate a payment link again" },
  "v1PaymentLinks.transactions": { summary: "List a payment link's transactions" },
  "dashboardPaymentLinks.list": { summary: "List payment links (dashboard)" },
  "dashboardPaymentLinks.create": { summary: "Create a payment link (dashboard)" },
  "dashboardPaymentLinks.update": { summary: "Edit a payment link (dashboard)" },
  "dashboardPaymentLinks.deactivate": { summary: "Deactivate a payment link (dashboard)" },
  "dashboardPaymentLinks.activate": { summary: "Activate a payment link again (dashboard)" },
  "dashboardPaymentLinks.transactions": { summary: "A payment link's transactions (dashboard)" },
  "payLinks.page": { summary: "Payment link page (for the buyer)" },
  "payLinks.visit": { summary: "Pay through a payment link (for the buyer)" },
  "payLinks.script": {
    summary: "Script of the payment link page",
    description: "Served from the gateway itself so that the page's Content-Security-Policy allows only 'self'."
  },
  "payLinks.style": {
    summary: "Style sheet of the payment link page",
    description: "Served from the gateway itself so that the page's Content-Security-Policy allows only 'self'."
  }
}

/**
 * The recommended credentials first (issue 23.5): the reference lists schemes in this order, and each
 * operation's alternatives likewise (the header before the `api_token` query, which leaks into logs).
 */
export const SCHEME_ORDER = ["apiKey", "apiKeyBearer", "bearer", "apiToken"]
