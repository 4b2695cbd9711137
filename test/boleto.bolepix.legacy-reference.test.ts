import { randomUUID } from "node:crypto"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makePool, PgPool, SqlLive } from "../src/adapters/postgres/Database.ts"
import { SecondPaymentRepoLive } from "../src/adapters/postgres/SecondPaymentRepoLive.ts"
import type { AccountId, TransactionId } from "../src/domain/ids.ts"
import { SecondPaymentRepo } from "../src/ports/SecondPaymentRepo.ts"
import { client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A bolepix slip payment recorded before migration 0055 under the fixed reference `barcode` (one per slip)
 * is renamed by the retorno occurrence that reports it again (the same amount, the same São Paulo day), and
 * only by that one: a liquidation of another day is a second payment of its own, to return
 * (SecondPaymentRepoLive.record; docs/boleto.md "Bolepix").
 */
let server: TestServer
let runtime: ManagedRuntime.ManagedRuntime<SecondPaymentRepo, never>
let accountId: AccountId
let transactionId: TransactionId

beforeAll(async () => {
  server = await startTestServer()
  const api = client(server.baseUrl)
  const merchant = await signup(api, "Loja Legado")
  const r = await api.post(
    "/public/v1/transactions",
    {
      method: "billet",
      amount: 10_000,
      customer: { name: "Beatriz Souza", email: "bia@example.com", document: "11.222.333/0001-81" }
    },
    { token: merchant.key }
  )
  expect(r.status, r.text).toBe(201)
  accountId = merchant.accountId as AccountId
  transactionId = (
    await server.db.query<{ id: string }>("select id from transactions where account_id = $1", [accountId])
  ).rows[0]!.id as TransactionId
  runtime = ManagedRuntime.make(
    SecondPaymentRepoLive.pipe(
      Layer.provide(SqlLive),
      Layer.provide(Layer.scoped(PgPool, makePool(server.databaseUrl, 2)))
    ) as Layer.Layer<SecondPaymentRepo>
  )
}, 120_000)

afterAll(async () => {
  await runtime?.dispose()
  await server?.close()
})

const record = (reference: string, paidAt: Date) =>
  runtime.runPromise(
    Effect.flatMap(SecondPaymentRepo, (repo) =>
      repo.record(accountId, {
        id: randomUUID(),
        transactionId,
        rail: "barcode",
        reference,
        amount: 10_000,
        paidAt,
        status: "to_return"
      })
    )
  )

describe("a legacy 'barcode' second payment meets a retorno occurrence of another day", () => {
  it("records the other day's liquidation as its own payment, and the repeat of the first as nothing", async () => {
    const d1 = new Date("2026-11-20T15:00:00Z")
    const d2 = new Date("2026-11-25T15:00:00Z")
    // Recorded before migration 0055 by retorno N: the slip paid on 2026-11-20.
    await server.db.query(
      `insert into bolepix_second_payments (id, account_id, transaction_id, rail, reference, amount, paid_at, status)
       values ($1, $2, $3, 'barcode', 'barcode', 10000, $4, 'to_return')`,
      [randomUUID(), accountId, transactionId, d1]
    )
    // After the upgrade the bank reports another liquidation of the slip, on 2026-11-25: a second payment.
    const second = await record("00000000000000000001:06:2026-11-25", d2)
    // Then it repeats its report of 2026-11-20 (the legacy row's payment): that row, renamed; nothing new.
    const repeat = await record("00000000000000000001:06:2026-11-20", d1)
    const rows = (
      await server.db.query<{ reference: string; paid_at: Date }>(
        "select reference, paid_at from bolepix_second_payments where transaction_id = $1 order by paid_at",
        [transactionId]
      )
    ).rows
    expect({ second, repeat }).toEqual({ second: true, repeat: false })
    expect(rows.map((r) => [r.reference, r.paid_at.toISOString()])).toEqual([
      ["00000000000000000001:06:2026-11-20", d1.toISOString()],
      ["00000000000000000001:06:2026-11-25", d2.toISOString()]
    ])
  }, 60_000)
})
