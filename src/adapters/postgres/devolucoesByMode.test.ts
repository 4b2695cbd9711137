import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { migratedDatabase } from "../../../test/support/databaseLayer.ts"
import { RefundId } from "../../domain/ids.ts"
import { RefundRepo } from "../../ports/RefundRepo.ts"
import { SecondPaymentRepo } from "../../ports/SecondPaymentRepo.ts"
import { RefundRepoLive } from "./RefundRepoLive.ts"
import { SecondPaymentRepoLive } from "./SecondPaymentRepoLive.ts"

/**
 * A PSP's notice names a devolução by its id alone, with no account: the refund or bolepix second payment it
 * concludes is looked up in whichever account, but only among the tenants of the notice's mode (every query is
 * scoped by mode, docs/decisions.md "Test and live modes"), so a live PSP never concludes a test tenant's
 * refund, nor the sandbox a live one's.
 */
const Database = migratedDatabase()

layer(Layer.mergeAll(RefundRepoLive, SecondPaymentRepoLive).pipe(Layer.provideMerge(Database)))(
  "a devolução the PSP reports, found only in its mode",
  (it) => {
    it.effect("a test tenant's pending PIX refund and returning second payment are not the live PSP's", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const merchant = randomUUID()
        const live = randomUUID()
        yield* sql`insert into accounts (id, name, email, password_hash)
          values (${merchant}, 'Loja', ${`${merchant}@example.com`}, 'x')`
        yield* sql`insert into accounts (id, name, email, password_hash, mode, owner_id)
          values (${live}, 'Loja', ${`${live}@example.com`}, 'x', 'live', ${merchant})`
        const refunds = yield* RefundRepo
        const seconds = yield* SecondPaymentRepo
        for (const [accountId, mode, other] of [
          [merchant, "test", "live"],
          [live, "live", "test"]
        ] as const) {
          const transactionId = randomUUID()
          yield* sql`insert into transactions (id, account_id, origin, method, amount, status)
            values (${transactionId}, ${accountId}, 'v1', 'PIX', 1000, 'PAID')`
          const refundId = RefundId.make(randomUUID())
          yield* sql`insert into refunds (id, account_id, transaction_id, amount, reason, status)
            values (${refundId}, ${accountId}, ${transactionId}, 400, 'x', 'PENDING')`
          const secondId = randomUUID()
          yield* sql`insert into bolepix_second_payments
              (id, account_id, transaction_id, rail, reference, amount, paid_at, status)
            values (${secondId}, ${accountId}, ${transactionId}, 'pix', ${randomUUID()}, 1000, now(), 'returning')`

          expect((yield* refunds.findPendingPix(refundId, mode))?.accountId).toBe(accountId)
          expect(yield* refunds.findPendingPix(refundId, other)).toBeUndefined()
          expect(Option.map(yield* seconds.findReturning(secondId, mode), (s) => s.accountId)).toEqual(
            Option.some(accountId)
          )
          expect(Option.isNone(yield* seconds.findReturning(secondId, other))).toBe(true)
        }
      })
    )
  }
)
