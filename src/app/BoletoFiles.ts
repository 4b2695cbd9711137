import { Clock, Effect, Option } from "effect"
import { entry, SYSTEM } from "../domain/ledger.ts"
import { startOfDayInSaoPaulo } from "../domain/time.ts"
import { BankFiles, type BankOccurrence, type BankReturnFile } from "../ports/BankFiles.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { Ledger } from "../ports/Ledger.ts"
import { Tenancy } from "../ports/Modes.ts"
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
            // Settled from the credit date once it has come (a retorno read later), else from now.
            const credit = o.creditOn === null ? null : startOfDayInSaoPaulo(o.creditOn)
            const paidAt = credit !== null && credit.getTime() <= now.getTime() ? credit : now
            yield* settlement
              .markPaid(accountId, transactionId, paidAt, {
                amount: o.paid,
                paidOn: o.occurredOn,
                bank: { paid: o.paid, charges: o.charges, discount: o.discount, abatement: o.abatement }
              })
              .pipe(
                Effect.as<keyof typeof ZERO>("settled"),
                Effect.catchTag("IllegalTransition", (e) =>
                  SETTLED.has(e.from)
                    ? // A bolepix its PIX settled first: the slip's payment is a second one, recorded to
                      // return (docs/boleto.md "Bolepix"); the bank repeating its own report records nothing.
                      bolepix.barcodeAfterSettled(accountId, transactionId, { amount: o.paid, paidAt }).pipe(
                        Effect.map((second): keyof typeof ZERO => {
                          if (second !== null) exception = "a bolepix its PIX already settled: recorded to return"
                          return "alreadySettled"
                        })
                      )
                    : Effect.sync((): keyof typeof ZERO => {
                        exception = `paid at the bank after the transaction ended (${e.from}): to be returned`
                        return "other"
                      })
                ),
                Effect.tap((c) => Effect.sync(() => void (counted = c)))
              )
            yield* files.markTitle(accountId, transactionId, "paid", { paid: o.paid, creditOn: o.creditOn })
            break
          }
          case "written_off":
            // Written off: the bank no longer receives it, which is what our own deadline does (docs).
            yield* settlement
              .expire(accountId, transactionId)
              .pipe(Effect.catchTag("IllegalTransition", () => Effect.void))
            yield* files.markTitle(accountId, transactionId, "written_off", { reasons: o.reasons })
            counted = "writtenOff"
            break
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
