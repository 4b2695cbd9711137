/**
 * PIX through the Banco Central's API Pix, end to end: the gateway as a process (HTTP, worker, PostgreSQL)
 * in live mode (LIVE_PIX_PROVIDER=bcb-pix) against the fake PSP (test/fakes/pix), its payment notices received on the
 * mTLS listener (docs/providers.md "PIX: the Banco Central's API Pix").
 */
import { randomBytes } from "node:crypto"
import jsqrModule from "jsqr"
import pg from "pg"
import { hasError, isDynamicPix, parsePix } from "pix-utils"
import { PNG } from "pngjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeCertificates, type PixTestCertificates } from "./fakes/pix/certs.ts"
import { type FakePsp, gatewayEnv, startFakePsp } from "./fakes/pix/server.ts"
import { freePort } from "./support/config.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, liveMerchant } from "./support/http.ts"
import { chargePix, type Merchant, registerWebhook, transaction, until } from "./support/payments-fixtures.ts"
import { type RoleProcess, runCli, spawnRole, stopAll } from "./support/processes.ts"
import { type Receiver, startReceiver } from "./support/receiver.ts"

/**
 * The merchant whose key every case here uses: a live key (test keys never reach the PSP) and its live
 * tenant's id, which the records it makes belong to (docs/providers.md "Test and live modes").
 */
const merchantFor = async (baseUrl: string): Promise<Merchant> => {
  const api = client(baseUrl)
  const merchant = await liveMerchant(api, "Loja PIX Real")
  const tenant = await db.query<{ id: string }>("select id from accounts where owner_id = $1 and mode = 'live'", [
    merchant.accountId
  ])
  return { api, key: merchant.key, accountId: tenant.rows[0]!.id }
}

// jsqr's CJS bundle assigns the function itself to module.exports (see src/adapters/render/qr-png.test.ts).
const jsQR = jsqrModule as unknown as typeof jsqrModule.default

let certs: PixTestCertificates
let psp: FakePsp
let gateway: RoleProcess | undefined
let receiver: Receiver
let merchant: Merchant
let db: pg.Pool
let env: Record<string, string>
let noticeUrl: string
/** The URL secret of the fallback without mTLS (docs/providers.md "The receiver"). */
const webhookSecret = randomBytes(16).toString("hex")

beforeAll(async () => {
  certs = makeCertificates()
  psp = await startFakePsp({ profile: "efi", certificates: certs })
  const webhookPort = await freePort()
  const databaseUrl = await createTestDatabase()
  noticeUrl = `https://127.0.0.1:${webhookPort}/providers/pix/efi/webhook`
  env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_RETRY_SCHEDULE: "1,2,3",
    RATE_LIMIT_PER_MINUTE: "100000",
    ...gatewayEnv(psp, certs, { PIX_TIMEOUT_MS: "5000" }),
    PIX_WEBHOOK_PORT: String(webhookPort),
    PIX_WEBHOOK_HOST: "127.0.0.1",
    // Our listener's certificate (the PSP checks it as any HTTPS client would) and the PSP's CA.
    PIX_WEBHOOK_TLS_CERT_FILE: certs.files.serverCert,
    PIX_WEBHOOK_TLS_KEY_FILE: certs.files.serverKey,
    PIX_WEBHOOK_CA_FILE: certs.files.caCert,
    // Efí's fallback: the secret in the URL, from the PSP's addresses only (the fake notifies from 127.0.0.2),
    // given as ranges as PSPs publish them (127.0.0.2/31 is 127.0.0.2 and .3, not 127.0.0.1).
    PIX_WEBHOOK_SECRET: webhookSecret,
    PIX_WEBHOOK_ALLOWED_IPS: "10.0.0.0/8, 127.0.0.2/31",
    // Registered at the PSP at start (PUT /webhook/{chave}); the PSP appends /pix.
    PIX_WEBHOOK_URL: noticeUrl
  }
  ;[gateway, receiver] = await Promise.all([spawnRole("all", env, { readyTimeoutMs: 60_000 }), startReceiver()])
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  merchant = await merchantFor(gateway.baseUrl)
  await registerWebhook(merchant, receiver.url)
}, 120_000)

afterAll(async () => {
  await stopAll([gateway])
  await receiver?.close()
  await psp?.close()
  await db?.end()
})

const txidOf = (transactionId: string) => transactionId.replace(/-/g, "")

const paidEvents = (transactionId: string) =>
  receiver.requests.filter((r) => r.body.includes(transactionId) && r.body.includes("transaction.paid"))

const postings = async (transactionId: string) =>
  (
    await db.query<{ type: string; book: string; party: string; amount: string }>(
      "select type, book, party, amount from ledger_postings where transaction_id = $1",
      [transactionId]
    )
  ).rows

const receivedRows = async (transactionId: string) =>
  (
    await db.query<{ end_to_end_id: string; outcome: string; source: string }>(
      "select end_to_end_id, outcome, source from pix_received where transaction_id = $1",
      [transactionId]
    )
  ).rows

/** A gauge of the gateway's /metrics by its `kind` label. */
const gauge = async (name: string, kind: string) => {
  const text = await (await fetch(gateway!.metricsUrl)).text()
  const found = new RegExp(`^${name}\\{kind="${kind}"\\} (\\S+)$`, "m").exec(text)
  return found === null ? undefined : Number(found[1])
}

describe("PIX over the API Pix (bcb-pix adapter, fake PSP, efi profile)", () => {
  it("the notice URL was registered at the PSP at start; the CLI registers another", async () => {
    expect(psp.webhooks.get(psp.pixKey)).toBe(noticeUrl)
    const other = "https://gateway.example.com/providers/pix/efi/webhook"
    expect(await runCli(["pix", "register-webhook", "--url", other], env, 60_000)).toEqual({ registered: other })
    expect(psp.webhooks.get(psp.pixKey)).toBe(other)
    expect(await runCli(["pix", "register-webhook"], env, 60_000)).toEqual({ registered: noticeUrl })
    expect(psp.webhooks.get(psp.pixKey)).toBe(noticeUrl)
  }, 130_000)

  it(
    "the BR Code is the PSP's; paid, notified by mTLS in a batch with another payment, then again: PAID once, " +
      "ledger posted, one signed merchant webhook",
    async () => {
      const a = await chargePix(merchant, 12_345)
      const b = await chargePix(merchant, 2_000)
      const cob = psp.cobs.get(txidOf(a.transactionId))
      expect(cob, "the PSP holds the charge under our txid").toBeDefined()
      const emv: string = a.body.pix.emv
      expect(emv).toBe(cob!.pixCopiaECola)
      // An independent decoder reads a dynamic code pointing at the PSP's location.
      const parsed = parsePix(emv)
      expect(hasError(parsed)).toBe(false)
      expect(!hasError(parsed) && isDynamicPix(parsed) && parsed.url).toBe(cob!.location)
      // Our QR PNG renders exactly the PSP's string.
      const image = await fetch(a.body.pix.qrCodeUrl)
      const png = PNG.sync.read(Buffer.from(await image.arrayBuffer()))
      expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(emv)

      // Both paid; the PSP holds the notices and sends them in one call, in reverse order, each twice.
      psp.setNotifications("hold")
      const e2eA = await psp.pay(txidOf(a.transactionId))
      await psp.pay(txidOf(b.transactionId))
      const statuses = await psp.flush({ duplicate: true, reverse: true })
      psp.setNotifications("normal")
      expect(statuses).toEqual([200])

      for (const c of [a, b]) expect((await transaction(merchant, c.transactionId)).status).toBe("PAID")
      // Sent again later (a PSP's retry): nothing moves.
      expect(await psp.renotify(e2eA)).toEqual([200])
      expect(await receivedRows(a.transactionId)).toEqual([
        { end_to_end_id: e2eA, outcome: "settled", source: "webhook" }
      ])
      const sale = (await postings(a.transactionId)).filter((p) => p.type === "sale")
      expect(sale.length).toBeGreaterThan(0)
      expect(sale.filter((p) => Number(p.amount) > 0).reduce((s, p) => s + Number(p.amount), 0)).toBe(12_345)

      const events = await until(
        "the merchant's transaction.paid",
        async () => {
          const got = paidEvents(a.transactionId)
          return got.length > 0 ? got : undefined
        },
        20_000
      )
      await new Promise((r) => setTimeout(r, 1_500))
      expect(paidEvents(a.transactionId)).toHaveLength(1)
      expect(events[0]!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    },
    60_000
  )

  it("a notice without the PSP's client certificate is refused and settles nothing", async () => {
    const c = await chargePix(merchant, 3_000)
    const url = [...psp.webhooks.values()][0]!
    const { request } = await import("node:https")
    const status = await new Promise<number>((resolve) => {
      const req = request(
        `${url}/pix`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          cert: certs.stranger.certPem,
          key: certs.stranger.keyPem,
          rejectUnauthorized: false
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        }
      )
      req.on("error", () => resolve(0))
      req.end(
        JSON.stringify({
          pix: [
            {
              endToEndId: "E99999008202601011200abcdefghijk",
              txid: txidOf(c.transactionId),
              valor: "30.00",
              horario: new Date().toISOString()
            }
          ]
        })
      )
    })
    expect(status).toBe(401)
    expect((await transaction(merchant, c.transactionId)).status).toBe("PENDING")
  })

  it(
    "the URL-secret fallback, notices without a certificate: a wrong secret or an address not allowed is " +
      "refused; the secret from an allowed address settles",
    async () => {
      const c = await chargePix(merchant, 4_100)
      // Out of GET /pix: the minute's reconciliation cannot settle it between the notices below.
      const e2e = await psp.pay(txidOf(c.transactionId), { notify: false, listed: false })
      try {
        psp.setNotifier({ clientCert: false, from: "127.0.0.2" })
        psp.webhooks.set(psp.pixKey, `${noticeUrl}/${webhookSecret.slice(0, -1)}x`)
        expect(await psp.renotify(e2e)).toEqual([401])
        psp.setNotifier({ clientCert: false, from: "127.0.0.1" })
        psp.webhooks.set(psp.pixKey, `${noticeUrl}/${webhookSecret}`)
        expect(await psp.renotify(e2e)).toEqual([401])
        expect((await transaction(merchant, c.transactionId)).status).toBe("PENDING")
        expect(await receivedRows(c.transactionId)).toEqual([])
        psp.setNotifier({ clientCert: false, from: "127.0.0.2" })
        expect(await psp.renotify(e2e)).toEqual([200])
      } finally {
        psp.setNotifier({ clientCert: true })
        psp.webhooks.set(psp.pixKey, noticeUrl)
      }
      expect((await transaction(merchant, c.transactionId)).status).toBe("PAID")
      expect(await receivedRows(c.transactionId)).toEqual([
        { end_to_end_id: e2e, outcome: "settled", source: "webhook" }
      ])
    }
  )

  it("another amount than the charge: recorded as an exception, listed by the CLI, the charge PENDING", async () => {
    const c = await chargePix(merchant, 5_000)
    await psp.pay(txidOf(c.transactionId), { amount: 4_999 })
    const rows = await until(
      "the exception recorded",
      async () => {
        const r = await receivedRows(c.transactionId)
        return r.length > 0 ? r : undefined
      },
      10_000
    )
    expect(rows.map((r) => r.outcome)).toEqual(["amount_mismatch"])
    expect((await transaction(merchant, c.transactionId)).status).toBe("PENDING")
    // Surfaced to operators by the CLI.
    const listed = await runCli<Array<{ endToEndId: string; outcome: string; amount: number }>>(
      ["pix", "exceptions"],
      env,
      60_000
    )
    expect(listed.find((r) => r.endToEndId === rows[0]!.end_to_end_id)).toMatchObject({
      outcome: "amount_mismatch",
      amount: 4_999,
      handledAt: null
    })
  })

  it("a handled exception leaves the queue and the list, once, until reopened; nothing else is marked", async () => {
    const c = await chargePix(merchant, 5_001)
    await psp.pay(txidOf(c.transactionId), { amount: 5_000 })
    const e2e = await until(
      "the exception recorded",
      async () => (await receivedRows(c.transactionId))[0]?.end_to_end_id,
      10_000
    )
    const waitingBefore = (await gauge("operator_queue", "pix_amount_mismatch"))!
    expect(waitingBefore).toBeGreaterThanOrEqual(1)
    // The oldest's age is reported for PIX exceptions too, now that they close.
    expect(await gauge("operator_queue_oldest_age_seconds", "pix_amount_mismatch")).toBeGreaterThan(0)

    // Without saying what was done: refused, nothing marked.
    await expect(runCli(["pix", "handled", "--id", e2e], env, 60_000)).rejects.toThrow(/usage/)
    const marked = await runCli<{ endToEndId: string; handledAt: string; handledNote: string; outcome: string }>(
      ["pix", "handled", "--id", e2e, "--note", "returned at the PSP, devolução D1"],
      env,
      60_000
    )
    expect(marked).toMatchObject({
      endToEndId: e2e,
      outcome: "amount_mismatch",
      handledNote: "returned at the PSP, devolução D1"
    })
    expect(Date.parse(marked.handledAt)).toBeGreaterThan(Date.now() - 60_000)
    const listed = await runCli<Array<{ endToEndId: string }>>(["pix", "exceptions"], env, 60_000)
    expect(listed.map((r) => r.endToEndId)).not.toContain(e2e)
    expect(await gauge("operator_queue", "pix_amount_mismatch")).toBe(waitingBefore - 1)

    // A second mark keeps the first, and says when and what it was.
    await expect(runCli(["pix", "handled", "--id", e2e, "--note", "again"], env, 60_000)).rejects.toThrow(
      /already marked handled at .*returned at the PSP, devolução D1/
    )
    const [row] = (
      await db.query<{ handled_note: string }>("select handled_note from pix_received where end_to_end_id = $1", [e2e])
    ).rows
    expect(row!.handled_note).toBe("returned at the PSP, devolução D1")

    // A mark made by mistake is undone, saying why: the exception waits again, and the mark undone is answered.
    await expect(runCli(["pix", "reopen"], env, 60_000)).rejects.toThrow(/usage/)
    await expect(runCli(["pix", "reopen", "--id", e2e], env, 60_000)).rejects.toThrow(/usage/)
    await expect(runCli(["pix", "reopen", "--id", e2e, "--note", "  "], env, 60_000)).rejects.toThrow(/usage/)
    const reopened = await runCli<{ marks: Array<{ action: string; note: string; at: string }> }>(
      ["pix", "reopen", "--id", e2e, "--note", "the PSP refused the devolução: it was never returned"],
      env,
      60_000
    )
    expect(reopened).toMatchObject({
      endToEndId: e2e,
      outcome: "amount_mismatch",
      handledAt: null,
      handledNote: null,
      undone: { handledAt: marked.handledAt, handledNote: "returned at the PSP, devolução D1" }
    })
    // Both kept, in order: the mark (at the instant the row was marked) and its undoing.
    expect(reopened.marks).toMatchObject([
      { action: "handled", note: "returned at the PSP, devolução D1", at: marked.handledAt },
      { action: "reopened", note: "the PSP refused the devolução: it was never returned" }
    ])
    const again = await runCli<Array<{ endToEndId: string }>>(["pix", "exceptions"], env, 60_000)
    expect(again.map((r) => r.endToEndId)).toContain(e2e)
    expect(await gauge("operator_queue", "pix_amount_mismatch")).toBe(waitingBefore)
    await expect(runCli(["pix", "reopen", "--id", e2e, "--note", "x"], env, 60_000)).rejects.toThrow(
      /is not marked handled/
    )
    await expect(
      runCli(["pix", "reopen", "--id", "E00000000202611260000NOSUCH", "--note", "x"], env, 60_000)
    ).rejects.toThrow(/no PIX received with end-to-end id/)
    // Then marked with what was really done; `pix show` answers the payment with its three marks, and the
    // refused attempts above (a second mark, a reopen of what waits) left none.
    expect(
      await runCli(["pix", "handled", "--id", e2e, "--note", "matched by hand to order 4521"], env, 60_000)
    ).toMatchObject({ handledNote: "matched by hand to order 4521" })
    const shown = await runCli<{ handledAt: string; marks: Array<{ action: string; note: string; at: string }> }>(
      ["pix", "show", "--id", e2e],
      env,
      60_000
    )
    expect(shown).toMatchObject({ endToEndId: e2e, amount: 5_000, handledNote: "matched by hand to order 4521" })
    expect(shown.marks.map((m) => [m.action, m.note])).toEqual([
      ["handled", "returned at the PSP, devolução D1"],
      ["reopened", "the PSP refused the devolução: it was never returned"],
      ["handled", "matched by hand to order 4521"]
    ])
    expect(shown.marks[2]!.at).toBe(shown.handledAt)
    await expect(runCli(["pix", "show"], env, 60_000)).rejects.toThrow(/usage/)
    await expect(runCli(["pix", "show", "--id", "E00000000202611260000NOSUCH"], env, 60_000)).rejects.toThrow(
      /no PIX received with end-to-end id/
    )

    // A payment that settled its charge is no exception; an end-to-end id never received is unknown.
    const paid = await chargePix(merchant, 1_234)
    const settled = await psp.pay(txidOf(paid.transactionId))
    await until("the payment settled", async () =>
      (await receivedRows(paid.transactionId)).length > 0 ? true : undefined
    )
    await expect(runCli(["pix", "handled", "--id", settled, "--note", "x"], env, 60_000)).rejects.toThrow(
      /is not an exception: it settled its charge/
    )
    const never = ["pix", "handled", "--id", "E00000000202611260000NOSUCH", "--note", "x"]
    await expect(runCli(never, env, 60_000)).rejects.toThrow(/no PIX received with end-to-end id/)
    expect(await gauge("operator_queue", "pix_amount_mismatch")).toBe(waitingBefore - 1)
  }, 120_000)

  it("five operators marking one exception at once: one mark stands, the others are told whose", async () => {
    const c = await chargePix(merchant, 5_002)
    await psp.pay(txidOf(c.transactionId), { amount: 5_003 })
    const e2e = await until(
      "the exception recorded",
      async () => (await receivedRows(c.transactionId))[0]?.end_to_end_id
    )
    const waitingBefore = (await gauge("operator_queue", "pix_amount_mismatch"))!
    // The row held by another transaction until all five are waiting for it, so that they do meet.
    const holder = await db.connect()
    let outcomes: Array<PromiseSettledResult<unknown>>
    try {
      await holder.query("begin")
      await holder.query("select 1 from pix_received where end_to_end_id = $1 for update", [e2e])
      const marking = Promise.allSettled(
        [1, 2, 3, 4, 5].map((n) => runCli(["pix", "handled", "--id", e2e, "--note", `operator ${n}`], env, 60_000))
      )
      await until(
        "five operators waiting for the row",
        async () => {
          const { rows } = await db.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
             where wait_event_type = 'Lock' and query like '%pix_received%' and query not like '%pg_stat_activity%'`
          )
          return rows[0]!.n === 5 ? true : undefined
        },
        60_000
      )
      await holder.query("commit")
      outcomes = await marking
    } finally {
      holder.release()
    }
    const marked = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value as { handledNote: string }] : []))
    expect(marked).toHaveLength(1)
    const winner = marked[0]!.handledNote
    const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []))
    expect(refused).toHaveLength(4)
    for (const message of refused) expect(message).toMatch(new RegExp(`already marked handled at \\S+: ${winner}`))
    const [row] = (
      await db.query<{ handled_note: string }>("select handled_note from pix_received where end_to_end_id = $1", [e2e])
    ).rows
    expect(row!.handled_note).toBe(winner)
    // One mark kept, the one that stands: the four refused wrote nothing.
    const kept = await db.query("select action, note from pix_received_marks where end_to_end_id = $1", [e2e])
    expect(kept.rows).toEqual([{ action: "handled", note: winner }])
    expect(await gauge("operator_queue", "pix_amount_mismatch")).toBe(waitingBefore - 1)
  }, 120_000)

  it("one payment by ten concurrent notices and the reconciliation job at once: settled once, one event", async () => {
    const c = await chargePix(merchant, 8_888)
    const e2e = await psp.pay(txidOf(c.transactionId), { notify: false })
    const sent = await Promise.all([
      ...Array.from({ length: 10 }, () => psp.renotify(e2e)),
      db.query("select graphile_worker.add_job('reconcile_pix', '{}'::json)").then(() => [200])
    ])
    expect(sent.flat()).toEqual(Array.from({ length: 11 }, () => 200))
    expect((await transaction(merchant, c.transactionId)).status).toBe("PAID")
    // Let the job run too, then count: one claim, one move, one sale, one event.
    await new Promise((r) => setTimeout(r, 3_000))
    expect(await receivedRows(c.transactionId)).toHaveLength(1)
    const sales = (await postings(c.transactionId)).filter((p) => p.type === "sale")
    expect(sales.filter((p) => Number(p.amount) > 0).reduce((sum, p) => sum + Number(p.amount), 0)).toBe(8_888)
    expect(paidEvents(c.transactionId)).toHaveLength(1)
  }, 60_000)

  it("a lost notice: the reconciliation job finds the payment in GET /pix and settles it once", async () => {
    const c = await chargePix(merchant, 7_777)
    psp.setNotifications("drop")
    const e2e = await psp.pay(txidOf(c.transactionId))
    psp.setNotifications("normal")
    expect((await transaction(merchant, c.transactionId)).status).toBe("PENDING")
    // reconcile_pix runs every minute.
    await until(
      "the payment reconciled",
      async () => ((await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined),
      100_000,
      1_000
    )
    expect(await receivedRows(c.transactionId)).toEqual([
      { end_to_end_id: e2e, outcome: "settled", source: "reconciliation" }
    ])
    // The notice arriving late changes nothing.
    await psp.renotify(e2e)
    expect(await receivedRows(c.transactionId)).toHaveLength(1)
  }, 130_000)

  it.each([
    ["with its txid", false],
    // The spec's Pix.txid is optional: the payment under its charge is that charge's (BcbPixProvider stateOf).
    ["listed under it without its txid", true]
  ])(
    "a charge near expiry, notice lost, absent from GET /pix: found by GET /cob (%s), settled before expiry",
    async (_, bare) => {
      const c = await chargePix(merchant, 6_543)
      const txid = txidOf(c.transactionId)
      // Four minutes left: within the reconciliation's near-expiry window (five; docs/providers.md).
      await db.query("update transactions set expires_at = now() + interval '4 minutes' where id = $1", [
        c.transactionId
      ])
      const e2e = await psp.pay(txid, { notify: false, listed: false, bareInCob: bare })
      const from = psp.exchanges.length
      await db.query("select graphile_worker.add_job('reconcile_pix', '{}'::json)")
      await until(
        "the charge settled",
        async () => ((await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined),
        30_000,
        500
      )
      expect(await receivedRows(c.transactionId)).toEqual([
        { end_to_end_id: e2e, outcome: "settled", source: "reconciliation" }
      ])
      expect(psp.exchanges.slice(from).some((x) => x.method === "GET" && x.path === `/cob/${txid}`)).toBe(true)
    },
    60_000
  )

  it(
    "refunds: one the PSP returns (DEVOLVIDO) while we wait, one it does not (NAO_REALIZADO) decided later: " +
      "the first leaves the merchant's balance, the second stays with the merchant",
    async () => {
      const c = await paidPix(10_000)
      const before = await merchantBalance()

      // DEVOLVIDO at the SPI a moment after the PSP accepted it: the request sees it and refunds.
      const refunding = merchant.api.post(
        "/api/payment-gateway/refund",
        { transactionId: c.transactionId, amount: 3_000 },
        { key: merchant.key }
      )
      const first = await until("the devolução at the PSP", async () => lastDevolucao(), 5_000, 50)
      await psp.settleRefund(first.e2e, first.id, "DEVOLVIDO", { notify: false })
      const reply = await refunding
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toMatchObject({ status: "PARTIAL_REFUND", refundedAmount: 3_000 })
      // The merchant gives back the refund less its share of the PIX fee (FEE_PIX 0.99%, half up; docs/money.md).
      const afterFirst = before - (3_000 - Math.round((3_000 * 99) / 10_000))
      expect(await merchantBalance()).toBe(afterFirst)

      // Accepted, undecided past the wait: answered with the transaction as it is, the money reserved.
      const second = await merchant.api.post(
        "/api/payment-gateway/refund",
        { transactionId: c.transactionId, amount: 2_000 },
        { key: merchant.key }
      )
      expect(second.status, second.text).toBe(200)
      expect(second.body).toMatchObject({ status: "PARTIAL_REFUND", refundedAmount: 3_000 })
      const pending = (await lastDevolucao())!
      expect(pending.id).not.toBe(first.id)
      await psp.settleRefund(pending.e2e, pending.id, "NAO_REALIZADO", { notify: false })
      // The reconciliation job asks again and records NAO_REALIZADO: the money is the merchant's again.
      await until(
        "the refund concluded as not returned",
        async () => ((await refundStatuses(c.transactionId)).includes("FAILED") ? true : undefined),
        110_000,
        1_000
      )
      expect((await refundStatuses(c.transactionId)).sort()).toEqual(["FAILED", "SUCCEEDED"])
      const t = await transaction(merchant, c.transactionId)
      expect(t.status).toBe("PARTIAL_REFUND")
      expect(await merchantBalance()).toBe(afterFirst)
    },
    150_000
  )

  it("a refund whose answer is lost (PUT committed, connection dropped, retry 5xx): PENDING, not failed", async () => {
    const c = await paidPix(10_000)
    const before = await merchantBalance()
    // The PSP makes the devolução, the answer never arrives; the adapter's one retry meets a 503.
    psp.inject("PUT /pix/", "commit-then-drop")
    psp.inject("PUT /pix/", "5xx")
    const reply = await merchant.api.post(
      "/api/payment-gateway/refund",
      { transactionId: c.transactionId, amount: 2_500 },
      { key: merchant.key }
    )
    // Not "nothing was refunded, try again": the PSP may hold it (it does), so the money stays reserved.
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toMatchObject({ status: "PAID", refundedAmount: 0 })
    expect(await refundStatuses(c.transactionId)).toEqual(["PENDING"])
    const share = 2_500 - Math.round((2_500 * 99) / 10_000) // less its share of the PIX fee (docs/money.md)
    expect(await merchantBalance()).toBe(before - share)
    // The PSP's final word arrives in its notice: refunded once.
    const devolucao = (await lastDevolucao())!
    await psp.settleRefund(devolucao.e2e, devolucao.id, "DEVOLVIDO")
    await until(
      "the refund concluded",
      async () => ((await refundStatuses(c.transactionId)).includes("SUCCEEDED") ? true : undefined),
      10_000
    )
    expect(await refundStatuses(c.transactionId)).toEqual(["SUCCEEDED"])
    expect((await transaction(merchant, c.transactionId)).status).toBe("PARTIAL_REFUND")
    expect(await merchantBalance()).toBe(before - share)
    expect(psp.pendingFaults()).toBe(0)
  }, 60_000)

  it("a refund left EM_PROCESSAMENTO, then DEVOLVIDO in a notice: refunded at once, not by the sweep", async () => {
    const c = await paidPix(10_000)
    const before = await merchantBalance()
    const reply = await merchant.api.post(
      "/api/payment-gateway/refund",
      { transactionId: c.transactionId, amount: 4_000 },
      { key: merchant.key }
    )
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toMatchObject({ status: "PAID", refundedAmount: 0 })
    expect(await refundStatuses(c.transactionId)).toEqual(["PENDING"])
    const devolucao = (await lastDevolucao())!
    // The PSP notices the payment again, its devolução DEVOLVIDO; answered 200 once it is recorded.
    const notified = Date.now()
    await psp.settleRefund(devolucao.e2e, devolucao.id, "DEVOLVIDO")
    // Concluded before the notice's answer, long before the sweep's 30 s.
    expect(await refundStatuses(c.transactionId)).toEqual(["SUCCEEDED"])
    expect(Date.now() - notified).toBeLessThan(10_000)
    expect((await transaction(merchant, c.transactionId)).status).toBe("PARTIAL_REFUND")
    // The merchant gives back the refund less its share of the PIX fee (FEE_PIX 0.99%, half up; docs/money.md).
    const after = before - (4_000 - Math.round((4_000 * 99) / 10_000))
    expect(await merchantBalance()).toBe(after)
    // The notice again, and the reconciliation: nothing moves twice.
    await psp.renotify(devolucao.e2e)
    await db.query("select graphile_worker.add_job('reconcile_pix', '{}'::json)")
    await new Promise((r) => setTimeout(r, 3_000))
    expect(await refundStatuses(c.transactionId)).toEqual(["SUCCEEDED"])
    expect(await merchantBalance()).toBe(after)
  }, 60_000)
})

/** A PIX charge of `amount` the payer paid at the PSP, once the gateway has it PAID. */
const paidPix = async (amount: number) => {
  const c = await chargePix(merchant, amount)
  await psp.pay(txidOf(c.transactionId))
  await until("PAID", async () => ((await transaction(merchant, c.transactionId)).status === "PAID" ? true : undefined))
  return c
}

/** The devolução most recently asked of the PSP: its payment and id. */
const lastDevolucao = async () => {
  const put = psp.exchanges.filter((x) => x.method === "PUT" && /^\/pix\/[^/]+\/devolucao\//.test(x.path)).at(-1)
  if (put === undefined) return undefined
  const [, , e2e, , id] = put.path.split("/")
  return { e2e: e2e!, id: id! }
}

const refundStatuses = async (transactionId: string) =>
  (
    await db.query<{ status: string }>("select status from refunds where transaction_id = $1", [transactionId])
  ).rows.map((r) => r.status)

/** The merchant's money in the books: available plus pending, every party but the system's. */
const merchantBalance = async () =>
  Number(
    (
      await db.query<{ total: string | null }>(
        `select sum(amount) as total from ledger_balances
         where account_id = $1 and party <> 'system' and book in ('available', 'pending')`,
        [merchant.accountId]
      )
    ).rows[0]!.total ?? 0
  )
