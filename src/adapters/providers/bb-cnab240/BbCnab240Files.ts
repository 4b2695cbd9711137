import { createHash } from "node:crypto"
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import type { ChargeTerms } from "../../../domain/chargeTerms.ts"
import type { AccountId, TransactionId } from "../../../domain/ids.ts"
import {
  type BankOccurrence,
  BankFiles,
  BankFileUnreadable,
  type OccurrenceKind,
  type StrayPayment,
  type TitleState
} from "../../../ports/BankFiles.ts"
import { fn } from "../../../spans.ts"
import { cnabConfig } from "./config.ts"
import { BANCO_DO_BRASIL, type BankProfile } from "./profile.ts"
import { rejectionReason } from "./reasons.ts"
import { buildRemessa, dictKeyType, type RefusedTitle, type RemessaTitle } from "./remessa.ts"
import { parseRetorno, type RetornoTitle } from "./retorno.ts"

// Any fixed 64-bit number: retorno ingestions of every process take turns on it (docs/providers.md).
const RETORNO_LOCK = 7_340_112_240

const KINDS: Readonly<Record<string, OccurrenceKind>> = {
  "02": "registered",
  "03": "rejected",
  "06": "paid",
  "17": "paid",
  "09": "written_off",
  "28": "fee"
}

/** One occurrence of a title, whichever file reports it: its nosso número, movement code and day. */
const occurrenceOf = (t: RetornoTitle) => `${t.ourNumber}|${t.movement}|${t.occurredOn ?? ""}`

/** A file appears whole or not at all: written beside, flushed, then renamed (one directory entry). */
const writeAtomically = (dir: string, name: string, content: string) => {
  const temp = join(dir, `.${name}.tmp`)
  writeFileSync(temp, content, { encoding: "latin1", flush: true })
  renameSync(temp, join(dir, name))
}

interface QueuedTitle {
  readonly accountId: string
  readonly transactionId: string
  readonly sequence: string
  readonly amount: string
  readonly dueDate: string
  readonly issuedOn: string
  readonly payerName: string
  readonly payerDocument: string
  readonly terms: ChargeTerms | null
  readonly writeOffDays: number
  readonly pixKey: string | null
  readonly pixTxid: string | null
}

/**
 * The file exchange with a bank by CNAB 240 (docs/providers.md "Boleto: banks by CNAB 240"): remessas cut
 * from the queued titles into CNAB_REMESSA_DIR, retornos read from CNAB_RETORNO_DIR or given, and the log
 * of retornos received. The retorno sweep reads titles of every account by their transaction id, as the
 * boleto confirmation job does; every change it causes is then made in the title's own account.
 */
export const bbCnab240FilesLayer = (profile: BankProfile) =>
  Layer.effect(
    BankFiles,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const config = yield* cnabConfig

      /** Remessas committed but not yet on disk (the process died between the two): written now. */
      const writePending = Effect.gen(function* () {
        const pending = yield* sql<{ fileNumber: number; fileName: string; content: string }>`
          select file_number, file_name, content from cnab_remessas where written_at is null order by file_number`
        for (const file of pending) {
          yield* Effect.sync(() => writeAtomically(config.remessaDir, file.fileName, file.content))
          yield* sql`update cnab_remessas set written_at = now() where file_number = ${file.fileNumber}`
        }
      })

      const cutRemessa = fn("BbCnab240.cutRemessa")(function* () {
        yield* writePending
        // The NSA and the titles it carries commit together: a number is never reused or skipped.
        const cut = yield* sql.withTransaction(
          Effect.gen(function* () {
            const [counter] = yield* sql<{ value: number }>`
              select value from cnab_counters where name = 'remessa' for update`
            // Only titles whose transaction was recorded and is still payable: a charge that failed after
            // registering, or one that ended before the cycle, is not sent to the bank. A bolepix's cobv key and
            // txid are its transaction's (`details.pix`): the cobv is issued after the slip is registered.
            const titles = yield* sql<QueuedTitle>`
              select c.account_id, c.transaction_id, c.sequence::text, c.amount::text,
                     to_char(c.due_date, 'YYYY-MM-DD') as due_date, to_char(c.issued_on, 'YYYY-MM-DD') as issued_on,
                     c.payer_name, c.payer_document, c.terms, c.write_off_days,
                     t.details -> 'pix' ->> 'key' as pix_key, t.details -> 'pix' ->> 'txid' as pix_txid
              from cnab_titles c
              join transactions t on t.account_id = c.account_id and t.id = c.transaction_id
              where c.status = 'queued' and t.status = 'PENDING'
              order by c.sequence
              for update of c`
            if (titles.length === 0) return Option.none()
            const fileNumber = counter!.value + 1
            const fileName = `remessa-${String(fileNumber).padStart(6, "0")}.rem`
            const refused: RefusedTitle[] = []
            const content = buildRemessa(
              profile,
              config.agreement,
              fileNumber,
              new Date(),
              titles.map((t): RemessaTitle => ({
                transactionId: t.transactionId,
                sequence: Number(t.sequence),
                amount: Number(t.amount),
                dueDate: t.dueDate,
                issuedOn: t.issuedOn,
                payerName: t.payerName,
                payerDocument: t.payerDocument,
                terms: t.terms ?? undefined,
                writeOffDays: t.writeOffDays,
                // A bolepix: its cobv's key and txid, as the charge was issued (Y-03).
                pix:
                  t.pixKey === null || t.pixTxid === null
                    ? undefined
                    : { keyType: dictKeyType(t.pixKey), key: t.pixKey, txid: t.pixTxid }
              })),
              (r) => refused.push(r)
            )
            // A title that cannot be written stays queued, out of this file, and is logged at each cut until it
            // can be (a fix deployed) or its transaction ends: the others, of every merchant, still go
            // (docs/providers.md "Boleto: banks by CNAB 240").
            for (const r of refused) {
              const id = r.title.transactionId
              const account = titles.find((t) => t.transactionId === id)?.accountId
              yield* Effect.logError(
                `remessa ${fileNumber}: title of transaction ${id} (account ${account}) left out`,
                {
                  reason: r.reason
                }
              )
            }
            const leftOut = new Set(refused.map((r) => r.title.transactionId))
            const sent = titles.filter((t) => !leftOut.has(t.transactionId))
            if (sent.length === 0) return Option.none()
            yield* sql`update cnab_counters set value = ${fileNumber} where name = 'remessa'`
            yield* sql`
              insert into cnab_remessas (file_number, file_name, content, titles)
              values (${fileNumber}, ${fileName}, ${content}, ${sent.length})`
            yield* sql`
              update cnab_titles set status = 'sent', remessa = ${fileNumber}, updated_at = now()
              where transaction_id = any(${sent.map((t) => t.transactionId)}::uuid[])`
            return Option.some({ fileNumber, fileName, titles: sent.length })
          })
        )
        if (Option.isNone(cut)) return Option.none()
        yield* writePending
        return Option.some({
          fileNumber: cut.value.fileNumber,
          titles: cut.value.titles,
          path: join(config.remessaDir, cut.value.fileName)
        })
      }, Effect.orDie)

      /**
       * The occurrences whose fee was posted before fees were keyed by their occurrence: under the number and
       * line of the file that reported it (`bank_fee:<file>:<line>`), each read back from the file kept. Only
       * the titles given, and only entries of that form, which no fee has been posted under since.
       */
      const feesPostedByLine = (
        titles: ReadonlyArray<{ readonly accountId: string; readonly transactionId: string }>
      ) =>
        Effect.gen(function* () {
          if (titles.length === 0) return new Set<string>()
          const entries = yield* sql<{ fileNumber: number; line: number }>`
            select distinct split_part(e.key, ':', 2)::int as file_number, split_part(e.key, ':', 3)::int as line
            from unnest(${titles.map((t) => t.accountId)}::uuid[], ${titles.map((t) => t.transactionId)}::uuid[])
                   as t (account_id, transaction_id)
            join ledger_entries e on e.account_id = t.account_id and e.transaction_id = t.transaction_id
            where e.key ~ '^bank_fee:[0-9]+:[0-9]+$'`
          if (entries.length === 0) return new Set<string>()
          const kept = yield* sql<{ fileNumber: number; content: string }>`
            select file_number, content from cnab_retornos
            where file_number = any(${[...new Set(entries.map((e) => e.fileNumber))]}::int[]) and status = 'processed'`
          const titlesOf = new Map(
            kept.map((file) => {
              const read = parseRetorno(file.content)
              return [file.fileNumber, new Map("error" in read ? [] : read.titles.map((t) => [t.line, t]))] as const
            })
          )
          const posted = new Set<string>()
          for (const e of entries) {
            const title = titlesOf.get(e.fileNumber)?.get(e.line)
            if (title !== undefined) posted.add(occurrenceOf(title))
          }
          return posted
        }).pipe(Effect.orDie)

      const read = fn("BbCnab240.read")(function* (content: string) {
        const parsed = parseRetorno(content)
        if ("error" in parsed) return yield* new BankFileUnreadable({ message: parsed.error })
        if (parsed.bankCode !== profile.bankCode) {
          return yield* new BankFileUnreadable({
            message: `line 1: the file is bank ${parsed.bankCode}'s, not ${profile.bankCode}'s`
          })
        }
        const ids = parsed.titles.map((t) => t.transactionId).filter((id) => id !== "")
        const known = yield* sql<{ accountId: string; transactionId: string; ourNumber: string }>`
          select account_id, transaction_id, our_number from cnab_titles
          where transaction_id = any(${ids}::uuid[])`.pipe(Effect.orDie)
        const byId = new Map(known.map((k) => [k.transactionId, k]))
        const ours = parsed.titles.filter((t) => byId.get(t.transactionId)?.ourNumber === t.ourNumber)
        const postedByLine = yield* feesPostedByLine(
          ours
            .filter((t) => t.fee > 0 && KINDS[t.movement] !== "fee")
            .map((t) => ({ accountId: byId.get(t.transactionId)!.accountId, transactionId: t.transactionId }))
        )
        const occurrences: Array<BankOccurrence> = []
        const rejected = [...parsed.rejected]
        const strayPayments: Array<StrayPayment> = []
        for (const t of parsed.titles) {
          const title = byId.get(t.transactionId)
          if (title === undefined || title.ourNumber !== t.ourNumber) {
            // A payment of it is still a payer's money the bank holds for us: kept to return.
            const paid = KINDS[t.movement] === "paid" && t.paid > 0
            rejected.push({
              line: t.line,
              error: `no title of ours has nosso número ${t.ourNumber}${paid ? ": its payment is kept to return" : ""}`
            })
            if (paid) {
              strayPayments.push({
                line: t.line,
                code: t.movement,
                ourNumber: t.ourNumber,
                paid: t.paid,
                occurredOn: t.occurredOn
              })
            }
            continue
          }
          const kind = KINDS[t.movement] ?? "other"
          occurrences.push({
            line: t.line,
            code: t.movement,
            kind,
            accountId: title.accountId as AccountId,
            transactionId: title.transactionId as TransactionId,
            ourNumber: t.ourNumber,
            paid: t.paid,
            charges: t.charges,
            discount: t.discount,
            abatement: t.abatement,
            fee: t.fee,
            occurredOn: t.occurredOn,
            creditOn: t.creditOn,
            reasons: kind === "rejected" ? t.reasons.map(rejectionReason) : t.reasons,
            feePostedByLine: kind !== "fee" && postedByLine.has(occurrenceOf(t))
          })
        }
        rejected.sort((a, b) => a.line - b.line)
        return {
          fileNumber: parsed.fileNumber,
          digest: createHash("sha256").update(content, "latin1").digest("hex"),
          occurrences,
          rejected,
          strayPayments
        }
      })

      const watched = Effect.sync(() =>
        readdirSync(config.retornoDir, { withFileTypes: true })
          // A name starting with a dot is a file still being written (ours, or a transfer tool's).
          .filter((e) => e.isFile() && !e.name.startsWith("."))
          .map((e) => ({ name: e.name, at: statSync(join(config.retornoDir, e.name)).mtimeMs }))
          .sort((a, b) => a.at - b.at || a.name.localeCompare(b.name))
          .map(({ name }) => ({ name, content: readFileSync(join(config.retornoDir, name), "latin1") }))
      )

      const moveAside = (name: string, to: "processed" | "held" | "refused") =>
        Effect.sync(() => {
          const dir = join(config.retornoDir, to)
          mkdirSync(dir, { recursive: true })
          const target = existsSync(join(dir, name)) ? `${name}.${Date.now()}` : name
          renameSync(join(config.retornoDir, name), join(dir, target))
        })

      const markTitle = (
        accountId: AccountId,
        transactionId: TransactionId,
        state: TitleState,
        details: { readonly reasons?: ReadonlyArray<string>; readonly paid?: number; readonly creditOn?: string | null }
      ) =>
        sql`
          update cnab_titles
          set status = ${state}, reasons = ${details.reasons ?? []}::text[], paid_amount = ${details.paid ?? null},
              credit_on = ${details.creditOn ?? null}::date, updated_at = now()
          where account_id = ${accountId} and transaction_id = ${transactionId}
            -- A paid title stays paid whatever the bank says of it later.
            and (status <> 'paid' or ${state} = 'paid')`.pipe(Effect.asVoid, Effect.orDie)

      return BankFiles.of({
        configured: true,
        cycle: { remessaEveryMs: config.remessaEveryMs, pollEveryMs: config.pollEveryMs },
        // A cycle after the last remessa or, before the first, after the oldest title waiting.
        remessaDue: sql<{ due: boolean }>`
          select coalesce(
                   (select max(created_at) from cnab_remessas),
                   (select min(created_at) from cnab_titles where status = 'queued')
                 ) <= now() - make_interval(secs => ${config.remessaEveryMs / 1000}) as due`.pipe(
          Effect.map(([row]) => row?.due === true),
          Effect.orDie
        ),
        cutRemessa: cutRemessa(),
        read,
        watched,
        moveAside,
        markTitle,
        titleState: (accountId, transactionId) =>
          sql<{ status: string }>`
            select status from cnab_titles where account_id = ${accountId} and transaction_id = ${transactionId}`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.status)),
            Effect.orDie
          ),
        lockReceived: sql`select pg_advisory_xact_lock(${RETORNO_LOCK})`.pipe(Effect.asVoid, Effect.orDie),
        received: (fileNumber) =>
          sql<{ fileNumber: number; digest: string; status: "held" | "processed" }>`
            select file_number, digest, status from cnab_retornos where file_number = ${fileNumber}`.pipe(
            Effect.map((rows) => Option.fromNullable(rows[0])),
            Effect.orDie
          ),
        expectedNext: sql<{ next: number }>`
          select coalesce(max(file_number) + 1, ${config.firstRetorno})::int as next
          from cnab_retornos where status = 'processed'`.pipe(
          Effect.map(([row]) => row!.next),
          Effect.orDie
        ),
        hold: (file, content, source) =>
          sql`
            insert into cnab_retornos (file_number, digest, content, status, source)
            values (${file.fileNumber}, ${file.digest}, ${content}, 'held', ${source})
            on conflict (file_number) do nothing`.pipe(Effect.asVoid, Effect.orDie),
        heldContent: (fileNumber) =>
          sql<{ content: string }>`
            select content from cnab_retornos where file_number = ${fileNumber} and status = 'held'`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.content)),
            Effect.orDie
          ),
        recordProcessed: (file, content, source, report) =>
          sql`
            insert into cnab_retornos (file_number, digest, content, status, source, report, processed_at)
            values (${file.fileNumber}, ${file.digest}, ${content}, 'processed', ${source},
                    ${JSON.stringify(report)}::jsonb, now())
            on conflict (file_number) do update
              set status = 'processed', report = excluded.report, processed_at = now()`.pipe(
            Effect.asVoid,
            Effect.orDie
          )
      })
    })
  )

export const BbCnab240FilesLive = bbCnab240FilesLayer(BANCO_DO_BRASIL)
