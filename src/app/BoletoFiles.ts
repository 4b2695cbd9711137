import { Clock, Effect, Option } from "effect"
import type { AccountId, TransactionId } from "../domain/ids.ts"
import { entry, type Posting, SYSTEM } from "../domain/ledger.ts"
import { saoPauloDate, startOfDayInSaoPaulo } from "../domain/time.ts"
import { BankFiles, type BankOccurrence, type BankReturnFile } from "../ports/BankFiles.ts"
import { BoletoPaymentToReturnRepo } from "../ports/BoletoPaymentToReturnRepo.ts"
import { Ids } from "../ports/Ids.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { Ledger } from "../ports/Ledger.ts"
import { Tenancy } from "../ports/Modes.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { fn } from "../spans.ts"
import { Bolepix } from "./Bolepix.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { Settlement } from "./Settlement.ts"

/** What one retorno did, as the CLI, the upload endpoint and the log report it. */
export interface RetornoReport {
  readonly fileNumber: number | null
  /** processed; duplicate (the same file again: nothing changed); held (out of sequence); refused; unreadable. */
  readonly outcome: "processed" | "duplicate" | "held" | "refused" | "unreadable"
  readonly message: string
  readonly counts: {
    readonly registered: number
    readonly rejected: number
    readonly settled: number
    readonly alreadySettled: number
    readonly writtenOff: number
    readonly feeOnly: number
    readonly other: number
  }
  /** The bank's fees posted, centavos. */
  readonly bankFees: number
  /** Every line that could not be read or matched, with its number and why. */
  readonly rejectedLines: ReadonlyArray<{ readonly line: number; readonly error: string }>
  /** Occurrences read but not applied, and why (a payment of a transaction that had ended…). */
  readonly exceptions: ReadonlyArray<{
    readonly line: number
    readonly transactionId: string
    readonly message: string
  }>
  /**
   * Held files this ingestion processed, in sequence: any whose turn had already come (the ingestion that
   * made them next stopped before taking them), then those this file made next.
   */
  readonly then: ReadonlyArray<RetornoReport>
}

const ZERO = { registered: 0, rejected: 0, settled: 0, alreadySettled: 0, writtenOff: 0, feeOnly: 0, other: 0 }
const SETTLED = new Set(["PAID", "PARTIAL_REFUND", "REFUNDED", "MED_RECEIVED", "MED_ANALYSIS", "MED_REPROVED"])

const report = (
  fileNumber: number | null,
  outcome: RetornoReport["outcome"],
  message: string,
  rejectedLines: RetornoReport["rejectedLines"] = []
): RetornoReport => ({
  fileNumber,
  outcome,
  message,
  counts: ZERO,
  bankFees: 0,
  rejectedLines,
  exceptions: [],
  then: []
})

/**
 * A bank's boletos by files (docs/providers.md "Boleto: banks by CNAB 240"): the remessa cycle, and the
 * ingestion of its retornos — one service whether a file comes from the watched directory, the CLI or
 * the upload. A retorno is taken in the bank's sequence (its NSA): the same file again changes nothing,
 * another file with a used number is refused, a file ahead of the sequence is held and processed when the
 * missing one arrives. Each file's effects commit in one database transaction with its record.
 */
export class BoletoFiles extends Effect.Service<BoletoFiles>()("BoletoFiles", {
  effect: Effect.gen(function* () {
    const files = yield* BankFiles
    const settlement = yield* Settlement
    const bolepix = yield* Bolepix
    const lifecycle = yield* Lifecycle
    const ledger = yield* Ledger
    const tx = yield* Transactional
    const tenancy = yield* Tenancy
    const scheduler = yield* JobScheduler
    const transactions = yield* TransactionRepo
    const toReturn = yield* BoletoPaymentToReturnRepo
    const ids = yield* Ids

    const pair = (type: Posting["type"], amount: number, description: string): Array<Posting> => [
      { party: SYSTEM, book: "payers", type, amount: -amount, description },
      { party: SYSTEM, book: "payouts", type, amount, description }
    ]

    /** The last day a title's slip can be paid (São Paulo): the day of its transaction's `expiresAt`. */
    const lastPayableDay = (accountId: AccountId, transactionId: TransactionId) =>
      Effect.map(transactions.find(accountId, transactionId), (found) =>
        Option.isSome(found) && found.value.expiresAt !== null ? saoPauloDate(found.value.expiresAt) : null
      )

    /**
     * A paid occurrence the gateway does not apply (docs/boleto.md "Payments the gateway does not apply"): the
     * payer's money, recorded `to_return` once per occurrence — keyed as its fee is, nosso número, code, day —
     * and, for a title of ours, posted on the gateway's books only (payers −, payouts +: received, owed back).
     * The exception's words say whether this report recorded it or the bank repeated one recorded already.
     */
    const unapplied = (
      file: BankReturnFile,
      o: Pick<BankOccurrence, "line" | "code" | "ourNumber" | "paid" | "occurredOn">,
      title: { readonly accountId: AccountId; readonly transactionId: TransactionId } | null,
      reason: string
    ) =>
      Effect.gen(function* () {
        if (o.paid <= 0) return reason
        const id = yield* ids.next
        const recorded = yield* toReturn.record({
          id,
          accountId: title?.accountId ?? null,
          transactionId: title?.transactionId ?? null,
          ourNumber: o.ourNumber,
          code: o.code,
          occurredOn: o.occurredOn,
          amount: o.paid,
          fileNumber: file.fileNumber,
          line: o.line,
          reason
        })
        if (recorded && title !== null) {
          yield* ledger.post(
            title.accountId,
            entry(
              `boleto_payment_to_return:${id}`,
              { transactionId: title.transactionId },
              pair("boleto_payment_to_return", o.paid, `boleto payment ${o.code} not applied, owed to the payer`)
            )
          )
        }
        return `${reason}: ${recorded ? "recorded to return" : "recorded to return already"}`
      })

    /** One occurrence, in its title's account and mode; what it counts as, or why it was not applied. */
    const apply = (file: BankReturnFile, o: BankOccurrence, now: Date) =>
      Effect.gen(function* () {
        const accountId = o.accountId!
        const transactionId = o.transactionId!
        let counted: keyof typeof ZERO = "other"
        let exception: string | null = null
        switch (o.kind) {
          case "registered":
            yield* files.markTitle(accountId, transactionId, "registered", {})
            counted = "registered"
            break
          case "rejected": {
            yield* files.markTitle(accountId, transactionId, "rejected", { reasons: o.reasons })
            // The slip cannot be paid: the transaction fails as an expired one does, with the reason.
            yield* lifecycle
              .moveBy(accountId, transactionId, (t) => (t.origin === "v1" ? "cancel" : "expire"), {
                declineCode: "boleto_rejected"
              })
              .pipe(
                Effect.catchTag("IllegalTransition", (e) =>
                  Effect.sync(() => {
                    exception = `the bank rejected the title of a transaction already ${e.from}`
                  })
                )
              )
            counted = "rejected"
            break
          }
          case "paid": {
            const title = { accountId, transactionId }
            // A title the bank wrote off after its last payable day waits for its expiry (below), open only to
            // a payment made by that day: one made later is not the charge's (docs/boleto.md).
            const last = yield* lastPayableDay(accountId, transactionId)
            const state = yield* files.titleState(accountId, transactionId)
            if (
              Option.getOrNull(state) === "written_off" &&
              last !== null &&
              o.occurredOn !== null &&
              o.occurredOn > last
            ) {
              exception = yield* unapplied(
                file,
                o,
                title,
                `paid at the bank on ${o.occurredOn}, after its last payable day (${last}), written off`
              )
              break
            }
            // Settled from the credit date once it has come (a retorno read later), else from now.
            const credit = o.creditOn === null ? null : startOfDayInSaoPaulo(o.creditOn)
            const paidAt = credit !== null && credit.getTime() <= now.getTime() ? credit : now
            const occurrence = `${o.ourNumber}:${o.code}:${o.occurredOn ?? "none"}`
            /**
             * Already settled: a bolepix its PIX settled first has the slip's payment as a second one, recorded
             * to return (docs/boleto.md "Bolepix"), once per occurrence; any other title settled by a payment of
             * another day is paid twice (a second liquidation), its second payment to return; the same day is
             * the bank repeating its report, which records nothing.
             */
            const afterSettled = Effect.gen(function* () {
              const second = yield* bolepix.barcodeAfterSettled(
                accountId,
                transactionId,
                { amount: o.paid, paidAt },
                occurrence
              )
              if (second !== null) {
                if (second.id !== null) exception = "a bolepix its PIX already settled: recorded to return"
                return "alreadySettled" as const
              }
              const found = yield* transactions.find(accountId, transactionId)
              const settledOn = Option.isSome(found) ? found.value.details.payment?.paidOn : undefined
              if (settledOn !== undefined && o.occurredOn !== null && o.occurredOn !== settledOn) {
                exception = yield* unapplied(
                  file,
                  o,
                  title,
                  `paid again at the bank on ${o.occurredOn}, the title settled by its payment of ${settledOn}`
                )
              }
              return "alreadySettled" as const
            })
            counted = yield* settlement
              .markPaid(accountId, transactionId, paidAt, {
                amount: o.paid,
                paidOn: o.occurredOn,
                bank: { paid: o.paid, charges: o.charges, discount: o.discount, abatement: o.abatement }
              })
              .pipe(
                Effect.as<keyof typeof ZERO>("settled"),
                Effect.catchTag("IllegalTransition", (e) =>
                  SETTLED.has(e.from)
                    ? afterSettled
                    : Effect.map(
                        unapplied(file, o, title, `paid at the bank after the transaction ended (${e.from})`),
                        (message): keyof typeof ZERO => {
                          exception = message
                          return "other"
                        }
                      )
                )
              )
            yield* files.markTitle(accountId, transactionId, "paid", { paid: o.paid, creditOn: o.creditOn })
            break
          }
          case "written_off": {
            // Written off: the bank no longer receives it. On or before its last payable day (an early
            // write-off) that ends the charge now, as expired; after it, the charge's own expiry comes
            // BOLETO_REPORT_DAYS business days later (docs/boleto.md "When a boleto expires"), so a payment made
            // by the last payable day and reported later (17) still settles it meanwhile.
            const last = yield* lastPayableDay(accountId, transactionId)
            const day = o.occurredOn ?? saoPauloDate(now)
            if (last === null || day <= last) {
              yield* settlement
                .expire(accountId, transactionId)
                .pipe(Effect.catchTag("IllegalTransition", () => Effect.void))
            }
            yield* files.markTitle(accountId, transactionId, "written_off", { reasons: o.reasons })
            counted = "writtenOff"
            break
          }
          case "fee":
            counted = "feeOnly"
            break
          case "other":
            exception = `occurrence ${o.code} recorded; the gateway does not act on it`
            break
        }
        // The bank's fee is the gateway's cost: its books, not the merchant's (docs/providers.md). Posted once
        // per occurrence — the title's nosso número, the code, the day —, so the bank reporting the same
        // occurrence again in a later file posts nothing, and two occurrences (another code, another day) post
        // twice. A fee-only occurrence (28) is a charge in itself, each one the bank reports a debit: once per
        // line of a file. `feePostedByLine`: posted already under the key fees had before, the file's and line's.
        let fee = 0
        if (o.fee > 0 && !o.feePostedByLine) {
          const key =
            o.kind === "fee"
              ? `bank_fee:${o.ourNumber}:${o.code}:${file.fileNumber}:${o.line}`
              : `bank_fee:${o.ourNumber}:${o.code}:${o.occurredOn ?? "none"}`
          const posted = yield* ledger.post(
            accountId,
            entry(key, { transactionId }, [
              { party: SYSTEM, book: "fees", type: "bank_fee", amount: -o.fee, description: `bank fee ${o.code}` },
              { party: SYSTEM, book: "payers", type: "bank_fee", amount: o.fee, description: `bank fee ${o.code}` }
            ])
          )
          if (posted) fee = o.fee
        }
        return { counted, exception, fee }
      }).pipe(
        Effect.catchTag("NotFound", () =>
          Effect.succeed({ counted: "other" as const, exception: "transaction not found", fee: 0 })
        ),
        Tenancy.within(o.accountId!),
        Effect.provideService(Tenancy, tenancy)
      )

    /** Applies a file in sequence, inside the caller's transaction, and records it processed. */
    const process = fn("BoletoFiles.process")(function* (file: BankReturnFile, content: string, source: string) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const counts = { ...ZERO }
      const exceptions: Array<RetornoReport["exceptions"][number]> = []
      let bankFees = 0
      for (const o of file.occurrences) {
        const done = yield* apply(file, o, now)
        counts[done.counted] += 1
        bankFees += done.fee
        if (done.exception !== null) {
          exceptions.push({ line: o.line, transactionId: o.transactionId!, message: done.exception })
        }
      }
      // Paid lines of no title of ours (among the rejected lines): no tenant, no books; kept to return.
      for (const stray of file.strayPayments) {
        yield* unapplied(file, stray, null, "no title of ours has this nosso número")
      }
      const result: RetornoReport = {
        fileNumber: file.fileNumber,
        outcome: "processed",
        message: `retorno ${file.fileNumber} processed`,
        counts,
        bankFees,
        rejectedLines: file.rejected,
        exceptions,
        then: []
      }
      yield* files.recordProcessed(file, content, source, result)
      if (file.rejected.length > 0) {
        yield* Effect.logWarning(`retorno ${file.fileNumber}: ${file.rejected.length} line(s) not read`, file.rejected)
      }
      return result
    })

    /** The held file next in sequence, if any, processed in its own transaction. */
    const nextHeld = tx.run(
      Effect.gen(function* () {
        yield* files.lockReceived
        const expected = yield* files.expectedNext
        const held = yield* files.heldContent(expected)
        if (Option.isNone(held)) return Option.none<RetornoReport>()
        const file = yield* files.read(held.value).pipe(Effect.orDie)
        return Option.some(yield* process(file, held.value, "held"))
      })
    )

    /**
     * Every held file whose turn has come, each in its own transaction, in sequence. Asked at every ingestion
     * and every cycle, so a held file is never stranded by an ingestion that committed its predecessor and
     * stopped before taking it (a crash, a deploy, a failure). One that fails is logged and stays held for the
     * next time; what was processed before it stands.
     */
    const drainHeld = Effect.gen(function* () {
      const done: Array<RetornoReport> = []
      for (;;) {
        const next = yield* nextHeld.pipe(
          Effect.catchAllDefect((defect) =>
            Effect.as(Effect.logError("a held retorno could not be processed: it stays held", defect), Option.none())
          )
        )
        if (Option.isNone(next)) return done
        yield* Effect.logInfo(`retorno ${next.value.fileNumber}, held, processed`)
        done.push(next.value)
      }
    })

    const ingest = fn("BoletoFiles.ingest")(function* (content: string, source: string) {
      if (!files.configured) return report(null, "refused", "no bank by files is configured (LIVE_BOLETO_PROVIDER)")
      // Held files whose turn had come first, whatever this file turns out to be: the sequence it is taken in.
      const earlier = yield* drainHeld
      const read = yield* Effect.either(files.read(content))
      if (read._tag === "Left") return { ...report(null, "unreadable", read.left.message), then: earlier }
      const file = read.right
      const first = yield* tx.run(
        Effect.gen(function* () {
          yield* files.lockReceived
          const seen = yield* files.received(file.fileNumber)
          if (Option.isSome(seen)) {
            return seen.value.digest === file.digest
              ? report(
                  file.fileNumber,
                  "duplicate",
                  `retorno ${file.fileNumber} was already received (${seen.value.status}): nothing changed`
                )
              : report(file.fileNumber, "refused", `retorno number ${file.fileNumber} was already used by another file`)
          }
          const expected = yield* files.expectedNext
          if (file.fileNumber < expected) {
            return report(
              file.fileNumber,
              "refused",
              `retorno ${file.fileNumber} is behind the sequence (next expected: ${expected})`
            )
          }
          if (file.fileNumber > expected) {
            yield* files.hold(file, content, source)
            yield* Effect.logWarning(`retorno ${file.fileNumber} held: retorno ${expected} has not arrived`)
            return report(
              file.fileNumber,
              "held",
              `retorno ${file.fileNumber} held until retorno ${expected} arrives`,
              file.rejected
            )
          }
          return yield* process(file, content, source)
        })
      )
      const later = first.outcome === "processed" ? yield* drainHeld : []
      return { ...first, then: [...earlier, ...later] }
    })

    return {
      ingest,
      /** The operator's list (`npm run cli -- boleto returns`): every boleto payment not applied, not yet returned. */
      openReturns: (limit: number) => toReturn.open(limit),
      /**
       * The operator gave one back by hand (a bank transfer to the payer: docs/boleto.md "Payments the gateway
       * does not apply"): closed, with its return posting for a title of ours, once. Already returned: nothing
       * again. Under its row lock, so two operators closing it at once post once.
       */
      returnedByHand: fn("BoletoFiles.returnedByHand")(function* (id: string) {
        return yield* tx.run(
          Effect.gen(function* () {
            const found = yield* toReturn.findForUpdate(id)
            if (Option.isNone(found)) return { outcome: "unknown" as const }
            const payment = found.value
            if (payment.status === "returned") return { outcome: "already_returned" as const, payment }
            yield* toReturn.setReturned(payment.id)
            if (payment.accountId !== null) {
              yield* ledger.post(
                payment.accountId,
                entry(
                  `boleto_payment_returned:${payment.id}`,
                  { transactionId: payment.transactionId },
                  pair(
                    "boleto_payment_returned",
                    -payment.amount,
                    `boleto payment ${payment.code} returned to the payer`
                  )
                )
              )
            }
            const closed = yield* toReturn.findForUpdate(id)
            return { outcome: "returned" as const, payment: Option.getOrElse(closed, () => payment) }
          })
        )
      }),
      /** Cuts one remessa now (the CLI), whatever the cycle: None when no title is queued. */
      remessa: fn("BoletoFiles.remessa")(function* () {
        return yield* files.cutRemessa
      }),
      /**
       * One run of the cycle job: the watched directory's files ingested and moved aside (`processed/`,
       * `held/` — kept in the database and processed from there —, `refused/`), the held files whose turn has
       * come processed (also with no file in the directory), then a remessa when the last is a cycle old. The
       * next run is scheduled first, so a failed run does not stop the cycle.
       */
      cycle: fn("BoletoFiles.cycle")(function* () {
        if (!files.configured) return
        const now = yield* Clock.currentTimeMillis
        yield* scheduler.bankFilesCycleAt(new Date(now + Math.min(files.cycle.pollEveryMs, files.cycle.remessaEveryMs)))
        for (const watched of yield* files.watched) {
          const result = yield* ingest(watched.content, `directory:${watched.name}`)
          const to =
            result.outcome === "processed" || result.outcome === "duplicate"
              ? "processed"
              : result.outcome === "held"
                ? "held"
                : "refused"
          if (to === "refused") yield* Effect.logError(`retorno ${watched.name} refused: ${result.message}`)
          yield* files.moveAside(watched.name, to)
        }
        yield* drainHeld
        if (yield* files.remessaDue) yield* files.cutRemessa
      }),
      /** At a worker's start: the cycle job exists (one for all workers). */
      start: Effect.suspend(() => (files.configured ? scheduler.bankFilesCycleSoon : Effect.void))
    }
  })
}) {}
