import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeCertificates, type PixTestCertificates } from "./fakes/pix/certs.ts"
import { type FakePsp, gatewayEnv, startFakePsp } from "./fakes/pix/server.ts"
import { freePort } from "./support/config.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, liveMerchant } from "./support/http.ts"
import { chargePix, type Merchant, transaction, until } from "./support/payments-fixtures.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"
import { checkLedger } from "./support/ledger-check.ts"

/**
 * A PIX charge whose expiry finds it paid at the PSP (the withdrawal refused: CONCLUIDA) while the PSP lists
 * no payment under it (`CobCompleta.pix` is optional in the API Pix) and its notice was lost: the expiry does
 * not make it FAILED — the buyer paid — but waits, and the payment, once listed, settles it (src/app/
 * Settlement.ts `withdrawPix`).
 */
let certs: PixTestCertificates
let psp: FakePsp
let gateway: RoleProcess | undefined
let merchant: Merchant
let db: pg.Pool
let databaseUrl: string

beforeAll(async () => {
  certs = makeCertificates()
  psp = await startFakePsp({ profile: "efi", certificates: certs })
  const webhookPort = await freePort()
  databaseUrl = await createTestDatabase()
  const env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64"),
    RATE_LIMIT_PER_MINUTE: "100000",
    ...gatewayEnv(psp, certs, { PIX_TIMEOUT_MS: "5000" }),
    PIX_WEBHOOK_PORT: String(webhookPort),
    PIX_WEBHOOK_HOST: "127.0.0.1",
    PIX_WEBHOOK_TLS_CERT_FILE: certs.files.serverCert,
    PIX_WEBHOOK_TLS_KEY_FILE: certs.files.serverKey,
    PIX_WEBHOOK_CA_FILE: certs.files.caCert,
    PIX_WEBHOOK_URL: `https://127.0.0.1:${webhookPort}/providers/pix/efi/webhook`
  }
  gateway = await spawnRole("all", env, { readyTimeoutMs: 90_000 })
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  const api = client(gateway.baseUrl)
  const m = await liveMerchant(api, "Loja Lista Atrasada")
  const tenant = await db.query<{ id: string }>("select id from accounts where owner_id = $1 and mode = 'live'", [
    m.accountId
  ])
  merchant = { api, key: m.key, accountId: tenant.rows[0]!.id }
}, 150_000)

afterAll(async () => {
  await stopAll([gateway])
  await psp?.close()
  await db?.end()
})

describe("a PIX charge paid at the PSP that lists no payment under it", () => {
  it("is not expired FAILED by its expiry job; the payment, once listed, settles it", async () => {
    const c = await chargePix(merchant, 4_321)
    const txid = c.transactionId.replace(/-/g, "")
    // Paid: its notice lost, out of GET /pix for now, and not listed under its charge.
    const e2e = await psp.pay(txid, { notify: false, listed: false, inCob: false })
    await db.query("select graphile_worker.add_job('expire_transaction', $1::json)", [
      JSON.stringify({ accountId: merchant.accountId, transactionId: c.transactionId })
    ])
    // The expiry job asks the PSP (PATCH refused: CONCLUIDA, read back by GET /cob) and fails, to be retried.
    await until(
      "the expiry job tried",
      async () => {
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from graphile_worker.jobs
           where task_identifier = 'expire_transaction' and attempts > 0`
        )
        return rows[0]!.n > 0 ? true : undefined
      },
      30_000,
      200
    )
    expect((await transaction(merchant, c.transactionId)).status).toBe("PENDING")
    // The PSP lists it now: the payment's notice (here its retry) settles the sale.
    await psp.renotify(e2e)
    await until(
      "the charge settled",
      async () => ((await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined),
      30_000,
      300
    )
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 120_000)
})
