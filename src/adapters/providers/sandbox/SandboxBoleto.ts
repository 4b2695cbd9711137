import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { ProviderUnavailable } from "../../../domain/errors.ts"
import { OUTAGE_AMOUNT } from "./testCards.ts"
import { buildBarcode, digitableLineFromBarcode, mod10 } from "../../../domain/boleto.ts"
import { AppConfig } from "../../../config/AppConfig.ts"
import {
  BoletoProvider,
  type BoletoRequest,
  type BoletoSettlement,
  SandboxBank
} from "../../../ports/BoletoProvider.ts"
import { fn, withSpan } from "../../../spans.ts"

// The sandbox bank. "999" stands for no real bank, so its slips imitate no one's; they are nonetheless
// valid FEBRABAN barcodes and digitable lines.

export const SANDBOX_BANK_CODE = "999"
export const SANDBOX_BANK_NAME = "Banco Sandbox"
/** The sandbox's one branch ("agência"), the first 4 digits of the free field. */
const AGENCY = "0001"

/**
 * "Nosso número": the first 16 hex digits of the transaction's UUID (64 bits, ~60 of them random in a v4)
 * as 20 decimal digits, so a retry registers the same number.
 */
export const ourNumberOf = (transactionId: string): string => {
  const hex = transactionId.replace(/-/g, "").slice(0, 16)
  if (!/^[0-9a-fA-F]{16}$/.test(hex)) throw new RangeError("transaction id must be a UUID")
  return BigInt(`0x${hex}`).toString().padStart(20, "0")
}

/** Free field (25): agency (4) + nosso número (20) + a mod-10 check digit of the nosso número (1). */
const register = (request: BoletoRequest) => {
  const ourNumber = ourNumberOf(request.transactionId)
  const barcode = buildBarcode({
    bankCode: SANDBOX_BANK_CODE,
    dueDate: request.dueDate,
    amountCents: request.amount,
    freeField: AGENCY + ourNumber + mod10(ourNumber)
  })
  return {
    bankCode: SANDBOX_BANK_CODE,
    bankName: SANDBOX_BANK_NAME,
    barcode,
    digitableLine: digitableLineFromBarcode(barcode),
    ourNumber
  }
}

export const SandboxBoletoLive = Layer.effectContext(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { boletoConfirmationDelaySeconds } = yield* AppConfig

    const provider = BoletoProvider.of({
      // The inputs were validated by the API; a throw here is a defect.
      register: (request) =>
        (request.amount === OUTAGE_AMOUNT
          ? Effect.fail(
              new ProviderUnavailable({
                provider: "boleto",
                message: "the bank is unavailable; retry later",
                retryAfterSeconds: 30
              })
            )
          : Effect.sync(() => register(request))
        ).pipe(withSpan("SandboxBoleto.register")),
      // A slip counts as settled once the delay has passed on the database's clock, the one every process shares.
      settlements: fn("SandboxBoleto.settlements")(function* (transactionIds: ReadonlyArray<string>) {
        if (transactionIds.length === 0) return []
        return yield* sql<BoletoSettlement>`
          select transaction_id, amount, paid_at, to_char(paid_on, 'YYYY-MM-DD') as paid_on
          from sandbox_boleto_payments
          where ${sql.in("transaction_id", transactionIds)}
            and paid_at <= now() - make_interval(secs => ${boletoConfirmationDelaySeconds})`.pipe(Effect.orDie)
      })
    })

    const bank = SandboxBank.of({
      // Paying twice keeps the first payment, as a bank would refuse a second one of the same slip.
      pay: fn("SandboxBank.pay")(function* (transactionId: string, amount: number, paidOn?: string) {
        yield* sql`
          insert into sandbox_boleto_payments (transaction_id, amount, paid_on)
          values (${transactionId}, ${amount}, ${paidOn ?? null})
          on conflict (transaction_id) do nothing`.pipe(Effect.orDie)
      }),
      holdsPaymentOf: fn("SandboxBank.holdsPaymentOf")(function* (transactionId: string) {
        const rows = yield* sql`
          select 1 from sandbox_boleto_payments where transaction_id = ${transactionId}`.pipe(Effect.orDie)
        return rows.length > 0
      })
    })

    return Context.make(BoletoProvider, provider).pipe(Context.add(SandboxBank, bank))
  })
)
