/**
 * A PIX refund the PSP has not decided (EM_PROCESSAMENTO, or the PSP unreachable) stays PENDING with its
 * money reserved on purpose (docs/providers.md "Refunds": "A PSP that does not answer is not a refusal … concluded
 * by the PSP's notice or by reconcile_pix"). Such a refund is no imbalance of the books; the books check
 * (ledger check CLI, the hourly job and its ledger_imbalance_centavos alert) does not report it; past five
 * minutes the operator queue counts it (`operator_queue{kind="pix_refund_undecided"}`, docs/operations.md).
 */
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
  const m = await liveMerchant(api, "Loja Devolucao Lenta")
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

describe("a PIX refund the PSP has not decided yet", () => {
  it("is not reported as a books discrepancy while it waits for the PSP's word", async () => {
    const c = await chargePix(merchant, 10_000)
    await psp.pay(c.transactionId.replace(/-/g, ""))
    await until("PAID", async () =>
      (await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined
    )
    const reply = await merchant.api.post(
      "/api/payment-gateway/refund",
      { transactionId: c.transactionId, amount: 4_000 },
      { key: merchant.key }
    )
    // Accepted, EM_PROCESSAMENTO past the wait: 200, PENDING, the money reserved (docs/providers.md "Refunds").
    expect(reply.status, reply.text).toBe(200)
    const rows = await db.query<{ id: string; status: string }>(
      "select id, status from refunds where transaction_id = $1",
      [c.transactionId]
    )
    expect(rows.rows.map((r) => r.status)).toEqual(["PENDING"])
    expect(await checkLedger(databaseUrl)).toEqual([])
    // The PSP has still not decided six minutes later (the SPI slow, or the PSP down: reconcile_pix keeps asking).
    // Time passing is simulated by moving the refund's creation back; nothing else is touched.
    await db.query("update refunds set created_at = created_at - interval '6 minutes' where id = $1", [
      rows.rows[0]!.id
    ])
    // The books are exactly as before: the refund's money taken and reserved, its postings written.
    expect(await checkLedger(databaseUrl)).toEqual([])
    // And an operator sees it waiting.
    const metrics = await (await fetch(gateway!.metricsUrl)).text()
    expect(Number(/^operator_queue\{kind="pix_refund_undecided"\} (\d+)/m.exec(metrics)?.[1])).toBe(1)
  }, 90_000)
})
