import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readRecord, SEGMENT_Y03 } from "../src/adapters/providers/bb-cnab240/layout.ts"
import { transactionIdOf } from "../src/adapters/providers/bb-cnab240/retorno.ts"
import { addCalendarDays, onOrNextBusinessDay } from "../src/domain/calendar.ts"
import { saoPauloDate } from "../src/domain/time.ts"
import { answerRemessa, type Outcome } from "./fakes/bank/bank.ts"
import { makeCertificates, type PixTestCertificates } from "./fakes/pix/certs.ts"
import { type FakePsp, gatewayEnv, startFakePsp } from "./fakes/pix/server.ts"
import { freePort } from "./support/config.ts"
import { bankByFilesEnv } from "./support/bankByFiles.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, type Client, liveMerchant } from "./support/http.ts"
import { type RoleProcess, runCli, spawnRole, stopAll } from "./support/processes.ts"

/**
 * Bolepix in live mode, end to end (issue 21 §3; docs/boleto.md "Bolepix"): one gateway process with
 * LIVE_PIX_PROVIDER=bcb-pix against the fake PSP (mTLS, OAuth2, notices to the mTLS receiver, as
 * test/pix.live.test.ts sets it up) and LIVE_BOLETO_PROVIDER=bb-cnab240 with the fake bank's files (as
 * test/boleto.cnab.test.ts). A live key's bolepix issues its `cobv` at the PSP and its title goes to the bank
 * in the remessa with segment Y-03 (the key and txid). Whichever rail pays first settles it with that day's
 * amount; the other rail's payment is recorded and returned — the slip's owed back by hand, the PIX's by
 * devolução at the PSP — never settled: the merchant's books show one sale, to the centavo. Settled by its
 * barcode or expired, the bolepix has its `cobv` withdrawn at the PSP (`PATCH /cobv/{txid}`, the
 * `withdraw_due_charge` job, retried while the PSP is down), so its QR can no longer be paid; a PIX that beat
 * the withdrawal is returned. A second PIX whose devolução was left undecided is asked again by the
 * `return_bolepix_pix` job; what waits for an operator shows on /metrics (`operator_queue`).
 */

const BILLET_FEE = 349
const BANK_FEE = 180
const V1 = "/public/v1"
const today = saoPauloDate(new Date())
// A business day ten days ahead: every payment here is before it, inside the discount's window.
const DUE = onOrNextBusinessDay(addCalendarDays(today, 10))
const DISCOUNT_UNTIL = addCalendarDays(today, 3)
const customer = { name: "Beatriz Souza", email: "bia@example.com", document: "11.222.333/0001-81" }
const A = 100_000
const B = 50_000
// Paid today, before DISCOUNT_UNTIL: the principal less the fixed 500 discount, no fine, no interest.
const dueToday = (amount: number) => amount - 500

let certs: PixTestCertificates
let psp: FakePsp
let gateway: RoleProcess
let db: pg.Pool
let api: Client
let key: string
let env: Record<string, string>
let remessaDir: string
let retornoDir: string
let remessa = ""
/** Remessa 1, of the titles `pixFirst` and `barcodeFirst`: later tests cut others. */
let firstRemessa = ""
let pixFirst = ""
let barcodeFirst = ""
/** The two bolepix of the remessa cut for the asked-again test. */
let askedAgain: Array<string> = []

beforeAll(async () => {
  certs = makeCertificates()
  psp = await startFakePsp({ profile: "efi", certificates: certs })
  const webhookPort = await freePort()
  const databaseUrl = await createTestDatabase()
  remessaDir = mkdtempSync(join(tmpdir(), "bolepix-remessa-"))
  retornoDir = mkdtempSync(join(tmpdir(), "bolepix-retorno-"))
  env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    CARD_VAULT_KEY: randomBytes(32).toString("base64"),
    RATE_LIMIT_PER_MINUTE: "100000",
    // The API Pix adapter against the fake PSP, its notices to our mTLS listener (as pix.live.test.ts).
    ...gatewayEnv(psp, certs, { PIX_TIMEOUT_MS: "5000" }),
    PIX_WEBHOOK_PORT: String(webhookPort),
    PIX_WEBHOOK_HOST: "127.0.0.1",
    PIX_WEBHOOK_TLS_CERT_FILE: certs.files.serverCert,
    PIX_WEBHOOK_TLS_KEY_FILE: certs.files.serverKey,
    PIX_WEBHOOK_CA_FILE: certs.files.caCert,
    PIX_WEBHOOK_URL: `https://127.0.0.1:${webhookPort}/providers/pix/efi/webhook`,
    // The bank by CNAB 240 files (as boleto.cnab.test.ts): the CLI cuts the remessa and reads the retornos.
    ...bankByFilesEnv(remessaDir, retornoDir),
    CNAB_REMESSA_CYCLE_MINUTES: "600",
    CNAB_RETORNO_POLL_SECONDS: "60"
  }
  gateway = await spawnRole("all", env, { readyTimeoutMs: 90_000 })
  api = client(gateway.baseUrl)
  key = (await liveMerchant(api, "Loja Bolepix")).key
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
}, 150_000)

afterAll(async () => {
  await stopAll([gateway])
  await psp?.close()
  await db?.end()
  for (const dir of [remessaDir, retornoDir]) if (dir) rmSync(dir, { recursive: true, force: true })
})

const until = async <T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> => {
  const deadline = Date.now() + ms
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

const bolepix = async (amount: number) => {
  const created = await api.post(
    `${V1}/transactions`,
    {
      method: "billet",
      amount,
      expires_at: `${DUE}T12:00:00-03:00`,
      customer,
      billet: {
        pix: true,
        fine: { type: "percentage", value: 2 },
        interest: { type: "percentage_per_month", value: 1 },
        discounts: [{ type: "fixed", value: 500, until: DISCOUNT_UNTIL }]
      }
    },
    { token: key }
  )
  expect(created.status, created.text).toBe(201)
  expect(created.body.data.billet.barcode).toMatch(/^0019\d{40}$/)
  return created.body.data as { hash: string; pix: { qr_code: string } }
}

const txidOf = async (id: string) =>
  (await db.query<{ txid: string }>(`select details -> 'pix' ->> 'txid' as txid from transactions where id = $1`, [id]))
    .rows[0]!.txid

const detail = async (id: string) => {
  const reply = await api.get(`/api/payment-gateway/transaction/${id}`, { key })
  expect(reply.status, reply.text).toBe(200)
  return reply.body
}

const seconds = async (id: string) =>
  (
    await db.query<{ rail: string; amount: number; status: string }>(
      `select rail, amount::int as amount, status from bolepix_second_payments where transaction_id = $1
       order by created_at`,
      [id]
    )
  ).rows

const received = async (id: string) =>
  (await db.query<{ outcome: string }>(`select outcome from pix_received where transaction_id = $1`, [id])).rows

/** The transaction's postings, by party, type and book, summed (settlement moves between books: left out). */
const postings = async (id: string) =>
  (
    await db.query<{ party: string; book: string; type: string; amount: number }>(
      `select party, book, type, sum(amount)::int as amount from ledger_postings
       where transaction_id = $1 and type <> 'settlement' group by party, book, type order by party, type, book`,
      [id]
    )
  ).rows

const merchantBalance = async () => {
  const balance = await api.get(`${V1}/balance`, { token: key })
  expect(balance.status, balance.text).toBe(200)
  return (balance.body.data.available as number) + (balance.body.data.pending as number)
}

/** The fake bank's retorno `n` for the remessa's titles in `outcomes` only (by transaction id). */
const retorno = (n: number, outcomes: Readonly<Record<string, Outcome>>) => {
  const places: Array<number> = []
  const all = answerRemessa(remessa, n, (t) => {
    const id = transactionIdOf(t.companyUse)!
    if (outcomes[id] === undefined) return { movement: "02" }
    places.push(t.index)
    return outcomes[id]
  })
  const lines = all.split("\r\n").filter((l) => l !== "")
  const body = places.flatMap((i) => [lines[2 + 2 * i]!, lines[3 + 2 * i]!])
  const file = join(tmpdir(), `bolepix-retorno-${n}-${process.pid}.ret`)
  writeFileSync(file, `${[lines[0]!, lines[1]!, ...body, ...lines.slice(-2)].join("\r\n")}\r\n`, "latin1")
  return file
}

/** The gateway's /metrics: a gauge's value for `kind`, or undefined when the series is absent. */
const gauge = async (name: string, kind: string) => {
  const text = await (await fetch(gateway.metricsUrl)).text()
  const found = new RegExp(`^${name}\\{kind="${kind}"\\} (\\S+)$`, "m").exec(text)
  return found === null ? undefined : Number(found[1])
}

/**
 * Runs the `return_bolepix_pix` job `times` at once in the gateway's worker, and waits until no such job is
 * left (the crontab's own run every 5 minutes included).
 */
const askAgain = async (times = 1) => {
  for (let i = 0; i < times; i++) await db.query(`select graphile_worker.add_job('return_bolepix_pix', '{}'::json)`)
  await until("the return_bolepix_pix jobs done", async () => {
    const left = await db.query(`select 1 from graphile_worker.jobs where task_identifier = 'return_bolepix_pix'`)
    return left.rowCount === 0 ? true : undefined
  })
}

/** The PSP's answers to `PATCH /cobv/{txid}` (the cobv's withdrawal), in order. */
const withdrawals = (txid: string) =>
  psp.exchanges.filter((e) => e.method === "PATCH" && e.path === `/cobv/${txid}`).map((e) => e.status)

/** Waits until no `withdraw_due_charge` job is left (its retries after graphile-worker's back-off included). */
const withdrawJobsDone = (ms = 30_000) =>
  until(
    "the withdraw_due_charge jobs done",
    async () => {
      const left = await db.query(`select 1 from graphile_worker.jobs where task_identifier = 'withdraw_due_charge'`)
      return left.rowCount === 0 ? true : undefined
    },
    ms
  )

/** The `withdraw_due_charge` job of a transaction, queued by hand (a duplicate run), and waited for. */
const withdrawAgain = async (id: string) => {
  await db.query(
    `select graphile_worker.add_job('withdraw_due_charge',
       json_build_object('accountId', account_id::text, 'transactionId', id::text)) from transactions where id = $1`,
    [id]
  )
  await withdrawJobsDone()
}

/** Time passes for these second payments: their last ask (or record) 6 minutes earlier, due to be asked again. */
const sixMinutesLater = (...transactionIds: Array<string>) =>
  db.query(
    `update bolepix_second_payments set created_at = created_at - interval '6 minutes',
       asked_at = asked_at - interval '6 minutes' where transaction_id = any($1::uuid[])`,
    [transactionIds]
  )

/** The PSP's answers to the devoluções of a payment: `PUT` and `GET /pix/{e2e}/devolucao/{id}`, in order. */
const devolucoes = (e2e: string) =>
  psp.exchanges
    .filter((e) => e.path.startsWith(`/pix/${e2e}/devolucao/`))
    .map((e) => ({ method: e.method, id: e.path.split("/").at(-1)!, status: e.status }))

describe("bolepix in live mode: the API Pix adapter and the bank by CNAB 240", () => {
  it("the cobv at the PSP asks what the slip asks; the remessa registers the title with Y-03 (key, txid)", async () => {
    const a = await bolepix(A)
    const b = await bolepix(B)
    pixFirst = a.hash
    barcodeFirst = b.hash
    for (const [t, amount] of [
      [a, A],
      [b, B]
    ] as const) {
      const txid = await txidOf(t.hash)
      const put = psp.exchanges.find((e) => e.method === "PUT" && e.path === `/cobv/${txid}`)
      expect(put, "the PSP received PUT /cobv/{txid}").toBeDefined()
      expect(put!.status).toBe(201)
      // By hand from the API Pix's CobVValor: multa 2 = percent, juros 3 = percent a month, desconto 1 = fixed
      // until the date; reais or percent with two decimals. Payable BOLETO_LATE_DAYS (30) after the due date.
      expect(put!.requestBody).toEqual({
        calendario: { dataDeVencimento: DUE, validadeAposVencimento: 30 },
        devedor: { cnpj: "11222333000181", nome: "Beatriz Souza" },
        valor: {
          original: (amount / 100).toFixed(2),
          multa: { modalidade: 2, valorPerc: "2.00" },
          juros: { modalidade: 3, valorPerc: "1.00" },
          desconto: { modalidade: 1, descontoDataFixa: [{ data: DISCOUNT_UNTIL, valorPerc: "5.00" }] }
        },
        chave: psp.pixKey
      })
      // The BR Code shown is the PSP's, for this charge.
      expect(t.pix.qr_code).toBe((put!.responseBody as { pixCopiaECola: string }).pixCopiaECola)
    }

    const cut = await runCli<{ cut: boolean; titles: number; path: string }>(["boleto", "remessa"], env, 60_000)
    expect(cut).toMatchObject({ cut: true, titles: 2 })
    remessa = readFileSync(cut.path, "latin1")
    firstRemessa = remessa
    const lines = remessa.split("\r\n").filter((l) => l !== "")
    // Header, batch header, P Q R Y-03 per title, trailers.
    expect(lines).toHaveLength(2 + 4 * 2 + 2)
    const ys = lines.filter((l) => l[13] === "Y")
    expect(ys).toHaveLength(2)
    for (const [i, id] of [a.hash, b.hash].entries()) {
      // Each title's Y-03 follows its P, Q and R.
      const p = lines.findIndex((l) => l[13] === "P" && transactionIdOf(l.slice(195, 220)) === id)
      expect(lines[p + 3]).toBe(ys[i])
      const y = readRecord(SEGMENT_Y03, lines[p + 3]!)
      expect(y.ok, y.ok ? "" : y.error).toBe(true)
      if (!y.ok) return
      // The fake PSP's key is a random key (EVP): type 5.
      expect(y.fields).toMatchObject({ segment: "Y", optional: "03", keyType: "5", txid: await txidOf(id) })
      expect(y.fields["key"]!.trimEnd()).toBe(psp.pixKey)
    }
  }, 120_000)

  it("PIX first: PAID by the PSP's notice with that day's amount; the bank's 06 later recorded to return", async () => {
    expect(remessa).not.toBe("")
    const before = await merchantBalance()
    await psp.pay(await txidOf(pixFirst), { amount: dueToday(A) })
    const paid = await until("PAID by the PIX", async () => {
      const t = await detail(pixFirst)
      return t.status === "PAID" ? t : undefined
    })
    expect(paid.boleto.payment).toEqual({
      paidOn: today,
      amountPaid: dueToday(A),
      principal: A,
      fine: 0,
      interest: 0,
      discount: 500,
      abatement: 0,
      rail: "pix"
    })
    expect(await received(pixFirst)).toEqual([{ outcome: "settled" }])
    expect((await merchantBalance()) - before).toBe(dueToday(A) - BILLET_FEE)

    // The buyer also paid the slip at a bank: the bank's retorno reports it (06) with its amount that day.
    const report = await runCli<any>(
      ["boleto", "retorno", retorno(1, { [pixFirst]: { movement: "06", paidOn: today, fee: BANK_FEE } })],
      env,
      60_000
    )
    expect(report.outcome).toBe("processed")
    expect(report.counts).toMatchObject({ settled: 0, alreadySettled: 1 })
    expect(report.exceptions).toEqual([
      expect.objectContaining({
        transactionId: pixFirst,
        message: "a bolepix its PIX already settled: recorded to return"
      })
    ])
    expect(report.bankFees).toBe(BANK_FEE)
    expect(await seconds(pixFirst)).toEqual([{ rail: "barcode", amount: dueToday(A), status: "to_return" }])
    // Still settled once, by the PIX.
    expect((await detail(pixFirst)).boleto.payment.rail).toBe("pix")
    const rows = await postings(pixFirst)
    expect(rows.filter((r) => r.party === "merchant").map((r) => [r.type, r.amount])).toEqual([
      ["discount", -500],
      ["fee", -BILLET_FEE],
      ["sale", A]
    ])
    expect(rows.filter((r) => r.type === "second_payment").map((r) => [r.book, r.amount])).toEqual([
      ["payers", -dueToday(A)],
      ["payouts", dueToday(A)]
    ])
    expect(rows.filter((r) => r.type === "bank_fee").map((r) => [r.book, r.amount])).toEqual([
      ["fees", -BANK_FEE],
      ["payers", BANK_FEE]
    ])
    // The merchant's books did not move with the second payment; v1 shows one sale.
    expect((await merchantBalance()) - before).toBe(dueToday(A) - BILLET_FEE)
    const v1 = await api.get(`${V1}/transactions/${pixFirst}`, { token: key })
    expect(v1.body.data).toMatchObject({ status: "paid", amount_total: A, refunded_amount: 0 })
    expect(v1.body.data.billet.payment).toMatchObject({ amount_paid: dueToday(A), discount: 500 })
    // The same retorno again changes nothing.
    const again = await runCli<any>(["boleto", "retorno", join(tmpdir(), `bolepix-retorno-1-${process.pid}.ret`)], env)
    expect(again.outcome).toBe("duplicate")
    expect(await seconds(pixFirst)).toHaveLength(1)
    // Settled by its PIX, the cobv is concluded at the PSP: nothing to withdraw.
    await withdrawJobsDone()
    expect(withdrawals(await txidOf(pixFirst))).toEqual([])
  }, 120_000)

  it("barcode and PIX at once: settled by retorno 06; the cobv, paid meanwhile, goes back by devolução", async () => {
    expect(remessa).not.toBe("")
    const before = await merchantBalance()
    // The buyer pays the QR code at the PSP while the bank is paying the slip: its notice is lost and the
    // listing has not caught up, so the bank's report settles the boleto first.
    const txid = await txidOf(barcodeFirst)
    const e2e = await psp.pay(txid, { amount: dueToday(B), notify: false, listed: false })
    const report = await runCli<any>(
      ["boleto", "retorno", retorno(2, { [barcodeFirst]: { movement: "06", paidOn: today, fee: BANK_FEE } })],
      env,
      60_000
    )
    expect(report).toMatchObject({ outcome: "processed", exceptions: [] })
    expect(report.counts).toMatchObject({ settled: 1, alreadySettled: 0 })
    const t = await detail(barcodeFirst)
    expect(t.status).toBe("PAID")
    expect(t.boleto.payment).toMatchObject({ amountPaid: dueToday(B), discount: 500, rail: "barcode" })
    expect((await merchantBalance()) - before).toBe(dueToday(B) - BILLET_FEE)

    // The withdrawal finds the cobv paid (the PSP refuses it: 400, read back CONCLUIDA): its payment goes to the
    // inbox, which finds the boleto settled; the PIX is recorded and given back.
    const asked = await until("the devolução asked of the PSP", async () =>
      psp.exchanges.find((e) => e.method === "PUT" && e.path.startsWith(`/pix/${e2e}/devolucao/`))
    )
    await withdrawJobsDone()
    expect(withdrawals(txid)).toEqual([400])
    expect(psp.cobvs.get(txid)!.status).toBe("CONCLUIDA")
    expect(asked.requestBody).toEqual({ valor: (dueToday(B) / 100).toFixed(2) })
    expect(await received(barcodeFirst)).toEqual([{ outcome: "returned" }])
    // The PSP answered EM_PROCESSAMENTO: asked, not yet given back.
    expect(await seconds(barcodeFirst)).toEqual([{ rail: "pix", amount: dueToday(B), status: "returning" }])
    // The SPI returns it; the PSP's notice carries the devolução DEVOLVIDO.
    await psp.settleRefund(e2e, asked.path.split("/").at(-1)!, "DEVOLVIDO")
    await until("the second PIX returned", async () => {
      const rows = await seconds(barcodeFirst)
      return rows[0]?.status === "returned" ? rows : undefined
    })
    expect(await seconds(barcodeFirst)).toEqual([{ rail: "pix", amount: dueToday(B), status: "returned" }])

    const rows = await postings(barcodeFirst)
    expect(rows.filter((r) => r.party === "merchant").map((r) => [r.type, r.amount])).toEqual([
      ["discount", -500],
      ["fee", -BILLET_FEE],
      ["sale", B]
    ])
    const pair = (type: string) => rows.filter((r) => r.type === type).map((r) => [r.book, r.amount])
    expect(pair("second_payment")).toEqual([
      ["payers", -dueToday(B)],
      ["payouts", dueToday(B)]
    ])
    expect(pair("second_payment_return")).toEqual([
      ["payers", dueToday(B)],
      ["payouts", -dueToday(B)]
    ])
    // The merchant's balance moved by the one sale only; v1 shows it paid once, nothing refunded.
    expect((await merchantBalance()) - before).toBe(dueToday(B) - BILLET_FEE)
    const v1 = await api.get(`${V1}/transactions/${barcodeFirst}`, { token: key })
    expect(v1.body.data).toMatchObject({ status: "paid", amount_total: B, refunded_amount: 0 })
    // The PSP's notice at last, then again (its retry): nothing moves; the withdrawal run again neither.
    await psp.renotify(e2e)
    await psp.renotify(e2e)
    await withdrawAgain(barcodeFirst)
    expect(withdrawals(txid)).toEqual([400, 400])
    expect(await seconds(barcodeFirst)).toHaveLength(1)
    expect(await received(barcodeFirst)).toEqual([{ outcome: "returned" }])
    expect(await postings(barcodeFirst)).toEqual(rows)
    expect((await merchantBalance()) - before).toBe(dueToday(B) - BILLET_FEE)
    const check = await runCli<{ ok: boolean }>(["ledger", "check"], env, 60_000)
    expect(check.ok).toBe(true)
  }, 120_000)

  it("barcode first: the cobv withdrawn at the PSP, once; a PSP down is asked again after a back-off", async () => {
    const e = (await bolepix(A)).hash // withdrawn at the first try
    const f = (await bolepix(B)).hash // the PSP answers the first PATCH with a 503
    const cut = await runCli<{ cut: boolean; titles: number; path: string }>(["boleto", "remessa"], env, 60_000)
    expect(cut).toMatchObject({ cut: true, titles: 2 })
    remessa = readFileSync(cut.path, "latin1")
    const [txidE, txidF] = [await txidOf(e), await txidOf(f)]
    psp.inject(`PATCH /cobv/${txidF}`, "5xx")
    const before = await merchantBalance()
    const paidAtBank = { movement: "06", paidOn: today, fee: BANK_FEE } as const
    const report = await runCli<any>(
      ["boleto", "retorno", retorno(3, { [e]: paidAtBank, [f]: paidAtBank })],
      env,
      60_000
    )
    expect(report).toMatchObject({ outcome: "processed", exceptions: [] })
    expect(report.counts).toMatchObject({ settled: 2, alreadySettled: 0 })

    // F's first try failed on the 503 and graphile-worker holds the job for its back-off, then runs it again.
    const failed = await until("F's first withdrawal failed", async () => {
      const job = await db.query<{ attempts: number; last_error: string | null }>(
        `select attempts, last_error from graphile_worker.jobs where key = $1`,
        [`withdraw_cobv:${f}`]
      )
      const row = job.rows[0]
      return row !== undefined && row.attempts >= 1 && row.last_error !== null ? row : undefined
    })
    expect(failed.attempts).toBe(1)
    // The job's last_error says why (src/jobs/failureReason.ts), not only that it failed.
    expect(failed.last_error).toMatch(
      /^withdraw_due_charge failed: ProviderUnavailable: the PIX provider is unavailable/
    )
    expect(psp.pendingFaults()).toBe(0)
    await withdrawJobsDone()
    // One PATCH each that the PSP answered (F's 503 came before it): both withdrawn, neither QR payable.
    expect(withdrawals(txidE)).toEqual([200])
    expect(withdrawals(txidF)).toEqual([200])
    for (const txid of [txidE, txidF]) {
      expect(psp.cobvs.get(txid)!.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR")
      await expect(psp.pay(txid, { amount: 1_000 })).rejects.toThrow(/REMOVIDA/)
    }
    // The withdrawal run again (a duplicate job): the PSP refuses it, read back withdrawn; nothing else moves.
    await withdrawAgain(e)
    expect(withdrawals(txidE)).toEqual([200, 400])
    expect(psp.cobvs.get(txidE)!.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR")
    // Settled once each by the bank's report; no second payment; the merchant's books to the centavo.
    for (const id of [e, f]) {
      expect((await detail(id)).boleto.payment.rail).toBe("barcode")
      expect(await seconds(id)).toEqual([])
      expect(await received(id)).toEqual([])
    }
    expect((await merchantBalance()) - before).toBe(dueToday(A) + dueToday(B) - 2 * BILLET_FEE)
  }, 120_000)

  it("a second PIX the PSP could not return when asked: the job asks again, the same devolução", async () => {
    expect(remessa).not.toBe("")
    const c = (await bolepix(A)).hash // its devolução asked while the PSP is down, then returned by the SPI
    const d = (await bolepix(B)).hash // its devolução refused by the SPI (NAO_REALIZADO)
    const cut = await runCli<{ cut: boolean; titles: number; path: string }>(["boleto", "remessa"], env, 60_000)
    expect(cut).toMatchObject({ cut: true, titles: 2 })
    remessa = readFileSync(cut.path, "latin1")
    askedAgain = [c, d]
    const before = await merchantBalance()
    const toReturnBefore = (await gauge("operator_queue", "bolepix_to_return"))!
    // Both QRs paid at the PSP as the bank pays both slips (notices lost, the listing behind): the slips
    // settle, and each withdrawal finds its cobv paid and hands the PIX to be returned. C's devolução is
    // asked while the PSP is unreachable for devoluções: the ask and its one retry get 503.
    const e2eC = await psp.pay(await txidOf(c), { amount: dueToday(A), notify: false, listed: false })
    const e2eD = await psp.pay(await txidOf(d), { amount: dueToday(B), notify: false, listed: false })
    psp.inject(`PUT /pix/${e2eC}/`, "5xx")
    psp.inject(`PUT /pix/${e2eC}/`, "5xx")
    const paidAtBank = { movement: "06", paidOn: today, fee: BANK_FEE } as const
    const file = retorno(4, { [c]: paidAtBank, [d]: paidAtBank })
    const report = await runCli<any>(["boleto", "retorno", file], env, 60_000)
    expect(report).toMatchObject({ outcome: "processed", exceptions: [] })
    expect(report.counts).toMatchObject({ settled: 2, alreadySettled: 0 })

    await until("the PSP asked while down", async () => (psp.pendingFaults() === 0 ? true : undefined))
    await withdrawJobsDone()
    expect(withdrawals(await txidOf(c))).toEqual([400])
    expect(withdrawals(await txidOf(d))).toEqual([400])
    expect(await received(c)).toEqual([{ outcome: "returned" }])
    expect(await seconds(c)).toEqual([{ rail: "pix", amount: dueToday(A), status: "returning" }])
    expect(devolucoes(e2eC)).toEqual([])
    // D's devolução asked with the PSP up, answered EM_PROCESSAMENTO.
    await until("D's devolução asked", async () => (devolucoes(e2eD).length === 1 ? true : undefined))
    const idD = devolucoes(e2eD)[0]!.id
    expect(devolucoes(e2eD)).toEqual([{ method: "PUT", id: idD, status: 201 }])
    expect(await seconds(d)).toEqual([{ rail: "pix", amount: dueToday(B), status: "returning" }])
    expect(await gauge("operator_queue", "bolepix_returning")).toBe(2)

    // Asked a moment ago: the job leaves both alone until 5 minutes have passed.
    await askAgain()
    expect(devolucoes(e2eC)).toEqual([])
    expect(devolucoes(e2eD)).toHaveLength(1)

    // Six minutes later, the PSP back: C's devolução asked (EM_PROCESSAMENTO); D's the same one, read back.
    await sixMinutesLater(c, d)
    await askAgain()
    expect(devolucoes(e2eC)).toHaveLength(1)
    const idC = devolucoes(e2eC)[0]!.id
    expect(devolucoes(e2eC)).toEqual([{ method: "PUT", id: idC, status: 201 }])
    expect(devolucoes(e2eD)).toEqual([
      { method: "PUT", id: idD, status: 201 },
      { method: "PUT", id: idD, status: 400 },
      { method: "GET", id: idD, status: 200 }
    ])
    expect((await seconds(c))[0]!.status).toBe("returning")
    expect((await seconds(d))[0]!.status).toBe("returning")
    const asked = await db.query<{ asked_again: number }>(
      `select asked_again from bolepix_second_payments where transaction_id = any($1::uuid[])`,
      [[c, d]]
    )
    expect(asked.rows).toEqual([{ asked_again: 1 }, { asked_again: 1 }])

    // The SPI decides both, and the PSP's notices are lost: C returned, D not returned.
    await psp.settleRefund(e2eC, idC, "DEVOLVIDO", { notify: false })
    await psp.settleRefund(e2eD, idD, "NAO_REALIZADO", { notify: false })
    // Six minutes later two runs at once: each devolução is asked once (one claims it, the other skips it).
    await sixMinutesLater(c, d)
    const [fromC, fromD] = [devolucoes(e2eC).length, devolucoes(e2eD).length]
    await askAgain(2)
    expect(devolucoes(e2eC).slice(fromC)).toEqual([
      { method: "PUT", id: idC, status: 400 },
      { method: "GET", id: idC, status: 200 }
    ])
    expect(devolucoes(e2eD).slice(fromD)).toEqual([
      { method: "PUT", id: idD, status: 400 },
      { method: "GET", id: idD, status: 200 }
    ])
    expect(await seconds(c)).toEqual([{ rail: "pix", amount: dueToday(A), status: "returned" }])
    expect(await seconds(d)).toEqual([{ rail: "pix", amount: dueToday(B), status: "to_return" }])

    // The books: C's second payment in and back out once; D's in, owed to its payer; the merchant's two sales.
    const pair = async (id: string, type: string) =>
      (await postings(id)).filter((r) => r.type === type).map((r) => [r.book, r.amount])
    expect(await pair(c, "second_payment")).toEqual([
      ["payers", -dueToday(A)],
      ["payouts", dueToday(A)]
    ])
    expect(await pair(c, "second_payment_return")).toEqual([
      ["payers", dueToday(A)],
      ["payouts", -dueToday(A)]
    ])
    expect(await pair(d, "second_payment")).toEqual([
      ["payers", -dueToday(B)],
      ["payouts", dueToday(B)]
    ])
    expect(await pair(d, "second_payment_return")).toEqual([])
    expect((await merchantBalance()) - before).toBe(dueToday(A) + dueToday(B) - 2 * BILLET_FEE)

    // Run again, even long after: nothing is due (neither is `returning`), nothing asked, nothing posted twice.
    const [booksC, booksD] = [await postings(c), await postings(d)]
    const exchanged = psp.exchanges.length
    await sixMinutesLater(c, d)
    await askAgain()
    expect(psp.exchanges.slice(exchanged).filter((e) => e.path.includes("/devolucao/"))).toEqual([])
    expect(await postings(c)).toEqual(booksC)
    expect(await postings(d)).toEqual(booksD)
    expect((await merchantBalance()) - before).toBe(dueToday(A) + dueToday(B) - 2 * BILLET_FEE)
    // The PSP's late notice of C's devolução changes nothing either.
    await psp.renotify(e2eC)
    expect(await postings(c)).toEqual(booksC)
    expect(await gauge("operator_queue", "bolepix_returning")).toBe(0)
    expect(await gauge("operator_queue", "bolepix_to_return")).toBe(toReturnBefore + 1)
    const check = await runCli<{ ok: boolean }>(["ledger", "check"], env, 60_000)
    expect(check.ok).toBe(true)
  }, 180_000)

  it("what waits for an operator, on /metrics: a PIX for no charge, money owed to payers, a held retorno", async () => {
    const kinds = [
      "pix_unknown_charge",
      "pix_amount_mismatch",
      "pix_not_payable",
      "bolepix_to_return",
      "bolepix_returning",
      "boleto_payment_to_return",
      "cnab_retorno_held",
      "card_refund_unknown",
      "pix_refund_undecided"
    ]
    // Every kind is reported, 0 included, with its oldest's age: every kind closes (PIX exceptions by a mark).
    for (const kind of kinds) {
      expect(await gauge("operator_queue", kind), kind).toBeTypeOf("number")
      expect(await gauge("operator_queue_oldest_age_seconds", kind), kind).toBeTypeOf("number")
    }
    const owed = await db.query<{ n: number }>(
      `select count(*)::int as n from bolepix_second_payments where status = 'to_return'`
    )
    expect(await gauge("operator_queue", "bolepix_to_return")).toBe(owed.rows[0]!.n)
    expect(await gauge("operator_queue_oldest_age_seconds", "bolepix_to_return")).toBeGreaterThan(0)
    expect(await gauge("operator_queue", "cnab_retorno_held")).toBe(0)
    expect(await gauge("operator_queue_oldest_age_seconds", "cnab_retorno_held")).toBe(0)

    // A PIX naming a txid that is none of our charges.
    const unknown = (await gauge("operator_queue", "pix_unknown_charge"))!
    await psp.pay("NoSuchCharge0000000000000000000", { amount: 1_234 })
    await until("the PIX for no charge recorded", async () =>
      (await gauge("operator_queue", "pix_unknown_charge")) === unknown + 1 ? true : undefined
    )
    // Retorno 6 before 5 (the titles' entries confirmed): held until 5 arrives, for two hours now.
    expect(askedAgain).toHaveLength(2)
    const confirmed = Object.fromEntries(askedAgain.map((id) => [id, { movement: "02" } as const]))
    const held = await runCli<any>(["boleto", "retorno", retorno(6, confirmed)], env, 60_000)
    expect(held.outcome).toBe("held")
    expect(await gauge("operator_queue", "cnab_retorno_held")).toBe(1)
    await db.query(`update cnab_retornos set received_at = now() - interval '2 hours' where status = 'held'`)
    expect(await gauge("operator_queue_oldest_age_seconds", "cnab_retorno_held")).toBeGreaterThan(7_000)
    // Given back, a second payment leaves the queue: the operator closes D-like ones by hand.
    const one = await db.query<{ id: string }>(
      `select id from bolepix_second_payments where status = 'to_return' order by created_at limit 1`
    )
    const closed = await runCli<any>(["bolepix", "returned", "--id", one.rows[0]!.id], env, 60_000)
    expect(closed.outcome).toBe("returned")
    expect(await gauge("operator_queue", "bolepix_to_return")).toBe(owed.rows[0]!.n - 1)
  }, 120_000)

  it("expiry: the boleto's deadline passes unpaid and its cobv is withdrawn with it", async () => {
    const g = (await bolepix(A)).hash
    const txid = await txidOf(g)
    // Its deadline now: the keyed expiry job queued at creation is run at once (add_job replaces its run_at).
    await db.query(
      `select graphile_worker.add_job('expire_transaction',
         json_build_object('accountId', account_id::text, 'transactionId', id::text),
         job_key := 'expire:' || id::text, max_attempts := 10) from transactions where id = $1`,
      [g]
    )
    await until("the bolepix expired", async () => {
      const v1 = await api.get(`${V1}/transactions/${g}`, { token: key })
      return v1.body.data?.status === "cancelled" ? true : undefined
    })
    await withdrawJobsDone()
    expect(withdrawals(txid)).toEqual([200])
    expect(psp.cobvs.get(txid)!.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR")
    await expect(psp.pay(txid, { amount: A })).rejects.toThrow(/REMOVIDA/)
    expect(await seconds(g)).toEqual([])
    const check = await runCli<{ ok: boolean }>(["ledger", "check"], env, 60_000)
    expect(check.ok).toBe(true)
  }, 120_000)

  it("PIX first, then the slip paid twice: each liquidation the bank reports is recorded to return once", async () => {
    const before = await merchantBalance()
    // Its first barcode payment, recorded by retorno 1 (and perhaps closed by hand since).
    const first = await seconds(pixFirst)
    expect(first).toEqual([{ rail: "barcode", amount: dueToday(A), status: expect.any(String) }])
    // The bank answers for remessa 1's title.
    remessa = firstRemessa
    // Retorno 5 (retorno 6 held after it): the bank reports retorno 1's liquidation again, the same occurrence.
    const repeated = await runCli<any>(
      ["boleto", "retorno", retorno(5, { [pixFirst]: { movement: "06", paidOn: today, fee: BANK_FEE } })],
      env,
      60_000
    )
    expect(repeated.outcome).toBe("processed")
    expect(repeated.counts).toMatchObject({ settled: 0, alreadySettled: 1 })
    expect(repeated.exceptions).toEqual([])
    expect(repeated.bankFees).toBe(0)
    expect(repeated.then.map((r: { fileNumber: number }) => r.fileNumber)).toEqual([6])
    expect(await seconds(pixFirst)).toEqual(first)
    // Retorno 7: the slip paid again the next day, another liquidation: a second payment of its own to return.
    const tomorrow = addCalendarDays(today, 1)
    const again = await runCli<any>(
      ["boleto", "retorno", retorno(7, { [pixFirst]: { movement: "06", paidOn: tomorrow, fee: BANK_FEE } })],
      env,
      60_000
    )
    expect(again.counts).toMatchObject({ settled: 0, alreadySettled: 1 })
    expect(again.exceptions).toEqual([
      expect.objectContaining({
        transactionId: pixFirst,
        message: "a bolepix its PIX already settled: recorded to return"
      })
    ])
    expect(again.bankFees).toBe(BANK_FEE)
    expect(await seconds(pixFirst)).toEqual([...first, { rail: "barcode", amount: dueToday(A), status: "to_return" }])
    const rows = await postings(pixFirst)
    expect(rows.filter((r) => r.type === "second_payment").map((r) => [r.book, r.amount])).toEqual([
      ["payers", -2 * dueToday(A)],
      ["payouts", 2 * dueToday(A)]
    ])
    expect((await merchantBalance()) - before).toBe(0)
    const check = await runCli<{ ok: boolean }>(["ledger", "check"], env, 60_000)
    expect(check.ok).toBe(true)
  }, 120_000)
})
