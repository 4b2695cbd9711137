import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Account, ApiKey } from "../../domain/account.ts"
import { Customer } from "../../domain/customer.ts"
import { Uuid } from "../../domain/fields.ts"
import { MAX_AMOUNT } from "../../domain/order.ts"
import { PaymentMethod, TransactionStatus } from "../../domain/transaction.ts"
import { Delivery, Webhook } from "../../domain/webhook.ts"
import { BadRequest, Conflict, NotFound, ServiceUnavailable, UnprocessableEntity } from "../shared/errors.ts"
import { payload } from "../shared/payload.ts"
import { SessionAuth } from "../shared/security.ts"
import { DashboardMode } from "./mode.ts"
import { CustomersQuery, ExportQuery, PeriodQuery, TransactionsQuery } from "./query.ts"

const Money = Schema.Int.annotations({ description: "centavos" })

const Figures = Schema.Struct({
  count: Schema.Int,
  paid: Schema.Int,
  refused: Schema.Int,
  gross: Money,
  refunded: Money,
  fees: Money,
  net: Money,
  approvalRate: Schema.NullOr(Schema.Number).annotations({ description: "paid ÷ (paid + refused), 0 to 1" })
})

export const SummaryResponse = Schema.Struct({
  from: Schema.Date,
  to: Schema.Date,
  totals: Figures,
  byMethod: Schema.Array(Schema.Struct({ method: PaymentMethod, ...Figures.fields })),
  byDay: Schema.Array(
    Schema.Struct({
      day: Schema.String.annotations({ description: "YYYY-MM-DD in America/Sao_Paulo" }),
      method: PaymentMethod,
      ...Figures.fields
    })
  )
})

const Analysis = Schema.Struct({
  decision: Schema.String,
  score: Schema.Number,
  reason: Schema.NullOr(Schema.String),
  status: Schema.String
})

export const DashboardTransaction = Schema.Struct({
  id: Schema.UUID,
  method: PaymentMethod,
  status: TransactionStatus,
  amount: Money,
  amountTotal: Money,
  refundedAmount: Money,
  refundable: Money.annotations({ description: "what a refund may still return" }),
  fee: Money,
  installments: Schema.NullOr(Schema.Int),
  buyer: Schema.NullOr(Schema.Struct({ name: Schema.String, document: Schema.String })),
  card: Schema.NullOr(Schema.Struct({ brand: Schema.String, last4: Schema.String })),
  metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  declineCode: Schema.NullOr(Schema.String),
  antifraud: Schema.NullOr(Analysis),
  createdAt: Schema.Date,
  paidAt: Schema.NullOr(Schema.Date)
})

export const TransactionsPage = Schema.Struct({
  data: Schema.Array(DashboardTransaction),
  nextCursor: Schema.NullOr(Schema.String).annotations({
    description: "the `cursor` of the next page; null at the end"
  })
})

export const TransactionDetail = Schema.Struct({
  transaction: DashboardTransaction,
  timeline: Schema.Array(
    Schema.Struct({
      at: Schema.Date,
      kind: Schema.Literal("created", "antifraud", "authorized", "paid", "refund", "dispute", "event", "delivery"),
      title: Schema.String,
      detail: Schema.Record({ key: Schema.String, value: Schema.Unknown })
    })
  )
})

export const RefundRequest = payload(
  Schema.Struct({
    amount: Schema.optional(
      Schema.Int.pipe(Schema.between(1, MAX_AMOUNT)).annotations({ description: "centavos; absent: all that is left" })
    ),
    reason: Schema.optional(Schema.String.pipe(Schema.maxLength(255)))
  })
)

export const ReviewRequest = payload(Schema.Struct({ decision: Schema.Literal("approve", "reject") }))

export const CustomersPage = Schema.Struct({ data: Schema.Array(Customer), nextCursor: Schema.NullOr(Schema.String) })

export const BalanceResponse = Schema.Struct({
  available: Money,
  pending: Money,
  reserved: Money,
  updatedAt: Schema.Date
})

export const Posting = Schema.Struct({
  id: Schema.String,
  book: Schema.String,
  type: Schema.String,
  amount: Schema.Number,
  transactionId: Schema.NullOr(Schema.String),
  withdrawalId: Schema.NullOr(Schema.String),
  description: Schema.String,
  createdAt: Schema.Date
})

export const FinancialsQuery = Schema.Struct({
  ...PeriodQuery.fields,
  limit: TransactionsQuery.fields.limit,
  cursor: TransactionsQuery.fields.cursor
})

const BankAccountWire = Schema.Struct({
  bankCode: Schema.String,
  agency: Schema.String,
  agencyDigit: Schema.NullOr(Schema.String),
  account: Schema.String,
  accountDigit: Schema.String,
  type: Schema.String
})

export const WithdrawalWire = Schema.Struct({
  id: Schema.UUID,
  subaccountId: Schema.NullOr(Schema.UUID),
  amount: Money,
  status: Schema.String,
  bankAccount: BankAccountWire,
  failureReason: Schema.NullOr(Schema.String),
  paidAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date
})

export const WithdrawalRequest = payload(
  Schema.Struct({
    amount: Schema.Int.pipe(Schema.between(1, MAX_AMOUNT)),
    subaccountId: Schema.optional(Uuid),
    bankAccount: Schema.optional(
      Schema.Unknown.annotations({
        description: "bank_code, agency, agency_digit, account, account_digit, type (checking|savings); main account"
      })
    )
  })
)

export const SubaccountWire = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  document: Schema.String,
  documentType: Schema.String,
  email: Schema.String,
  phone: Schema.String,
  bankAccount: BankAccountWire,
  status: Schema.String,
  createdAt: Schema.Date
})

export const CreateKeyRequest = payload(
  Schema.Struct({
    label: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
    scopes: Schema.Array(Schema.String.pipe(Schema.maxLength(64))).pipe(Schema.minItems(1), Schema.maxItems(40))
  })
)

export const KeyWithSecret = Schema.Struct({ ...ApiKey.fields, fullKey: Schema.String })

export const KeysResponse = Schema.Struct({ primary: ApiKey, restricted: Schema.Array(ApiKey) })

export const WebhookRequest = payload(Schema.Struct({ url: Schema.String.pipe(Schema.maxLength(2048)) }))

const id = HttpApiSchema.param("id", Uuid)

const Csv = HttpApiSchema.Text({ contentType: "text/csv" })

/**
 * The merchant's dashboard (issue 20 §1, the "seller dashboard API" of interface-v2): the login JWT,
 * never an API key; every record scoped to the signed-in account (another account's id is a 404) and to
 * the mode of `X-Gateway-Mode` (docs/dashboard.md).
 */
export class DashboardApi extends HttpApiGroup.make("dashboard")
  .add(
    HttpApiEndpoint.get("me", "/me")
      .addSuccess(Account)
      .annotate(OpenApi.Summary, "The signed-in account")
      .annotate(OpenApi.Description, "The account the login token names: id, name, email, creation.")
  )
  .add(
    HttpApiEndpoint.get("summary", "/summary")
      .annotate(OpenApi.Summary, "Sales summary of a period")
      .setUrlParams(PeriodQuery)
      .addSuccess(SummaryResponse)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Gross and net volume, counts and approval rate, in all, by method and by day (America/Sao_Paulo) " +
          "over `from`..`to` (default the last 30 days, at most 366)."
      )
  )
  .add(
    HttpApiEndpoint.get("transactions", "/transactions")
      .annotate(OpenApi.Summary, "List the account's transactions")
      .setUrlParams(TransactionsQuery)
      .addSuccess(TransactionsPage)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "The account's transactions, newest first, filtered; `nextCursor` pages by a seek on the index, " +
          "as fast at any depth."
      )
  )
  .add(
    HttpApiEndpoint.get("exportTransactions", "/exports/transactions.csv")
      .annotate(OpenApi.Summary, "Export transactions as CSV")
      .setUrlParams(ExportQuery)
      .addSuccess(Csv)
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "The transactions of the list with the same filters, every page, as CSV (docs/dashboard.md), streamed."
      )
  )
  .add(
    HttpApiEndpoint.get("transaction")`/transactions/${id}`
      .annotate(OpenApi.Summary, "One transaction and its timeline")
      .addSuccess(TransactionDetail)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "One transaction and its timeline: analysis, payment, refunds, events, deliveries."
      )
  )
  .add(
    HttpApiEndpoint.post("refund")`/transactions/${id}/refund`
      .annotate(OpenApi.Summary, "Refund a transaction")
      .setPayload(RefundRequest)
      .addSuccess(TransactionDetail)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Description, "Refunds `amount` (all that is left when absent), as the API's refund does.")
  )
  .add(
    HttpApiEndpoint.post("review")`/transactions/${id}/antifraud`
      .annotate(OpenApi.Summary, "Decide an antifraud review")
      .setPayload(ReviewRequest)
      .addSuccess(TransactionDetail)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Description, "Decides a card charge held for review: approve (capture) or reject.")
  )
  .add(
    HttpApiEndpoint.get("customers", "/customers")
      .annotate(OpenApi.Summary, "List the account's customers")
      .annotate(
        OpenApi.Description,
        "The account's customers, newest first, by CPF/CNPJ, part of the name or the email; keyset pages."
      )
      .setUrlParams(CustomersQuery)
      .addSuccess(CustomersPage)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("balance", "/balance")
      .addSuccess(BalanceResponse)
      .annotate(OpenApi.Summary, "The merchant's balances")
      .annotate(
        OpenApi.Description,
        "Available, pending (to be settled) and reserved (rolling reserve, disputes), in centavos."
      )
  )
  .add(
    HttpApiEndpoint.get("financials", "/financials")
      .annotate(OpenApi.Summary, "The merchant's statement")
      .setUrlParams(FinancialsQuery)
      .addSuccess(Schema.Struct({ data: Schema.Array(Posting), nextCursor: Schema.NullOr(Schema.String) }))
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Description, "The merchant's ledger postings over the period, newest first.")
  )
  .add(
    HttpApiEndpoint.get("exportFinancials", "/exports/financials.csv")
      .annotate(OpenApi.Summary, "Export the statement as CSV")
      .setUrlParams(PeriodQuery)
      .addSuccess(Csv)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Description, "The postings of the period as CSV, streamed.")
  )
  .add(
    HttpApiEndpoint.get("withdrawals", "/withdrawals")
      .annotate(OpenApi.Summary, "List withdrawals")
      .setUrlParams(Schema.Struct({ limit: TransactionsQuery.fields.limit, cursor: TransactionsQuery.fields.cursor }))
      .addSuccess(Schema.Struct({ data: Schema.Array(WithdrawalWire), nextCursor: Schema.NullOr(Schema.String) }))
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Withdrawals, newest first, with the bank's failure reason when one failed.")
  )
  .add(
    HttpApiEndpoint.post("withdraw", "/withdrawals")
      .annotate(OpenApi.Summary, "Request a withdrawal")
      .annotate(
        OpenApi.Description,
        "Moves `amount` out of the available balance to `bankAccount` (the main account) or to the " +
          "subaccount's registered account; the bank pays it later."
      )
      .setPayload(WithdrawalRequest)
      .addSuccess(WithdrawalWire, { status: 201 })
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .addError(UnprocessableEntity)
  )
  .add(
    HttpApiEndpoint.get("subaccounts", "/subaccounts")
      .annotate(OpenApi.Summary, "List subaccounts")
      .annotate(
        OpenApi.Description,
        "The account's subaccounts (split recipients), newest first, with their bank accounts; keyset pages."
      )
      .setUrlParams(Schema.Struct({ limit: TransactionsQuery.fields.limit, cursor: TransactionsQuery.fields.cursor }))
      .addSuccess(Schema.Struct({ data: Schema.Array(SubaccountWire), nextCursor: Schema.NullOr(Schema.String) }))
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("keys", "/api-keys")
      .addSuccess(KeysResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List the account's API keys")
      .annotate(
        OpenApi.Description,
        "The primary key and every restricted key, masked: prefix, scopes, rate limit, last use. Never a secret."
      )
  )
  .add(
    HttpApiEndpoint.post("createKey", "/api-keys")
      .annotate(OpenApi.Summary, "Create a restricted API key")
      .setPayload(CreateKeyRequest)
      .addSuccess(KeyWithSecret, { status: 201 })
      .addError(BadRequest)
      .annotate(OpenApi.Description, "A restricted key with these scopes; the full key is shown only here.")
  )
  .add(
    HttpApiEndpoint.del("revokeKey")`/api-keys/${id}`
      .addSuccess(ApiKey)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Revoke a restricted API key")
      .annotate(
        OpenApi.Description,
        "Every API process refuses the key (401) from this answer on. Another account's key, or the " +
          "primary key, is a 404."
      )
  )
  .add(
    HttpApiEndpoint.post("regenerateKey", "/api-keys/primary/regenerate")
      .annotate(OpenApi.Summary, "Regenerate the primary API key")
      .addSuccess(KeyWithSecret)
      .addError(NotFound)
      .annotate(OpenApi.Description, "A new secret for the primary key; the old one is refused at once.")
  )
  .add(
    HttpApiEndpoint.get("webhook", "/webhook")
      .addSuccess(Webhook)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "The account's webhook endpoint")
      .annotate(
        OpenApi.Description,
        "The URL deliveries go to and the secret that signs them; 404 when none is registered."
      )
  )
  .add(
    HttpApiEndpoint.put("setWebhook", "/webhook")
      .setPayload(WebhookRequest)
      .addSuccess(Webhook)
      .addError(BadRequest)
      .annotate(OpenApi.Summary, "Set the webhook endpoint")
      .annotate(
        OpenApi.Description,
        "Registers or replaces the account's webhook URL (public https unless private URLs are allowed); " +
          "the secret is kept on a replacement."
      )
  )
  .add(
    HttpApiEndpoint.del("removeWebhook", "/webhook")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Remove the webhook endpoint")
      .annotate(OpenApi.Description, "No further deliveries; pending ones are dropped.")
  )
  .add(
    HttpApiEndpoint.post("retryDelivery")`/deliveries/${id}/retry`
      .annotate(OpenApi.Summary, "Retry one webhook delivery")
      .annotate(OpenApi.Deprecated, true)
      .annotate(
        OpenApi.Description,
        "Queues one more attempt of the delivery now; answers the record with status PENDING. Deprecated: the " +
          "dashboard resends through `POST /api/dashboard/webhooks/deliveries/{deliveryId}/resend`, which does " +
          "the same and sits beside the other delivery routes; this one stays for scripts written against it."
      )
      .addSuccess(Delivery, { status: 202 })
      .addError(NotFound)
  )
  .middleware(DashboardMode)
  .middleware(SessionAuth)
  .prefix("/dashboard")
  .annotate(OpenApi.Title, "Dashboard") {}
