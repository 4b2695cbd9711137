import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import {
  Cause,
  ConfigProvider,
  Effect,
  Either,
  Layer,
  Logger,
  LogLevel,
  Option,
  ParseResult,
  Redacted,
  Schema
} from "effect"
import { plannedDataDir } from "./adapters/postgres/placement.ts"
import { noticeUrlForLog } from "./adapters/providers/bcb-pix/receiver.ts"
import { Accounts } from "./app/Accounts.ts"
import { Audit } from "./app/Audit.ts"
import { Bolepix } from "./app/Bolepix.ts"
import { markPixHandled, reopenPix } from "./app/PixReceipts.ts"
import { Refunds } from "./app/Refunds.ts"
import { UndecidedCharges } from "./app/UndecidedCharges.ts"
import { BoletoFiles } from "./app/BoletoFiles.ts"
import { AppLive } from "./Live.ts"
import { AppConfig, AppConfigLive } from "./config/AppConfig.ts"
import { emptyAsUnset } from "./config/emptyAsUnset.ts"
import { isUuid } from "./domain/uuid.ts"
import { Email, Name, Password } from "./domain/fields.ts"
import { RefundId, TransactionId } from "./domain/ids.ts"
import { inMode } from "./ports/Modes.ts"
import { PixProvider } from "./ports/PixProvider.ts"
import { ReceivedPixRepo } from "./ports/ReceivedPixRepo.ts"
import { isKnownScope } from "./http/shared/scopes.ts"
import { DatabaseLive } from "./Roles.ts"
import { describeStartupFailure, redactedUrl } from "./startupFailure.ts"

/**
 * Operator CLI (npm run cli -- …), against DATABASE_URL or the embedded database in DATA_DIR:
 *   accounts create --name N --email E --password P
 *   keys create --account <email|id> --scopes customers:read,orders:write [--label L] [--rate-limit N]
 *   api-keys list --account <email|id>           (the account's restricted keys, revoked ones included)
 *   api-keys revoke --account <email|id> --id ID  (refused at once by every process: docs/operations.md)
 *   api-keys live --account <email|id>           (the merchant's live key; needs the service's LIVE_* settings)
 *   ledger check   (docs/money.md: every balance recomputed from its postings; exit 1 on any difference)
 *   pix register-webhook [--url U]  (the PSP's notice URL for PIX_KEY; default PIX_WEBHOOK_URL)
 *   pix exceptions  (PIX payments that did not settle their charge and wait: amount differs, unknown txid, …)
 *   pix handled --id E2E --note N  (one dealt with by hand, and how: it leaves the queue, once)
 *   pix reopen --id E2E --note WHY (a mark made by mistake undone, and why: it waits in the queue again)
 *   pix show --id E2E              (one payment as received, with every mark made on it and undone)
 *   boleto remessa  (cuts the bank's next remessa now: docs/providers.md "Boleto: banks by CNAB 240")
 *   boleto retorno FILE  (ingests a bank's retorno; exit 1 when it is refused or unreadable)
 *   boleto returns  (payments the bank reported that no charge took, owed back: docs/boleto.md)
 *   boleto returned --id ID  (one given back by hand: closed with its return posting, once)
 *   bolepix returns  (second payments of bolepix owed back to their payers: docs/boleto.md "Bolepix")
 *   bolepix returned --id ID  (one given back by hand: closed with its return posting, once)
 *   refunds pending  (card refunds whose outcome the acquirer could not say: docs/providers.md "Known limits")
 *   refunds conclude --id ID --outcome refunded|not_refunded  (one, as the acquirer's records show it, once)
 *   charges pending  (card charges whose outcome the acquirer could not say: docs/operations.md)
 *   charges conclude --id ID --captured [--reference R] | --declined  (one, as the acquirer's records show it, once)
 * Prints JSON, like the HTTP API.
 */
const usage = `usage:
  npm run cli -- accounts create --name NAME --email EMAIL --password PASSWORD
  npm run cli -- keys create --account EMAIL_OR_ID --scopes SCOPE[,SCOPE…] [--label LABEL] [--rate-limit N]
  npm run cli -- api-keys list --account EMAIL_OR_ID
  npm run cli -- api-keys revoke --account EMAIL_OR_ID --id KEY_ID
  npm run cli -- api-keys live --account EMAIL_OR_ID
  npm run cli -- ledger check
  npm run cli -- pix register-webhook [--url https://HOST/providers/pix/PSP/webhook]
  npm run cli -- pix exceptions
  npm run cli -- pix handled --id END_TO_END_ID --note "WHAT WAS DONE"
  npm run cli -- pix reopen --id END_TO_END_ID --note "WHY THE MARK IS UNDONE"
  npm run cli -- pix show --id END_TO_END_ID
  npm run cli -- boleto remessa
  npm run cli -- boleto retorno FILE
  npm run cli -- boleto returns
  npm run cli -- boleto returned --id ID
  npm run cli -- bolepix returns
  npm run cli -- bolepix returned --id ID
  npm run cli -- refunds pending
  npm run cli -- refunds conclude --id REFUND_ID --outcome refunded|not_refunded
  npm run cli -- charges pending
  npm run cli -- charges conclude --id TRANSACTION_ID --captured [--reference ACQUIRER_REFERENCE]
  npm run cli -- charges conclude --id TRANSACTION_ID --declined`

const fail = (message: string) => Effect.fail(new Error(message))

/** What `accounts create` takes, by signup's rules (checked in this order; the first broken is named). */
const NewAccount = Schema.Struct({ name: Name, email: Email, password: Password })

/**
 * The CLI opens the database the service uses: DATABASE_URL, or the embedded PostgreSQL of DATA_DIR
 * with the service's default (the project's .data, wherever the CLI runs from) and the same placement
 * as root (docs/operations.md). When what it opened holds no account, it says which database that was
 * (on stderr; stdout stays JSON): an operator who ran the service with another DATA_DIR or DATABASE_URL
 * then knows why, instead of working in a second, empty database without a word.
 */
const describeDatabase = Effect.gen(function* () {
  const config = yield* AppConfig
  return Option.match(config.databaseUrl, {
    onSome: (url) => `the PostgreSQL of DATABASE_URL (${redactedUrl(Redacted.value(url))})`,
    onNone: () => {
      const dir = plannedDataDir(resolve(join(config.dataDir, "pg")))
      const origin = process.env.DATA_DIR === undefined ? "the default DATA_DIR" : "DATA_DIR"
      return `the embedded PostgreSQL with its data in ${dir} (${origin}: ${resolve(config.dataDir)})`
    }
  })
})

/** Whether the embedded database is about to be created (initdb) by this run, before it starts. */
const isNewEmbeddedDatabase = Effect.map(
  AppConfig,
  (config) =>
    Option.isNone(config.databaseUrl) &&
    !existsSync(join(plannedDataDir(resolve(join(config.dataDir, "pg"))), "PG_VERSION"))
)

const warnWhenEmpty = (created: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ n: number }>`select count(*)::int as n from accounts`
    if ((row?.n ?? 0) > 0) return
    const which = yield* describeDatabase
    yield* Effect.sync(() =>
      console.error(
        `note: opened ${which}, ${created ? "created by this command" : "which already existed"}; ` +
          `it has no accounts. If the service keeps its data elsewhere, run the CLI with the service's ` +
          `DATA_DIR or DATABASE_URL.`
      )
    )
  })

const program = (created: boolean) =>
  Effect.gen(function* () {
    const [noun, verb, ...rest] = process.argv.slice(2)
    const { positionals, values } = yield* Effect.try({
      try: () =>
        parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            name: { type: "string" },
            email: { type: "string" },
            password: { type: "string" },
            account: { type: "string" },
            scopes: { type: "string" },
            label: { type: "string" },
            "rate-limit": { type: "string" },
            id: { type: "string" },
            note: { type: "string" },
            url: { type: "string" },
            outcome: { type: "string" },
            captured: { type: "boolean" },
            declined: { type: "boolean" },
            reference: { type: "string" }
          }
        }),
      // A mistyped option is named, with the usage: not a stack of the parser's.
      catch: (e) => new Error(`${e instanceof Error ? e.message : String(e)}\n\n${usage}`)
    })
    const accounts = yield* Accounts
    yield* warnWhenEmpty(created)
    if (noun === "accounts" && verb === "create") {
      if (!values.name || !values.email || !values.password) return yield* fail(usage)
      // Signup's rules (domain/fields.ts): an operator's typo is named, not stored as a login nobody can use.
      const given = { name: values.name, email: values.email, password: values.password }
      const decoded = Schema.decodeUnknownEither(NewAccount)(given)
      if (Either.isLeft(decoded)) {
        const [issue] = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
        return yield* fail(`--${String(issue?.path[0])} ${issue?.message}`)
      }
      const { account, apiKey, fullKey } = yield* accounts.create(given)
      // The shape signup answers (the tenant's mode and owner are internal: docs/decisions.md).
      const { createdAt, email, id, name } = account
      return { account: { id, name, email, createdAt }, apiKey: { ...apiKey, fullKey } }
    }
    const keyNoun = noun === "keys" || noun === "api-keys"
    if (keyNoun && (verb === "list" || verb === "revoke")) {
      if (!values.account || (verb === "revoke" && !values.id)) return yield* fail(usage)
      if (verb === "revoke" && !isUuid(values.id!)) return yield* fail("--id must be a key id (a UUID)")
      const owner = yield* accounts.findByEmailOrId(values.account).pipe(
        Effect.flatMap(
          Option.match({
            onSome: Effect.succeed,
            onNone: () => fail(`no account with email or id ${values.account}`)
          })
        )
      )
      if (verb === "list") return yield* accounts.listRestrictedKeys(owner.id)
      return yield* accounts
        .revokeRestrictedKey(owner.id, values.id!)
        .pipe(
          Effect.catchTag("NotFound", () =>
            fail(`account ${values.account} has no restricted key with id ${values.id}`)
          )
        )
    }
    if (keyNoun && verb === "live") {
      if (!values.account) return yield* fail(usage)
      const owner = yield* accounts.findByEmailOrId(values.account).pipe(
        Effect.flatMap(
          Option.match({
            onSome: Effect.succeed,
            onNone: () => fail(`no account with email or id ${values.account}`)
          })
        )
      )
      // The same rule as POST /api/api-keys/me/live: the LIVE_* variables the CLI sees are the service's.
      const { account, apiKey, fullKey } = yield* accounts
        .createLiveKey(owner.id)
        .pipe(Effect.catchTags({ Conflict: (e) => fail(e.message), NotFound: (e) => fail(e.message) }))
      return { account, apiKey: { ...apiKey, fullKey, livemode: true } }
    }
    if (keyNoun && verb === "create") {
      if (!values.account || !values.scopes) return yield* fail(usage)
      const scopes = values.scopes
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s.length > 0)
      const unknown = scopes.filter((s) => !isKnownScope(s))
      if (scopes.length === 0 || unknown.length > 0)
        return yield* fail(`unknown scopes: ${unknown.join(", ") || "(none given)"}`)
      const account = yield* accounts.findByEmailOrId(values.account).pipe(
        Effect.flatMap(
          Option.match({
            onSome: Effect.succeed,
            onNone: () => fail(`no account with email or id ${values.account}`)
          })
        )
      )
      const rateLimit = values["rate-limit"] === undefined ? undefined : Number(values["rate-limit"])
      // The column is an int4, as the API's own bound (docs/api.md "API keys").
      if (rateLimit !== undefined && !(Number.isInteger(rateLimit) && rateLimit > 0 && rateLimit <= 2_147_483_647))
        return yield* fail("--rate-limit must be a positive integer up to 2147483647")
      const { apiKey, fullKey } = yield* accounts.createRestrictedKey(
        account.id,
        values.label ?? "Restricted key",
        scopes,
        rateLimit
      )
      return { ...apiKey, fullKey }
    }
    if (noun === "pix" && verb === "exceptions") {
      // Payments that did not settle their charge and wait (docs/providers.md "The receiver"), newest first.
      return yield* Effect.flatMap(ReceivedPixRepo, (r) => r.exceptions(1_000))
    }
    if (noun === "pix" && verb === "handled") {
      // The operator dealt with an exception (returned it at the PSP, matched it by hand): it leaves the queue,
      // and one owed on the gateway's books is posted returned (pix_payment_returned), once.
      const note = values.note?.trim()
      if (!values.id || !note) return yield* fail(usage)
      const mark = yield* markPixHandled(values.id, note)
      switch (mark._tag) {
        case "Marked":
          return mark.record
        case "Unknown":
          return yield* fail(`no PIX received with end-to-end id ${values.id}`)
        case "NotAnException":
          return yield* fail(
            `${values.id} is not an exception: ` +
              (mark.record.outcome === "settled" ? "it settled its charge" : "a bolepix's PIX, given back already")
          )
        case "AlreadyHandled":
          return yield* fail(
            `${values.id} was already marked handled` +
              (mark.record.handledAt === null
                ? ""
                : ` at ${mark.record.handledAt.toISOString()}: ${mark.record.handledNote}`)
          )
      }
    }
    if (noun === "pix" && verb === "reopen") {
      // A mark made by mistake, and why: the exception waits again (owed again on the books); the mark undone
      // stays in its marks.
      const why = values.note?.trim()
      if (!values.id || !why) return yield* fail(usage)
      const repo = yield* ReceivedPixRepo
      const reopen = yield* reopenPix(values.id, why)
      switch (reopen._tag) {
        case "Reopened":
          return { ...reopen.record, undone: reopen.mark, marks: yield* repo.marks(values.id) }
        case "Unknown":
          return yield* fail(`no PIX received with end-to-end id ${values.id}`)
        case "NotHandled":
          return yield* fail(`${values.id} is not marked handled: nothing to reopen`)
      }
    }
    if (noun === "pix" && verb === "show") {
      // One payment as received and what operators did with it, oldest mark first (an audit's question).
      if (!values.id) return yield* fail(usage)
      const repo = yield* ReceivedPixRepo
      const found = yield* repo.find(values.id)
      if (Option.isNone(found)) return yield* fail(`no PIX received with end-to-end id ${values.id}`)
      return { ...found.value, marks: yield* repo.marks(values.id) }
    }
    if (noun === "pix" && verb === "register-webhook") {
      // PUT /webhook/{chave} at the configured PSP (docs/providers.md "PIX: the Banco Central's API Pix").
      const url = values.url ?? process.env.PIX_WEBHOOK_URL
      if (url === undefined || !url.startsWith("https://")) return yield* fail("--url https://… (or PIX_WEBHOOK_URL)")
      // The PSP is live mode's (docs/providers.md "Test and live modes").
      yield* Effect.flatMap(PixProvider, (pix) => pix.registerNotifications(url)).pipe(
        inMode("live"),
        Effect.catchAll((e) => fail(`the PSP did not register it: ${e.message}`))
      )
      return { registered: noticeUrlForLog(url) }
    }
    if (noun === "boleto" && verb === "remessa") {
      const cut = yield* Effect.flatMap(BoletoFiles, (b) => b.remessa())
      return Option.match(cut, {
        onNone: () => ({ cut: false, message: "no title is queued for the bank (or no bank by files is configured)" }),
        onSome: (r) => ({ cut: true, ...r })
      })
    }
    if (noun === "boleto" && verb === "retorno") {
      const path = positionals[0]
      if (path === undefined) return yield* fail(usage)
      const content = yield* Effect.try({
        try: () => readFileSync(path, "latin1"),
        catch: (e) => new Error(`cannot read ${path}: ${(e as Error).message}`)
      })
      const result = yield* Effect.flatMap(BoletoFiles, (b) => b.ingest(content, `cli:${path}`))
      if (result.outcome === "refused" || result.outcome === "unreadable") {
        return yield* fail(JSON.stringify(result, null, 2))
      }
      return result
    }
    if (noun === "boleto" && verb === "returns") {
      // Payments the bank reported (06/17) that the gateway did not apply, every tenant's, oldest first.
      return yield* Effect.flatMap(BoletoFiles, (b) => b.openReturns(500))
    }
    if (noun === "boleto" && verb === "returned") {
      if (!values.id) return yield* fail(usage)
      const closed = yield* Effect.flatMap(BoletoFiles, (b) => b.returnedByHand(values.id!))
      if (closed.outcome === "unknown") return yield* fail(`no boleto payment to return ${values.id}`)
      return closed
    }
    if (noun === "bolepix" && verb === "returns") {
      return yield* Effect.flatMap(Bolepix, (b) => b.openReturns(500))
    }
    if (noun === "bolepix" && verb === "returned") {
      if (!values.id) return yield* fail(usage)
      const closed = yield* Effect.flatMap(Bolepix, (b) => b.returnedByHand(values.id!))
      if (closed.outcome === "unknown") return yield* fail(`no second payment ${values.id}`)
      if (closed.outcome === "psp_deciding") {
        return yield* fail(`${values.id} is a PIX devolução the PSP has not decided yet: it cannot be closed by hand`)
      }
      return closed
    }
    if (noun === "refunds" && verb === "pending") {
      // Card refunds an acquirer may have made and could not say, oldest first: each is looked up in the
      // acquirer's records (its acquirer and reference are listed), then concluded below.
      return yield* Effect.flatMap(Refunds, (r) => r.pendingCard(100))
    }
    if (noun === "refunds" && verb === "conclude") {
      const outcome = values.outcome
      if (!values.id || (outcome !== "refunded" && outcome !== "not_refunded")) return yield* fail(usage)
      if (!isUuid(values.id)) return yield* fail(`no pending card refund ${values.id}`)
      const done = yield* Effect.flatMap(Refunds, (r) =>
        r.concludeCard(RefundId.make(values.id!), outcome === "refunded")
      )
      if (done._tag === "NotPending") return yield* fail(`no pending card refund ${values.id}`)
      return done.refund
    }
    if (noun === "charges" && verb === "pending") {
      // Card charges the acquirer may have captured and could not say, oldest first: each is looked up in the
      // acquirer's records (by its transaction id, the acquirer's idempotency key), then concluded below.
      return yield* Effect.flatMap(UndecidedCharges, (c) => c.pending(100))
    }
    if (noun === "charges" && verb === "conclude") {
      const reference = values.reference?.trim()
      if (!values.id || values.captured === values.declined) return yield* fail(usage)
      if (values.declined && reference !== undefined) return yield* fail("--reference goes with --captured only")
      if (reference === "") return yield* fail("--reference must not be empty")
      if (!isUuid(values.id)) return yield* fail(`no pending card charge ${values.id}`)
      const done = yield* Effect.flatMap(UndecidedCharges, (c) =>
        c.conclude(
          TransactionId.make(values.id!),
          values.captured ? { _tag: "Captured", acquirerReference: reference } : { _tag: "Declined" }
        )
      )
      if (done._tag === "NotPending") return yield* fail(`no pending card charge ${values.id}`)
      const t = done.transaction
      return {
        id: t.id,
        status: t.status,
        orderId: t.orderId,
        amount: t.amountTotal,
        paidAt: t.paidAt,
        declineCode: t.declineCode,
        acquirer: t.acquirer,
        acquirerReference: t.acquirerReference
      }
    }
    if (noun === "ledger" && verb === "check") {
      const discrepancies = yield* Effect.flatMap(Audit, (audit) => audit.check)
      if (discrepancies.length > 0) {
        return yield* fail(`the ledger does not reconcile:\n${JSON.stringify(discrepancies, null, 2)}`)
      }
      return { ok: true, discrepancies: [] }
    }
    return yield* fail(usage)
  })

/**
 * The one line a failed command prints: the database's or the configuration's problem as the service words it
 * at start-up (the URL's password hidden: startupFailure.ts), else the error's own message and what it wraps.
 * Never a Cause as JSON, which hides an Error's message.
 */
const failureLine = (cause: Cause.Cause<unknown>): string => {
  const described = describeStartupFailure(cause)
  if (described !== undefined) return described.replace(/^cannot start: /, "")
  const error = Cause.squash(cause)
  if (!(error instanceof Error)) return String(error)
  const inner = (error as { cause?: unknown }).cause
  const detail = inner instanceof Error && inner.message !== error.message ? `: ${inner.message}` : ""
  return (error.message || error.name) + detail
}

const CliLive = AppLive.pipe(Layer.provideMerge(DatabaseLive), Layer.provide(NodeContext.layer))

// Whether the embedded database exists is read before CliLive starts (and possibly creates) it.
isNewEmbeddedDatabase
  .pipe(
    Effect.flatMap((created) => Effect.provide(program(created), CliLive)),
    Effect.provide(AppConfigLive),
    Effect.flatMap((result) => Effect.sync(() => console.log(JSON.stringify(result, null, 2)))),
    // As the service reads them: set empty is unset (docs/configuration.md "Empty values").
    Effect.withConfigProvider(emptyAsUnset(ConfigProvider.fromEnv())),
    Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)),
    // Logs on stderr: stdout is the command's JSON only (a retorno's warnings are in its report too).
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
    Effect.scoped,
    Effect.runPromiseExit
  )
  .then((exit) => {
    if (exit._tag === "Failure") {
      console.error(failureLine(exit.cause))
      process.exit(1)
    }
    process.exit(0)
  })
