import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Chunk, Clock, Effect, Either, Option, Stream } from "effect"
import { Accounts } from "../../app/Accounts.ts"
import { Balances } from "../../app/Balances.ts"
import { Dashboard } from "../../app/Dashboard.ts"
import { Payments } from "../../app/Payments.ts"
import { Refunds } from "../../app/Refunds.ts"
import { Subaccounts } from "../../app/Subaccounts.ts"
import { Webhooks } from "../../app/Webhooks.ts"
import { Withdrawals } from "../../app/Withdrawals.ts"
import { type FieldError, ValidationFailed } from "../../domain/errors.ts"
import { type AccountId, RefundId, subaccountIdOf, TransactionId, WithdrawalId } from "../../domain/ids.ts"
import { MERCHANT } from "../../domain/ledger.ts"
import { type BankAccount, validateBankAccount } from "../../domain/subaccount.ts"
import type { WithdrawalRecord } from "../../domain/withdrawal.ts"
import { Ids } from "../../ports/Ids.ts"
import type { ListKey } from "../../ports/Page.ts"
import { GatewayApi } from "../Api.ts"
import { rendered } from "../shared/domainErrors.ts"
import { isKnownScope } from "../shared/scopes.ts"
import {
  FINANCIALS_CSV_HEADER,
  TRANSACTIONS_CSV_HEADER,
  postingCsv,
  presentDetail,
  presentRow,
  transactionCsv
} from "./present.ts"
import { dashboardTenant } from "./tenant.ts"
import { encodeCursor, filterOf, pageOf, summaryPeriod } from "./query.ts"

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** Rows per query of an export: a seek each, so the whole period streams at a steady cost. */
const EXPORT_PAGE = 500

/** Every page of a keyset list, one query per page, for a streamed export. */
const allPages = <A>(
  page: (
    after: ListKey | undefined
  ) => Effect.Effect<{ readonly rows: ReadonlyArray<A>; readonly next: ListKey | null }>
): Stream.Stream<A> =>
  Stream.paginateChunkEffect<ListKey | undefined, A, never, never>(undefined, (after) =>
    Effect.map(page(after), ({ next, rows }) => [
      Chunk.fromIterable(rows),
      next === null ? Option.none() : Option.some<ListKey | undefined>(next)
    ])
  )

const csvResponse = (name: string, header: string, lines: Stream.Stream<string>) =>
  HttpServerResponse.stream(Stream.encodeText(Stream.concat(Stream.make(header), lines)), {
    contentType: "text/csv; charset=utf-8",
    headers: { "content-disposition": `attachment; filename="${name}"`, "cache-control": "no-store" }
  })

const presentWithdrawal = (w: WithdrawalRecord) => ({
  id: w.id,
  subaccountId: w.subaccountId,
  amount: w.amount,
  status: w.status,
  bankAccount: w.bankAccount,
  failureReason: w.failureReason,
  paidAt: w.paidAt,
  createdAt: w.createdAt
})

export const DashboardHttp = HttpApiBuilder.group(GatewayApi, "dashboard", (handlers) =>
  Effect.gen(function* () {
    const dashboard = yield* Dashboard
    const accounts = yield* Accounts
    const refunds = yield* Refunds
    const payments = yield* Payments
    const balances = yield* Balances
    const withdrawals = yield* Withdrawals
    const subaccounts = yield* Subaccounts
    const webhooks = yield* Webhooks
    const ids = yield* Ids
    const session = yield* dashboardTenant

    const detail = (accountId: AccountId, id: TransactionId) =>
      Effect.map(dashboard.detail(accountId, id), presentDetail)

    return handlers
      .handle("me", () =>
        Effect.flatMap(session, (accountId) => accounts.findByEmailOrId(accountId)).pipe(
          Effect.flatMap(
            Option.match({ onNone: () => Effect.die("signed-in account vanished"), onSome: Effect.succeed })
          )
        )
      )
      .handle("summary", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const { before, from } = yield* summaryPeriod(urlParams, yield* now)
          return { from, to: before, ...(yield* dashboard.summary(accountId, from, before)) }
        }).pipe(rendered)
      )
      .handle("transactions", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const errors: Array<FieldError> = []
          const page = pageOf("transactions", urlParams, errors)
          const filter = yield* filterOf(urlParams, yield* now, errors)
          const { after, limit } = yield* page
          const found = yield* dashboard.transactions(accountId, filter, after, limit)
          return { data: found.rows.map(presentRow), nextCursor: encodeCursor("transactions", found.next) }
        }).pipe(rendered)
      )
      .handle("exportTransactions", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const filter = yield* filterOf(urlParams, yield* now)
          return csvResponse(
            "transactions.csv",
            TRANSACTIONS_CSV_HEADER,
            allPages((after) => dashboard.transactions(accountId, filter, after, EXPORT_PAGE)).pipe(
              Stream.map(transactionCsv)
            )
          )
        }).pipe(rendered)
      )
      .handle("transaction", ({ path }) =>
        Effect.flatMap(session, (accountId) => detail(accountId, TransactionId.make(path.id))).pipe(rendered)
      )
      .handle("refund", ({ path, payload }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const transactionId = TransactionId.make(path.id)
          yield* refunds.refund(
            accountId,
            { transactionId, amount: payload.amount, reason: payload.reason },
            RefundId.make(yield* ids.next)
          )
          return yield* detail(accountId, transactionId)
        }).pipe(rendered)
      )
      .handle("review", ({ path, payload }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const transactionId = TransactionId.make(path.id)
          yield* payments.decideReview(accountId, transactionId, payload.decision)
          return yield* detail(accountId, transactionId)
        }).pipe(rendered)
      )
      .handle("customers", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const { after, limit } = yield* pageOf("customers", urlParams)
          const search = urlParams.search?.trim() || undefined
          const page = yield* dashboard.customers(accountId, search, after, limit)
          return { data: page.rows, nextCursor: encodeCursor("customers", page.next) }
        }).pipe(rendered)
      )
      .handle("balance", () =>
        Effect.flatMap(session, (accountId) => balances.balance(accountId, null)).pipe(
          Effect.map((b) => ({
            available: b.available,
            pending: b.pending,
            reserved: b.reserved,
            updatedAt: b.updatedAt
          })),
          Effect.orDie
        )
      )
      .handle("financials", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          // Postings are keyed by their bigint ids, oldest first (LedgerLive.statement): the cursor says so.
          const { after, limit } = yield* pageOf("financials", urlParams)
          const { before, from } = yield* summaryPeriod(urlParams, yield* now)
          const page = yield* balances.financials(
            accountId,
            null,
            { party: MERCHANT, from, before },
            {
              offset: 0,
              limit,
              after
            }
          )
          return { data: page.rows, nextCursor: encodeCursor("financials", page.next) }
        }).pipe(rendered)
      )
      .handle("exportFinancials", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const { before, from } = yield* summaryPeriod(urlParams, yield* now)
          return csvResponse(
            "financials.csv",
            FINANCIALS_CSV_HEADER,
            allPages((after) =>
              balances
                .financials(
                  accountId,
                  null,
                  { party: MERCHANT, from, before },
                  { offset: 0, limit: EXPORT_PAGE, after }
                )
                .pipe(Effect.orDie)
            ).pipe(Stream.map(postingCsv))
          )
        }).pipe(rendered)
      )
      .handle("withdrawals", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const { after, limit } = yield* pageOf("withdrawals", urlParams)
          const page = yield* withdrawals.page(accountId, null, { offset: 0, limit, after })
          return { data: page.rows.map(presentWithdrawal), nextCursor: encodeCursor("withdrawals", page.next) }
        }).pipe(rendered)
      )
      .handle("withdraw", ({ payload }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          let bankAccount: BankAccount | null = null
          if (payload.bankAccount !== undefined && payload.bankAccount !== null) {
            const checked = validateBankAccount(payload.bankAccount, "bankAccount")
            if (Either.isLeft(checked)) return yield* new ValidationFailed({ errors: checked.left })
            bankAccount = checked.right
          } else if (payload.subaccountId === undefined) {
            return yield* ValidationFailed.one("bankAccount", "bankAccount is required for the main account")
          }
          const created = yield* withdrawals.create(
            accountId,
            {
              amount: payload.amount,
              subaccountId: payload.subaccountId === undefined ? null : subaccountIdOf(payload.subaccountId),
              bankAccount
            },
            WithdrawalId.make(yield* ids.next)
          )
          return presentWithdrawal(created)
        }).pipe(rendered)
      )
      .handle("subaccounts", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const { after, limit } = yield* pageOf("subaccounts", urlParams)
          const page = yield* subaccounts.page(accountId, {}, { offset: 0, limit, after })
          return { data: page.rows, nextCursor: encodeCursor("subaccounts", page.next) }
        }).pipe(rendered)
      )
      .handle("keys", () =>
        Effect.gen(function* () {
          const accountId = yield* session
          return {
            primary: yield* accounts.primaryKey(accountId),
            restricted: yield* accounts.listRestrictedKeys(accountId)
          }
        }).pipe(rendered)
      )
      .handle("createKey", ({ payload }) =>
        Effect.gen(function* () {
          const accountId = yield* session
          const unknown = payload.scopes.findIndex((s) => !isKnownScope(s))
          if (unknown >= 0) {
            return yield* ValidationFailed.one(`scopes[${unknown}]`, `unknown scope ${payload.scopes[unknown]}`)
          }
          const { apiKey, fullKey } = yield* accounts.createRestrictedKey(accountId, payload.label, payload.scopes)
          return { ...apiKey, fullKey }
        }).pipe(rendered)
      )
      .handle("revokeKey", ({ path }) =>
        Effect.flatMap(session, (accountId) => accounts.revokeRestrictedKey(accountId, path.id)).pipe(rendered)
      )
      .handle("regenerateKey", () =>
        Effect.flatMap(session, (accountId) => accounts.regenerate(accountId)).pipe(
          Effect.map(({ apiKey, fullKey }) => ({ ...apiKey, fullKey })),
          rendered
        )
      )
      .handle("webhook", () => Effect.flatMap(session, (accountId) => webhooks.get(accountId)).pipe(rendered))
      .handle("setWebhook", ({ payload }) =>
        Effect.flatMap(session, (accountId) => webhooks.upsert(accountId, payload.url)).pipe(
          Effect.map((r) => r.webhook),
          rendered
        )
      )
      .handle("removeWebhook", () => Effect.flatMap(session, (accountId) => webhooks.remove(accountId)).pipe(rendered))
      .handle("retryDelivery", ({ path }) =>
        Effect.flatMap(session, (accountId) => webhooks.retry(accountId, path.id)).pipe(rendered)
      )
  })
)
