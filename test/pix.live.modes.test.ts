/**
 * A live PSP's payment notice pays live charges only (PixInbox, ReceivedPixRepoLive.chargeOf). A real PIX
 * paid to the gateway's live key can carry the txid of a TEST-mode charge (a static BR Code anyone can
 * build: key + txid of up to 25 characters, which is exactly the sandbox's txid shape); matched across
 * modes, it settled that test charge with real money (recorded `settled` in the test tenant, never in the
 * operator's queue, never returned), or "returned" it through the sandbox PSP when the charge was a test
 * bolepix already paid. docs/decisions.md "Test and live modes": a live PSP's money is live mode's.
 */
import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeCertificates, type PixTestCertificates } from "./fakes/pix/certs.ts"
import { type FakePsp, gatewayEnv, startFakePsp } from "./fakes/pix/server.ts"
import { freePort } from "./support/config.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, liveMerchant } from "./support/http.ts"
import { chargePix, type Merchant, transaction } from "./support/payments-fixtures.ts"
import { boletoBody, newOrder, PROCESS } from "./support/payments.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

let certs: PixTestCertificates
let psp: FakePsp
let gateway: RoleProcess | undefined
let db: pg.Pool
let testMerchant: Merchant

beforeAll(async () => {
  certs = makeCertificates()
  psp = await startFakePsp({ profile: "efi", certificates: certs })
  const webhookPort = await freePort()
  const databaseUrl = await createTestDatabase()
  const noticeUrl = `https://127.0.0.1:${webhookPort}/providers/pix/efi/webhook`
  const env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64"),
    RATE_LIMIT_PER_MINUTE: "100000",
    BOLETO_CONFIRMATION_DELAY_SECONDS: "1",
    ...gatewayEnv(psp, certs, { PIX_TIMEOUT_MS: "5000" }),
    PIX_WEBHOOK_PORT: String(webhookPort),
    PIX_WEBHOOK_HOST: "127.0.0.1",
    PIX_WEBHOOK_TLS_CERT_FILE: certs.files.serverCert,
    PIX_WEBHOOK_TLS_KEY_FILE: certs.files.serverKey,
    PIX_WEBHOOK_CA_FILE: certs.files.caCert,
    PIX_WEBHOOK_URL: noticeUrl
  }
  gateway = await spawnRole("all", env, { readyTimeoutMs: 60_000 })
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  const api = client(gateway.baseUrl)
  const merchant = await liveMerchant(api, "Loja Dois Modos")
  // The merchant's TEST key: its charges are the sandbox's (static BR Code, 25-character txid).
  testMerchant = { api, key: merchant.testKey, accountId: merchant.accountId }
}, 120_000)

afterAll(async () => {
  await stopAll([gateway])
  await psp?.close()
  await db?.end()
})

describe("live PSP notices and test-mode charges", () => {
  it("a real PIX with a test charge's txid does not settle the test charge; it waits for the operator", async () => {
    const charge = await chargePix(testMerchant, 5_000)
    const testTxid: string =
      (await transaction(testMerchant, charge.transactionId)).pix?.txid ??
      charge.transactionId.replace(/-/g, "").slice(0, 25)
    // A payer pays the gateway's LIVE key through a static code with that txid; the live PSP notifies it.
    const e2e = await psp.pay(testTxid, { amount: 5_000 })
    await new Promise((r) => setTimeout(r, 1_500))

    const row = (
      await db.query<{ outcome: string; account_id: string | null }>(
        "select outcome, account_id from pix_received where end_to_end_id = $1",
        [e2e]
      )
    ).rows[0]
    expect(row, "the live notice was recorded").toBeDefined()
    // Real money paid to the live PSP belongs to no test tenant: an exception for the operator to return.
    expect(row!.account_id).not.toBe(testMerchant.accountId)
    expect(row!.outcome).toBe("unknown_charge")
    expect((await transaction(testMerchant, charge.transactionId)).status).toBe("PENDING")
  }, 60_000)

  it(
    "a real PIX on a test bolepix already paid by its barcode is not 'returned' by the sandbox: nothing real was " +
      "given back, so it must wait for the operator",
    async () => {
      const { api, key } = testMerchant
      const order = await newOrder(api, key, 20_000)
      const made = await api.post(PROCESS, boletoBody(order.orderId, 20_000, { boleto: { pix: true } }), { key })
      expect(made.status, made.text).toBe(201)
      const id: string = made.body.transactionId
      const paid = await api.post(`/api/sandbox/transactions/${id}/pay`, undefined, { key })
      expect([200, 202], paid.text).toContain(paid.status)
      for (let i = 0; i < 200 && (await transaction(testMerchant, id)).status !== "PAID"; i++) {
        await new Promise((r) => setTimeout(r, 100))
      }
      expect((await transaction(testMerchant, id)).status).toBe("PAID")
      const testTxid = id.replace(/-/g, "").slice(0, 25)

      const e2e = await psp.pay(testTxid, { amount: 20_000 })
      await new Promise((r) => setTimeout(r, 1_500))
      const row = (
        await db.query<{ outcome: string; account_id: string | null }>(
          "select outcome, account_id from pix_received where end_to_end_id = $1",
          [e2e]
        )
      ).rows[0]
      const seconds = (
        await db.query<{ status: string }>("select status from bolepix_second_payments where reference = $1", [e2e])
      ).rows
      // What happens today: recorded against the test tenant, and "returned" by the sandbox PSP.
      expect({ outcome: row?.outcome, account: row?.account_id, seconds }).toEqual({
        outcome: "unknown_charge",
        account: null,
        seconds: []
      })
    },
    60_000
  )
})
