import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { OperatorQueueReads, type Waiting } from "../../ports/OperatorQueue.ts"
import { WAITING } from "./ReceivedPixRepoLive.ts"
import { traced } from "./traced.ts"
import { UNDECIDED_REFUND_AGE } from "./undecidedRefund.ts"
import { UNDECIDED_CHARGE_AGE } from "./UndecidedChargesLive.ts"

const PixState = Schema.Literal("amount_mismatch", "unknown_charge", "not_payable")
type PixState = typeof PixState.Type
const SecondState = Schema.Literal("to_return", "returning")
type SecondState = typeof SecondState.Type
const counted = { count: Schema.Number, age: Schema.Number }
const Row = Schema.Union(
  Schema.Struct({ source: Schema.Literal("pix"), state: PixState, ...counted }),
  Schema.Struct({ source: Schema.Literal("second"), state: SecondState, ...counted }),
  Schema.Struct({ source: Schema.Literal("retorno"), state: Schema.Literal("held"), ...counted }),
  Schema.Struct({ source: Schema.Literal("boleto"), state: Schema.Literal("to_return"), ...counted }),
  Schema.Struct({ source: Schema.Literal("charge"), state: Schema.Literal("PROCESSING"), ...counted }),
  Schema.Struct({ source: Schema.Literal("refund"), state: Schema.Literal("CARD", "PIX"), ...counted })
)

/**
 * One statement of small reads, each on its partial index (pix_received_exceptions,
 * bolepix_second_payments_open, boleto_payments_to_return_open, refunds_pending) or a table of a few rows a day
 * (cnab_retornos). A card or PIX
 * refund counts once it has been PENDING for five minutes: before that it may be a request still waiting for its
 * provider; after it, a card refund's request has long given up and only an operator can conclude it, and a PIX
 * refund's PSP is slow or away (`reconcile_pix` keeps asking). A card charge counts once it has been
 * PROCESSING, worked on by no request, for as long (UNDECIDED_CHARGE_AGE, on the partial index
 * transactions_processing): its outcome is unknown and `reconcile_charges` has not learnt it.
 */
export const OperatorQueueReadsLive = Layer.effect(
  OperatorQueueReads,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return OperatorQueueReads.of(
      traced("OperatorQueueReads", {
        waiting: sql`
          select 'pix' as source, outcome as state, count(*)::int as count,
                 extract(epoch from now() - min(received_at))::float8 as age
          from pix_received where ${sql.literal(WAITING)}
          group by outcome
          union all
          select 'second', status, count(*)::int, extract(epoch from now() - min(created_at))::float8
          from bolepix_second_payments where status <> 'returned' group by status
          union all
          select 'boleto', status, count(*)::int, extract(epoch from now() - min(created_at))::float8
          from boleto_payments_to_return where status = 'to_return' group by status
          union all
          select 'retorno', 'held', count(*)::int, coalesce(extract(epoch from now() - min(received_at)), 0)::float8
          from cnab_retornos where status = 'held'
          union all
          select 'charge', status, count(*)::int, extract(epoch from now() - min(updated_at))::float8
          from transactions
          where status = 'PROCESSING' and method = 'CARD' and updated_at < now() - ${sql.literal(UNDECIDED_CHARGE_AGE)}
          group by status
          union all
          select 'refund', t.method, count(*)::int, extract(epoch from now() - min(r.created_at))::float8
          from refunds r join transactions t on t.id = r.transaction_id and t.account_id = r.account_id
          where r.status = 'PENDING' and r.created_at < now() - ${sql.literal(UNDECIDED_REFUND_AGE)}
            and t.method in ('CARD', 'PIX')
          group by t.method`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Row))),
          Effect.orDie,
          Effect.map((rows) => {
            const waiting = (r: { readonly count: number; readonly age: number }) => ({
              count: r.count,
              oldestAgeSeconds: Math.max(0, r.age)
            })
            const pixReceived: Array<Waiting & { readonly outcome: PixState }> = []
            const secondPayments: Array<Waiting & { readonly status: SecondState }> = []
            let heldRetornos: Waiting = { count: 0, oldestAgeSeconds: 0 }
            let boletoPaymentsToReturn: Waiting = { count: 0, oldestAgeSeconds: 0 }
            let cardCharges: Waiting = { count: 0, oldestAgeSeconds: 0 }
            let cardRefunds: Waiting = { count: 0, oldestAgeSeconds: 0 }
            let pixRefunds: Waiting = { count: 0, oldestAgeSeconds: 0 }
            for (const r of rows) {
              if (r.source === "pix") pixReceived.push({ ...waiting(r), outcome: r.state })
              else if (r.source === "second") secondPayments.push({ ...waiting(r), status: r.state })
              else if (r.source === "retorno") heldRetornos = waiting(r)
              else if (r.source === "boleto") boletoPaymentsToReturn = waiting(r)
              else if (r.source === "charge") cardCharges = waiting(r)
              else if (r.state === "CARD") cardRefunds = waiting(r)
              else pixRefunds = waiting(r)
            }
            return {
              pixReceived,
              secondPayments,
              boletoPaymentsToReturn,
              heldRetornos,
              cardCharges,
              cardRefunds,
              pixRefunds
            }
          })
        )
      })
    )
  })
)
