import { randomUUID } from "node:crypto"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createMigratedTestDatabase } from "../../../../test/support/database.ts"
import { testConfig } from "../../../../test/support/server.ts"
import { AppConfig, AppConfigFrom } from "../../../config/AppConfig.ts"
import {
  barcodeFromDigitableLine,
  dueDateFactor,
  isValidBarcode,
  isValidDigitableLine
} from "../../../domain/boleto.ts"
import { BoletoProvider, type BoletoRequest, SandboxBank } from "../../../ports/BoletoProvider.ts"
import { makePool, PgPool, SqlLive } from "../../postgres/Database.ts"
import { MigrationsLive } from "../../postgres/Migrations.ts"
import { SandboxBoletoLive } from "./SandboxBoleto.ts"

// A fresh, migrated database for this file.
const Database = Layer.unwrapEffect(
  Effect.promise(async () => {
    const url = await createMigratedTestDatabase()
    const config = await testConfig(url)
    return MigrationsLive.pipe(
      Layer.provideMerge(SqlLive),
      Layer.provideMerge(Layer.scoped(PgPool, makePool(url, 4))),
      Layer.provideMerge(AppConfigFrom(config)),
      Layer.provide(NodeContext.layer)
    )
  })
)

/** Runs `body` against the sandbox bank configured with the given BOLETO_CONFIRMATION_DELAY_SECONDS. */
const withDelay = <A, E, R>(seconds: number, body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(AppConfig, (config) =>
    body.pipe(
      Effect.provide(
        SandboxBoletoLive.pipe(Layer.provide(AppConfigFrom({ ...config, boletoConfirmationDelaySeconds: seconds })))
      )
    )
  )

const request = (overrides: Partial<BoletoRequest> = {}): BoletoRequest => ({
  accountId: randomUUID(),
  transactionId: randomUUID(),
  amount: 12_345,
  dueDate: "2026-12-01",
  lastPayableDay: "2026-12-01",
  payerName: "Maria da Silva",
  payerDocument: "52998224725",
  ...overrides
})

const register = (r: BoletoRequest) =>
  withDelay(
    0,
    Effect.flatMap(BoletoProvider, (p) => p.register(r))
  )
const pay = (id: string, amount: number) =>
  withDelay(
    0,
    Effect.flatMap(SandboxBank, (b) => b.pay(id, amount))
  )
const settlements = (seconds: number, ids: ReadonlyArray<string>) =>
  withDelay(
    seconds,
    Effect.flatMap(BoletoProvider, (p) => p.settlements(ids))
  )

layer(Database, { timeout: 60_000 })("SandboxBoleto", (it) => {
  it.effect("registers a valid FEBRABAN slip of bank 999 with the due date factor and amount", () =>
    Effect.gen(function* () {
      const slip = yield* register(request())
      expect(slip.bankCode).toBe("999")
      expect(slip.bankName).toBe("Banco Sandbox")
      expect(isValidBarcode(slip.barcode)).toBe(true)
      expect(isValidDigitableLine(slip.digitableLine)).toBe(true)
      expect(barcodeFromDigitableLine(slip.digitableLine)).toBe(slip.barcode)
      expect(slip.barcode.slice(0, 4)).toBe("9999")
      expect(slip.barcode.slice(5, 9)).toBe(String(dueDateFactor("2026-12-01")))
      expect(slip.barcode.slice(9, 19)).toBe("0000012345")
      expect(slip.ourNumber).toMatch(/^\d{20}$/)
      expect(slip.barcode.slice(19)).toContain(slip.ourNumber)
    })
  )

  it.effect("derives the same slip for the same transaction and distinct ones for others", () =>
    Effect.gen(function* () {
      const r = request({ transactionId: "00000000-0000-4000-8000-000000000001" })
      const once = yield* register(r)
      expect(yield* register(r)).toEqual(once)
      expect(once.ourNumber).toBe("00000000000000016384") // 0x0000000000004000
      const other = yield* register(request())
      expect(other.ourNumber).not.toBe(once.ourNumber)
    })
  )

  it.effect("settles a paid slip at once with no delay, and only the paid ones", () =>
    Effect.gen(function* () {
      const paid = randomUUID()
      const unpaid = randomUUID()
      expect(yield* settlements(0, [])).toEqual([])
      yield* pay(paid, 400)
      const settled = yield* settlements(0, [paid, unpaid])
      expect(settled).toEqual([{ transactionId: paid, amount: 400, paidAt: expect.any(Date), paidOn: null }])
    })
  )

  it.effect("waits for the confirmation delay on the database clock", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const id = randomUUID()
      yield* pay(id, 400)
      expect(yield* settlements(60, [id])).toEqual([])
      yield* sql`update sandbox_boleto_payments set paid_at = now() - interval '61 seconds' where
        transaction_id = ${id}`
      expect((yield* settlements(60, [id])).map((s) => s.transactionId)).toEqual([id])
    })
  )

  it.effect("keeps the first payment when a slip is paid twice", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const id = randomUUID()
      yield* pay(id, 400)
      yield* pay(id, 999)
      const rows = yield* sql<{
        amount: number
      }>`select amount from sandbox_boleto_payments where transaction_id = ${id}`
      expect(rows).toEqual([{ amount: 400 }])
    })
  )
})
