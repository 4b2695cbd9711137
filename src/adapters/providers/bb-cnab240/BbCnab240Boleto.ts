import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { buildBarcode, digitableLineFromBarcode } from "../../../domain/boleto.ts"
import { daysBetween } from "../../../domain/calendar.ts"
import { saoPauloDate } from "../../../domain/time.ts"
import { BoletoProvider, type BoletoRequest } from "../../../ports/BoletoProvider.ts"
import { fn } from "../../../spans.ts"
import { cnabConfig } from "./config.ts"
import { type Agreement, BANCO_DO_BRASIL, type BankProfile } from "./profile.ts"

/**
 * The barcode's free field for a 7-digit convênio (Banco do Brasil): six zeros, the 17-digit nosso
 * número (convênio + sequence) and the wallet. Computed here: the bank learns of the title by the
 * remessa, and its slip is payable once the bank registers it (occurrence 02).
 */
export const freeFieldOf = (agreement: Agreement, ourNumber: string) =>
  `000000${ourNumber}${agreement.wallet.padStart(2, "0")}`

/**
 * The BoletoProvider of a bank by CNAB 240 files (docs/providers.md "Boleto: banks by CNAB 240"):
 * `register` numbers the title, computes its barcode and digitable line from the bank profile and
 * queues it, with the terms it registers, for the next remessa (`cnab_titles`). A retry for the same
 * transaction returns the same title. What the bank paid comes back by retorno (BankFiles), not by
 * `settlements`, which has nothing to add.
 */
export const bbCnab240BoletoLayer = (profile: BankProfile) =>
  Layer.effect(
    BoletoProvider,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const config = yield* cnabConfig
      const agreement = config.agreement

      const ourNumberOf = (request: BoletoRequest) =>
        sql<{ ourNumber: string }>`
          select our_number from cnab_titles
          where account_id = ${request.accountId} and transaction_id = ${request.transactionId}`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows[0]?.ourNumber)
        )

      const register = fn("BbCnab240.register")(function* (request: BoletoRequest) {
        // The bank writes the title off the given number of calendar days after its due date (FEBRABAN 240,
        // segment P "Número de dias para baixa/devolução"): the days to the last day the slip says it may be
        // paid (docs/boleto.md). BOLETO_LATE_DAYS alone, counted by the bank from a due date on a closed day,
        // wrote it off up to four days before that printed day (Carnival); 0 without terms refused the next
        // business day's payment that a due date on a weekend allows without charges.
        const writeOffDays = daysBetween(request.dueDate, request.lastPayableDay)
        let ourNumber = yield* ourNumberOf(request)
        if (ourNumber === undefined) {
          const [next] = yield* sql<{ sequence: string }>`select nextval('cnab_our_number')::text as sequence`.pipe(
            Effect.orDie
          )
          const sequence = Number(next!.sequence)
          // Two registrations of one transaction at once (a retried job beside its first attempt): the first
          // insert wins; the other inserts nothing, waits for it, and reads the winner's title in a statement of
          // its own (its snapshot, taken after the wait, sees the row; this one's could not). Its number is left
          // unused, a gap as a rolled-back nextval leaves. No conflict target: the title is unique by its primary
          // key and by cnab_titles_transaction (0029), and a target naming one left the other to fail the loser
          // with a unique violation when both inserts met there first (the kit's race, 1 in a few hundred).
          const [made] = yield* sql<{ ourNumber: string }>`
            insert into cnab_titles (account_id, transaction_id, our_number, sequence, amount, due_date, issued_on,
                                     payer_name, payer_document, terms, write_off_days)
            values (${request.accountId}, ${request.transactionId}, ${profile.ourNumber(agreement, sequence)},
                    ${sequence}, ${request.amount}, ${request.dueDate}, ${saoPauloDate(new Date())},
                    ${request.payerName}, ${request.payerDocument},
                    ${request.terms === undefined ? null : JSON.stringify(request.terms)}::jsonb,
                    ${writeOffDays})
            on conflict do nothing
            returning our_number`.pipe(Effect.orDie)
          ourNumber = made?.ourNumber ?? (yield* ourNumberOf(request))
        }
        // Inserted, or found after the insert met another's committed row: never neither.
        if (ourNumber === undefined) return yield* Effect.dieMessage("cnab_titles: the conflicting title is not there")
        const barcode = buildBarcode({
          bankCode: profile.bankCode,
          dueDate: request.dueDate,
          amountCents: request.amount,
          freeField: freeFieldOf(agreement, ourNumber)
        })
        return {
          bankCode: profile.bankCode,
          bankName: profile.bankName,
          barcode,
          digitableLine: digitableLineFromBarcode(barcode),
          ourNumber
        }
      })

      return BoletoProvider.of({ register, settlements: () => Effect.succeed([]) })
    })
  )

export const BbCnab240BoletoLive = bbCnab240BoletoLayer(BANCO_DO_BRASIL)
