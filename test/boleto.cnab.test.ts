import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { transactionIdOf } from "../src/adapters/providers/bb-cnab240/retorno.ts"
import { addCalendarDays, onOrNextBusinessDay } from "../src/domain/calendar.ts"
import { saoPauloDate } from "../src/domain/time.ts"
import { answerRemessa, type Outcome, type RemessaTitleSeen } from "./fakes/bank/bank.ts"
import { type LoopbackFake } from "./fakes/loopback/server.ts"
import { startBankByFilesService } from "./support/bankByFiles.ts"
import { type Client } from "./support/http.ts"
import { runCli, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * Real boleto through a bank by CNAB 240 (issue 21 §4, docs/providers.md "Boleto: banks by CNAB 240"), through
 * a service process in live mode with LIVE_BOLETO_PROVIDER=bb-cnab240: 1,000 boletos created by the API with a
 * live key → the remessa the CLI cuts → the fake bank → retornos with 02/03/06/09/17/28 mixed, ingested by the
 * CLI, the watched directory's job and the operator's upload. Exactly the paid ones settle, with the bank's
 * amounts to the centavo (computed here from the terms by hand), the bank's fee is posted on the gateway's
 * books, balances are exact; the same file again changes nothing; a file out of sequence is held, then
 * processed after the missing one; a malformed line is reported with its number.
 */

const N = 1_000
const FEE_BILLET = 349
const UPLOAD_TOKEN = "operator-upload-token-0123456789abcdef"
const V1 = "/public/v1"

const today = saoPauloDate(new Date())
// A business day, so that late means after it (docs/boleto.md "Late is after the last day without charges").
const DUE = onOrNextBusinessDay(addCalendarDays(today, 10))
const DISCOUNT_UNTIL = addCalendarDays(today, 3)
const amountOf = (i: number) => 10_000 + i * 7
const hasTerms = (i: number) => i % 2 === 0

// What the bank answers for the title at place `i` of the remessa (retorno 1).
const MIX: ReadonlyArray<(i: number) => Outcome> = [
  () => ({ movement: "02" }),
  () => ({ movement: "03", reasons: ["08", "16"] }),
  (i) => ({ movement: "06", paidOn: addCalendarDays(DUE, i % 13), fee: 180, reasons: ["04"] }),
  () => ({ movement: "09", reasons: ["10"] }),
  (i) => ({ movement: "17", paidOn: addCalendarDays(DUE, 20 + (i % 5)), fee: 180 }),
  () => ({ movement: "28", fee: 90 })
]
const group = (g: number) => Array.from({ length: N }, (_, i) => i).filter((i) => i % MIX.length === g)

/** Half up, exactly (docs/boleto.md "Rounding"). */
const halfUp = (num: bigint, den: bigint) => Number((2n * num + den) / (2n * den))

/**
 * What the buyer pays on `paidOn` for title `i`, by hand from its terms: fine 2 % once and interest 1 % a
 * month for each calendar day from the due date when paid after it; the discount (500 until DISCOUNT_UNTIL)
 * never applies here, every payment being on or after the due date.
 */
const expectedPaid = (place: number, paidOn: string) => {
  const amount = amountAt(place)
  if (!termsAt(place) || paidOn <= DUE) return amount
  const days = BigInt(Math.round((Date.parse(paidOn) - Date.parse(DUE)) / 86_400_000))
  return amount + halfUp(BigInt(amount) * 2n, 100n) + halfUp(BigInt(amount) * days, 100n * 30n)
}

let fake: LoopbackFake
let service: RoleProcess
let databaseUrl: string
let db: pg.Client
let api: Client
let key: string
let accountId: string
let remessaDir: string
let retornoDir: string
let env: Record<string, string>
// The transaction at each place of the remessa, each transaction's place in the creation order, the remessa.
let ids: Array<string> = []
const created = new Map<string, number>()
// A title's amount and terms by its place in the remessa (the bank's order, not the creation order).
const amountAt = (place: number) => amountOf(created.get(ids[place]!)!)
const termsAt = (place: number) => hasTerms(created.get(ids[place]!)!)
let remessa = ""

beforeAll(async () => {
  ;({
    fake,
    databaseUrl,
    remessaDir,
    retornoDir,
    env,
    service,
    api,
    merchant: { key }
  } = await startBankByFilesService({
    prefix: "cnab",
    merchantName: "Loja do Banco",
    uploadToken: UPLOAD_TOKEN,
    retornoPollSeconds: 1
  }))
  db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
}, 120_000)

afterAll(async () => {
  await db?.end()
  await stopAll([service])
  await fake?.close()
  for (const dir of [remessaDir, retornoDir]) if (dir) rmSync(dir, { recursive: true, force: true })
})

const upload = (content: string, token: string | null = UPLOAD_TOKEN) =>
  api.post("/ops/bank/retornos", { content }, token === null ? {} : { token })

/** The retorno lines of the titles at `places` only (headers and trailers kept; the reader skips trailers). */
const only = (retorno: string, places: ReadonlyArray<number>) => {
  const lines = retorno.split("\r\n").filter((l) => l !== "")
  const body = places.flatMap((i) => [lines[2 + 2 * i]!, lines[3 + 2 * i]!])
  return `${[lines[0]!, lines[1]!, ...body, ...lines.slice(-2)].join("\r\n")}\r\n`
}

const books = async () => {
  const balance = await api.get(`${V1}/balance`, { token: key })
  expect(balance.status, balance.text).toBe(200)
  const [fees] = (
    await db.query<{ total: string; n: string }>(
      `select coalesce(sum(amount), 0)::text as total, count(*)::text as n from ledger_postings
       where account_id = $1 and type = 'bank_fee' and book = 'fees'`,
      [accountId]
    )
  ).rows
  const [counts] = (
    await db.query<{ postings: string; events: string }>(
      `select (select count(*) from ledger_postings where account_id = $1)::text as postings,
              (select count(*) from events where account_id = $1)::text as events`,
      [accountId]
    )
  ).rows
  return {
    merchant: (balance.body.data.available as number) + (balance.body.data.pending as number),
    bankFees: -Number(fees!.total),
    postings: Number(counts!.postings),
    events: Number(counts!.events)
  }
}

const statuses = async () =>
  new Map(
    (
      await db.query<{ id: string; status: string; declineCode: string | null }>(
        `select id, status, decline_code as "declineCode" from transactions where account_id = $1`,
        [accountId]
      )
    ).rows.map((r) => [r.id, r])
  )

describe("boleto by CNAB 240 through the real stack", () => {
  it("1,000 boletos by the API with a live key are queued, and the CLI cuts one numbered remessa of them", async () => {
    const started = Date.now()
    for (let from = 0; from < N; from += 50) {
      const batch = Array.from({ length: Math.min(50, N - from) }, (_, k) => from + k)
      const replies = await Promise.all(
        batch.map((i) =>
          api.post(
            `${V1}/transactions`,
            {
              method: "billet",
              amount: amountOf(i),
              expires_at: `${DUE}T12:00:00-03:00`,
              customer: { name: "Beatriz Souza", email: "bia@example.com", document: "11.222.333/0001-81" },
              ...(hasTerms(i)
                ? {
                    billet: {
                      fine: { type: "percentage", value: 2 },
                      interest: { type: "percentage_per_month", value: 1 },
                      discounts: [{ type: "fixed", value: 500, until: DISCOUNT_UNTIL }]
                    }
                  }
                : {})
            },
            { token: key }
          )
        )
      )
      replies.forEach((r, k) => {
        expect(r.status, r.text).toBe(201)
        created.set(r.body.data.hash as string, batch[k]!)
      })
      // Bank 001's barcode, computed locally: the slip exists before the bank has seen it.
      for (const r of replies) expect(r.body.data.billet.barcode).toMatch(/^0019\d{40}$/)
    }
    console.log(`created ${N} boletos in ${Date.now() - started} ms`)
    // The live key's tenant (the account row is the (merchant, mode) tenant: docs/decisions.md).
    const [first] = (
      await db.query<{ accountId: string }>(`select account_id as "accountId" from transactions limit 1`)
    ).rows
    accountId = first!.accountId

    const cut = await runCli<{ cut: boolean; fileNumber: number; titles: number; path: string }>(
      ["boleto", "remessa"],
      env,
      60_000
    )
    expect(cut).toMatchObject({ cut: true, fileNumber: 1, titles: N })
    expect(cut.path).toBe(join(remessaDir, "remessa-000001.rem"))
    // Whole, under its final name only (written beside and renamed).
    expect(readdirSync(remessaDir)).toEqual(["remessa-000001.rem"])
    remessa = readFileSync(cut.path, "latin1")
    const lines = remessa.split("\r\n").filter((l) => l !== "")
    expect(lines).toHaveLength(2 + 3 * N + 2)
    expect(lines[0]!.slice(157, 163)).toBe("000001")
    // Each title's transaction, by its place in the file (P 196–220 carries our id).
    ids = lines.filter((l) => l[13] === "P").map((l) => transactionIdOf(l.slice(195, 220))!)
    expect(new Set(ids).size).toBe(N)
    expect(ids.every((id) => created.has(id))).toBe(true)

    // Nothing queued any more: a second cut has nothing to send and takes no number.
    const again = await runCli<{ cut: boolean }>(["boleto", "remessa"], env, 60_000)
    expect(again.cut).toBe(false)
    const [titles] = (
      await db.query<{ sent: string }>(
        `select count(*) filter (where status = 'sent' and remessa = 1)::text as sent from cnab_titles
         where account_id = $1`,
        [accountId]
      )
    ).rows
    expect(Number(titles!.sent)).toBe(N)
    const [counter] = (await db.query<{ value: number }>(`select value from cnab_counters where name = 'remessa'`)).rows
    expect(counter!.value).toBe(1)

    // A process that died after the commit and before the rename: the next cut writes the file from the database.
    rmSync(cut.path)
    await db.query(`update cnab_remessas set written_at = null where file_number = 1`)
    const recovered = await runCli<{ cut: boolean }>(["boleto", "remessa"], env, 60_000)
    expect(recovered.cut).toBe(false)
    expect(readFileSync(cut.path, "latin1")).toBe(remessa)
    expect(readdirSync(remessaDir)).toEqual(["remessa-000001.rem"])
  }, 240_000)

  it("retorno 1 by the CLI: the paid ones settle at the bank's amounts, fees posted, a bad line named", async () => {
    expect(ids).toHaveLength(N)
    const retorno = answerRemessa(remessa, 1, (t: RemessaTitleSeen) => MIX[t.index % MIX.length]!(t.index))
    // Break the amount of the first title's T (line 3; title 0 is a 02): reported with its number, the rest read.
    const lines = retorno.split("\r\n")
    lines[2] = `${lines[2]!.slice(0, 85)}X${lines[2]!.slice(86)}`
    const file = join(tmpdir(), `retorno-1-${process.pid}.ret`)
    writeFileSync(file, lines.join("\r\n"), "latin1")
    writeFileSync(join(tmpdir(), `retorno-1-clean-${process.pid}.ret`), retorno, "latin1")

    const before = await books()
    const report = await runCli<any>(["boleto", "retorno", file], env, 120_000)
    expect(report.outcome).toBe("processed")
    expect(report.fileNumber).toBe(1)
    expect(report.rejectedLines).toEqual([
      { line: 3, error: expect.stringContaining("amount (82-96) is not numeric") },
      { line: 4, error: "its segment T was rejected" }
    ])
    const paid = [...group(2), ...group(4)]
    expect(report.counts).toEqual({
      registered: group(0).length - 1,
      rejected: group(1).length,
      settled: paid.length,
      alreadySettled: 0,
      writtenOff: group(3).length,
      feeOnly: group(5).length,
      other: 0
    })
    expect(report.exceptions).toEqual([])
    const fees = paid.length * 180 + group(5).length * 90
    expect(report.bankFees).toBe(fees)

    const after = await books()
    // The merchant's receivable: what the buyer paid, by hand from the terms, less the billet fee.
    const paidOn = (i: number) => MIX[i % MIX.length]!(i).paidOn!
    const expectedMerchant = paid.reduce((s, i) => s + expectedPaid(i, paidOn(i)) - FEE_BILLET, 0)
    expect(after.merchant - before.merchant).toBe(expectedMerchant)
    expect(after.bankFees - before.bankFees).toBe(fees)

    const status = await statuses()
    for (const i of paid) expect(status.get(ids[i]!)!.status).toBe("PAID")
    for (const i of group(1))
      expect(status.get(ids[i]!)).toMatchObject({ status: "CANCELLED", declineCode: "boleto_rejected" })
    for (const i of group(3)) expect(status.get(ids[i]!)).toMatchObject({ status: "CANCELLED", declineCode: "expired" })
    for (const i of [...group(0), ...group(5)]) expect(status.get(ids[i]!)!.status).toBe("PENDING")

    // The payment as v1 shows it: the bank's amounts in parts, the day the buyer paid.
    const late = group(2).find((i) => termsAt(i) && paidOn(i) > DUE)!
    const shown = await api.get(`${V1}/transactions/${ids[late]}`, { token: key })
    expect(shown.status, shown.text).toBe(200)
    const days = Math.round((Date.parse(paidOn(late)) - Date.parse(DUE)) / 86_400_000)
    const amount = amountAt(late)
    expect(shown.body.data.billet.payment).toMatchObject({
      paid_on: paidOn(late),
      amount_paid: expectedPaid(late, paidOn(late)),
      principal: amount,
      fine: halfUp(BigInt(amount) * 2n, 100n),
      interest: halfUp(BigInt(amount) * BigInt(days), 3000n),
      discount: 0
    })
    // The events: one paid per settled title, one cancelled per rejected or written-off one.
    const events = (
      await db.query<{ type: string; n: string }>(
        `select type, count(distinct transaction_id)::text as n from events where account_id = $1 group by type`,
        [accountId]
      )
    ).rows
    const count = (type: string) => Number(events.find((e) => e.type === type)?.n ?? 0)
    expect(count("transaction.paid")).toBe(paid.length)
    expect(count("transaction.cancelled")).toBe(group(1).length + group(3).length)

    // The same file again (the clean one has the same NSA, another digest: refused; this one: a duplicate).
    const again = await runCli<any>(["boleto", "retorno", file], env, 60_000)
    expect(again.outcome).toBe("duplicate")
    expect(await books()).toEqual(after)
    const other = await upload(retorno)
    expect(other.status, other.text).toBe(409)
    expect(other.body.message).toBe("retorno number 1 was already used by another file")
    expect(await books()).toEqual(after)
  }, 240_000)

  it("the upload refuses a missing or wrong token, and changes nothing", async () => {
    const retorno = answerRemessa(remessa, 2, () => ({ movement: "06", paidOn: DUE, fee: 180 }))
    const before = await books()
    for (const token of [null, "operator-upload-token-0123456789abcdeX", "short"]) {
      const reply = await upload(retorno, token)
      expect(reply.status, reply.text).toBe(401)
      expect(reply.body.code).toBe("invalid_token")
    }
    const bearerless = await api.request(
      "POST",
      "/ops/bank/retornos",
      { content: retorno },
      { headers: { authorization: UPLOAD_TOKEN } }
    )
    expect(bearerless.status).toBe(401)
    // With the token, a body that is not `{content}` alone is a 400 naming the field.
    const unknown = await api.post("/ops/bank/retornos", { content: retorno, colour: "blue" }, { token: UPLOAD_TOKEN })
    expect(unknown.status, unknown.text).toBe(400)
    expect(unknown.body.errors).toEqual([{ field: "colour", message: "colour is not a known field" }])
    const missing = await api.post("/ops/bank/retornos", {}, { token: UPLOAD_TOKEN })
    expect(missing.status, missing.text).toBe(400)
    expect(missing.body.errors).toEqual([{ field: "content", message: "content must be the retorno's text" }])
    const garbage = await upload("not a retorno")
    expect(garbage.status, garbage.text).toBe(400)
    expect(garbage.body.code).toBe("unreadable_retorno")
    expect(await books()).toEqual(before)
    const [held] = (await db.query<{ n: string }>(`select count(*)::text as n from cnab_retornos`)).rows
    expect(held!.n).toBe("1")
  })

  it("retorno 3 before 2 is held; 2 by the watched directory, then 3, processed; nothing settles twice", async () => {
    const paidOn = (i: number) => MIX[i % MIX.length]!(i).paidOn!
    // Retorno 2: ten 06 titles repeated, ten 06 titles reported again as 17 (after 06): none settles again.
    const repeated = group(2).slice(0, 10)
    const after06 = group(2).slice(10, 20)
    const two = only(
      answerRemessa(remessa, 2, (t) =>
        repeated.includes(t.index)
          ? { movement: "06", paidOn: paidOn(t.index) }
          : after06.includes(t.index)
            ? { movement: "17", paidOn: addCalendarDays(paidOn(t.index), 1) }
            : { movement: "02" }
      ),
      [...repeated, ...after06]
    )
    // Retorno 3: ten registered titles paid on the due date, ten fee-only lines.
    const newlyPaid = group(0).slice(1, 11)
    const feeOnly = group(5).slice(0, 10)
    const three = only(
      answerRemessa(remessa, 3, (t) =>
        newlyPaid.includes(t.index) ? { movement: "06", paidOn: DUE, fee: 180 } : { movement: "28", fee: 90 }
      ),
      [...newlyPaid, ...feeOnly]
    )

    const before = await books()
    const held = await upload(three)
    expect(held.status, held.text).toBe(202)
    expect(held.body).toMatchObject({
      outcome: "held",
      fileNumber: 3,
      message: "retorno 3 held until retorno 2 arrives"
    })
    // Held: stored, nothing applied.
    expect(await books()).toEqual(before)
    const again = await upload(three)
    expect(again.status).toBe(200)
    expect(again.body.outcome).toBe("duplicate")

    // Retorno 2 dropped into the watched directory (written beside and renamed, as a transfer tool should).
    writeFileSync(join(retornoDir, ".retorno-2.tmp"), two, "latin1")
    const { renameSync } = await import("node:fs")
    renameSync(join(retornoDir, ".retorno-2.tmp"), join(retornoDir, "retorno-2.ret"))
    const deadline = Date.now() + 60_000
    while (!existsSync(join(retornoDir, "processed", "retorno-2.ret")) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250))
    }
    expect(existsSync(join(retornoDir, "processed", "retorno-2.ret"))).toBe(true)
    expect(existsSync(join(retornoDir, "retorno-2.ret"))).toBe(false)

    const rows = (
      await db.query<{ fileNumber: number; status: string; report: any }>(
        `select file_number as "fileNumber", status, report from cnab_retornos order by file_number`
      )
    ).rows
    expect(rows.map((r) => [r.fileNumber, r.status])).toEqual([
      [1, "processed"],
      [2, "processed"],
      [3, "processed"]
    ])
    expect(rows[1]!.report.counts).toMatchObject({ settled: 0, alreadySettled: 20 })
    expect(rows[2]!.report.counts).toMatchObject({ settled: 10, feeOnly: 10 })

    const after = await books()
    const expected = newlyPaid.reduce((s, i) => s + amountAt(i) - FEE_BILLET, 0)
    expect(after.merchant - before.merchant).toBe(expected)
    expect(after.bankFees - before.bankFees).toBe(10 * 180 + 10 * 90)
    const status = await statuses()
    for (const i of newlyPaid) expect(status.get(ids[i]!)!.status).toBe("PAID")
    // One paid event per title, whatever the bank repeated.
    const [paidEvents] = (
      await db.query<{ n: string; titles: string }>(
        `select count(*)::text as n, count(distinct transaction_id)::text as titles from events
         where account_id = $1 and type = 'transaction.paid'`,
        [accountId]
      )
    ).rows
    expect(paidEvents!.n).toBe(paidEvents!.titles)

    // The books check of the whole ledger holds.
    const check = await runCli<{ ok: boolean }>(["ledger", "check"], env, 60_000)
    expect(check.ok).toBe(true)
  }, 240_000)
})
