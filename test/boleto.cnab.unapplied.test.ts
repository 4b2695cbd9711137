import { readFileSync, rmSync } from "node:fs"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { transactionIdOf } from "../src/adapters/providers/bb-cnab240/retorno.ts"
import { addBusinessDays, addCalendarDays, onOrNextBusinessDay } from "../src/domain/calendar.ts"
import { saoPauloDate } from "../src/domain/time.ts"
import { answerRemessa, type Outcome } from "./fakes/bank/bank.ts"
import { type LoopbackFake } from "./fakes/loopback/server.ts"
import { startBankByFilesService } from "./support/bankByFiles.ts"
import { type Client } from "./support/http.ts"
import { runCli, runCliOutput, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * Money a bank reports received (CNAB 06/17) for a boleto, through a service process in live mode with
 * LIVE_BOLETO_PROVIDER=bb-cnab240, the fake bank, the operator's upload and the CLI (docs/boleto.md "When a boleto
 * expires" and "Payments the gateway does not apply"): every centavo ends in the merchant's books or, owed back
 * to its payer, on the gateway's books and in the operator's queue (docs/operations.md "What waits for an
 * operator").
 * - The bank's write-off (09) after the last payable day leaves the charge in its grace: a 17 for a payment of
 *   that last day settles it. A 09 on the last payable day (an early write-off) ends it at once.
 * - A payment no charge takes — dated after the last payable day of a title written off, of a transaction that
 *   had ended, a second liquidation on another day, of a nosso número that is no title of ours — is recorded to
 *   return once per occurrence, posted payers −/payouts + for a title of ours, counted in
 *   `operator_queue{kind="boleto_payment_to_return"}`, listed by `boleto returns` and closed by `boleto returned`.
 */

const UPLOAD_TOKEN = "unapplied-upload-token-0123456789abcdefgh"
const V1 = "/public/v1"
const FEE_BILLET = 349
const BANK_FEE = 180
// Titles without terms: each asks its amount on any day, and the bank reports that amount paid.
const AMOUNT = 10_000
const NET = AMOUNT - FEE_BILLET
const TITLES = 6
const KIND = "boleto_payment_to_return"
const today = saoPauloDate(new Date())
/** The slips' due date, their last payable day (no terms: no day after it). */
const DUE = onOrNextBusinessDay(addCalendarDays(today, 10))
/** The day after the last payable day: when the bank writes a title off. */
const WRITE_OFF = addBusinessDays(DUE, 1)
const LATE = addCalendarDays(DUE, 5)
const STRAY_SEQUENCE = "9999999999"
/** Why a payment after the last payable day of a title written off is not applied, in the report's words. */
const lateWords = `paid at the bank on ${LATE}, after its last payable day (${DUE}), written off`

let fake: LoopbackFake
let service: RoleProcess
let databaseUrl: string
let db: pg.Client
let api: Client
let key: string
let accountId: string
let env: Record<string, string>
let remessaDir: string
let retornoDir: string
let remessa = ""
let ids: Array<string> = []
let ourNumbers: Array<string> = []
let nsa = 1

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
    prefix: "unapplied",
    merchantName: "Loja Devolucao",
    uploadToken: UPLOAD_TOKEN,
    retornoPollSeconds: 600
  }))
  db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  for (let i = 0; i < TITLES; i++) {
    const r = await api.post(
      `${V1}/transactions`,
      {
        method: "billet",
        amount: AMOUNT,
        expires_at: `${DUE}T12:00:00-03:00`,
        customer: { name: "Beatriz Souza", email: "bia@example.com", document: "11.222.333/0001-81" }
      },
      { token: key }
    )
    expect(r.status, r.text).toBe(201)
  }
  const cut = await runCli<{ cut: boolean; path: string }>(["boleto", "remessa"], env, 60_000)
  expect(cut.cut).toBe(true)
  remessa = readFileSync(cut.path, "latin1")
  const segmentsP = remessa.split("\r\n").filter((l) => l[13] === "P")
  ids = segmentsP.map((l) => transactionIdOf(l.slice(195, 220))!)
  ourNumbers = segmentsP.map((l) => l.slice(37, 57).trim())
  expect(ids).toHaveLength(TITLES)
  accountId = (await db.query<{ account_id: string }>(`select account_id from transactions where id = $1`, [ids[0]]))
    .rows[0]!.account_id
}, 180_000)

afterAll(async () => {
  await db?.end()
  await stopAll([service])
  await fake?.close()
  for (const dir of [remessaDir, retornoDir]) if (dir) rmSync(dir, { recursive: true, force: true })
})

const upload = async (content: string) => {
  const reply = await api.post("/ops/bank/retornos", { content }, { token: UPLOAD_TOKEN })
  expect(reply.status, reply.text).toBe(200)
  expect(reply.body.outcome).toBe("processed")
  return reply.body
}

/** The next retorno in sequence with the given (title place, outcome) lines, in that order; `edit` may change a T. */
const retorno = (outcomes: ReadonlyArray<readonly [number, Outcome]>, edit?: (t: string, i: number) => string) => {
  const n = nsa++
  const body = outcomes.flatMap(([i, o], k) => {
    const lines = answerRemessa(remessa, n, (t) => (t.index === i ? o : { movement: "02" }))
      .split("\r\n")
      .filter((l) => l !== "")
    const t = lines[2 + 2 * i]!
    return [edit === undefined ? t : edit(t, k), lines[3 + 2 * i]!]
  })
  const all = answerRemessa(remessa, n, () => ({ movement: "02" }))
    .split("\r\n")
    .filter((l) => l !== "")
  return `${[all[0]!, all[1]!, ...body, ...all.slice(-2)].join("\r\n")}\r\n`
}

const v1Status = async (id: string) => {
  const t = await api.get(`${V1}/transactions/${id}`, { token: key })
  expect(t.status, t.text).toBe(200)
  return t.body.data.status as string
}

const merchantTotal = async () => {
  const balance = await api.get(`${V1}/balance`, { token: key })
  expect(balance.status, balance.text).toBe(200)
  return (balance.body.data.available as number) + (balance.body.data.pending as number)
}

/** Everything waiting for an operator, every kind summed (/metrics `operator_queue`). */
const queued = async () => {
  const text = await (await fetch(service.metricsUrl)).text()
  return [...text.matchAll(/^operator_queue\{kind="[^"]+"\} (\S+)$/gm)].reduce((s, m) => s + Number(m[1]), 0)
}

/** One gauge of the operator queue for `kind`, or undefined when the series is absent. */
const gauge = async (name: string, kind: string) => {
  const text = await (await fetch(service.metricsUrl)).text()
  const found = new RegExp(`^${name}\\{kind="${kind}"\\} (\\S+)$`, "m").exec(text)
  return found === null ? undefined : Number(found[1])
}

/** The gateway's books of money received from payers (system `payers`) for a transaction, bank fees aside. */
const payersOf = async (id: string) =>
  Number(
    (
      await db.query<{ total: string }>(
        `select coalesce(sum(amount), 0)::text as total from ledger_postings
         where transaction_id = $1 and party = 'system' and book = 'payers' and type <> 'bank_fee'`,
        [id]
      )
    ).rows[0]!.total
  )

/** A transaction's postings of payments owed back and returned, by type and book. */
const owedBack = async (id: string) =>
  (
    await db.query<{ type: string; book: string; amount: number }>(
      `select type, book, sum(amount)::int as amount from ledger_postings
       where transaction_id = $1 and type in ('boleto_payment_to_return', 'boleto_payment_returned')
       group by type, book order by type, book`,
      [id]
    )
  ).rows

/** What `boleto returns` lists, as the operator reads it. */
interface ToReturn {
  readonly id: string
  readonly accountId: string | null
  readonly transactionId: string | null
  readonly ourNumber: string
  readonly code: string
  readonly occurredOn: string | null
  readonly amount: number
  readonly fileNumber: number
  readonly line: number
  readonly reason: string
  readonly status: string
}
/** The nosso número of no title of ours: title 3's convênio, another sequence. */
const stray = () => `${ourNumbers[3]!.slice(0, 7)}${STRAY_SEQUENCE}`

const returns = () => runCli<Array<ToReturn>>(["boleto", "returns"], env, 60_000)

describe("boleto payments the bank reports", () => {
  it("a payment of the last payable day, reported as 17 after the write-off (09), settles its charge", async () => {
    const before = await merchantTotal()
    // Retorno 1: the bank wrote title 0 off the day after its last payable day: the charge keeps its grace.
    const off = await upload(retorno([[0, { movement: "09", paidOn: WRITE_OFF }]]))
    expect(off.counts).toMatchObject({ writtenOff: 1 })
    expect(off.exceptions).toEqual([])
    expect(await v1Status(ids[0]!)).toBe("pending")
    // Retorno 2: the buyer had paid on the due date (its last payable day) at another bank; the bank reports it
    // as 17, "liquidação após baixa", credited the next business day.
    const paid = await upload(
      retorno([[0, { movement: "17", paidOn: DUE, creditOn: WRITE_OFF, fee: BANK_FEE, reasons: ["04"] }]])
    )
    expect(paid.counts).toMatchObject({ settled: 1, other: 0 })
    expect(paid.exceptions).toEqual([])
    expect(paid.bankFees).toBe(BANK_FEE)
    expect(await v1Status(ids[0]!)).toBe("paid")
    expect(await merchantTotal()).toBe(before + NET)
  }, 60_000)

  it("a payment after the last payable day of a title written off waits for an operator, on the books", async () => {
    const before = await merchantTotal()
    const queuedBefore = await queued()
    const kindBefore = (await gauge("operator_queue", KIND))!
    // Title 1: written off, then paid at the bank five days after its last payable day (17): not its charge's.
    const off = await upload(retorno([[1, { movement: "09", paidOn: WRITE_OFF }]]))
    expect(off.counts).toMatchObject({ writtenOff: 1 })
    const late = await upload(retorno([[1, { movement: "17", paidOn: LATE, fee: BANK_FEE, reasons: ["04"] }]]))
    expect(late.counts).toMatchObject({ settled: 0, other: 1 })
    expect(late.exceptions).toEqual([
      {
        line: 3,
        transactionId: ids[1],
        message: `${lateWords}: recorded to return`
      }
    ])
    // The bank's fee of that liquidation is posted on the gateway's books…
    expect(late.bankFees).toBe(BANK_FEE)
    // … and the R$ 100,00 the payer paid is owed back there: received from the payers, owed out.
    expect(await payersOf(ids[1]!)).toBe(-AMOUNT)
    expect(await owedBack(ids[1]!)).toEqual([
      { type: "boleto_payment_to_return", book: "payers", amount: -AMOUNT },
      { type: "boleto_payment_to_return", book: "payouts", amount: AMOUNT }
    ])
    expect(await queued()).toBe(queuedBefore + 1)
    expect(await gauge("operator_queue", KIND)).toBe(kindBefore + 1)
    // Not the merchant's; the charge stays in its grace, to expire by its own job.
    expect(await merchantTotal()).toBe(before)
    expect(await v1Status(ids[1]!)).toBe("pending")

    // The bank repeating that occurrence in its next retorno records nothing and posts nothing again.
    const again = await upload(retorno([[1, { movement: "17", paidOn: LATE, fee: BANK_FEE, reasons: ["04"] }]]))
    expect(again.exceptions).toEqual([
      {
        line: 3,
        transactionId: ids[1],
        message: `${lateWords}: recorded to return already`
      }
    ])
    expect(again.bankFees).toBe(0)
    expect(await payersOf(ids[1]!)).toBe(-AMOUNT)
    expect(await queued()).toBe(queuedBefore + 1)
  }, 60_000)

  it("a second liquidation of a paid title on another day is recorded to return; its same day is not", async () => {
    const before = await merchantTotal()
    const queuedBefore = await queued()
    const first = await upload(retorno([[2, { movement: "06", paidOn: today, fee: BANK_FEE, reasons: ["04"] }]]))
    expect(first.counts).toMatchObject({ settled: 1 })
    expect(await merchantTotal()).toBe(before + NET)
    const payersSettled = await payersOf(ids[2]!)
    // Another liquidation on another day: another occurrence of the title, its fee posted again
    // (docs/providers.md), its money the payer's.
    const second = await upload(retorno([[2, { movement: "06", paidOn: DUE, fee: BANK_FEE, reasons: ["04"] }]]))
    expect(second.counts).toMatchObject({ settled: 0, alreadySettled: 1 })
    expect(second.exceptions).toEqual([
      {
        line: 3,
        transactionId: ids[2],
        message: `paid again at the bank on ${DUE}, the title settled by its payment of ${today}: recorded to return`
      }
    ])
    expect(second.bankFees).toBe(BANK_FEE)
    expect(await merchantTotal()).toBe(before + NET)
    expect((await payersOf(ids[2]!)) - payersSettled).toBe(-AMOUNT)
    expect(await owedBack(ids[2]!)).toEqual([
      { type: "boleto_payment_to_return", book: "payers", amount: -AMOUNT },
      { type: "boleto_payment_to_return", book: "payouts", amount: AMOUNT }
    ])
    expect(await queued()).toBe(queuedBefore + 1)
    // The first liquidation reported again (its day): the bank repeating itself, nothing recorded or posted.
    const repeated = await upload(retorno([[2, { movement: "06", paidOn: today, fee: BANK_FEE, reasons: ["04"] }]]))
    expect(repeated.counts).toMatchObject({ settled: 0, alreadySettled: 1 })
    expect(repeated.exceptions).toEqual([])
    expect(repeated.bankFees).toBe(0)
    expect((await payersOf(ids[2]!)) - payersSettled).toBe(-AMOUNT)
    expect(await queued()).toBe(queuedBefore + 1)
    expect(await merchantTotal()).toBe(before + NET)
  }, 60_000)

  it("a liquidation of a nosso número of no title of ours waits for an operator (as a PIX for no charge)", async () => {
    const queuedBefore = await queued()
    // Title 3's line with another nosso número (same convênio, another sequence) and no company use.
    const reply = await upload(
      retorno([[3, { movement: "06", paidOn: today, fee: BANK_FEE, reasons: ["04"] }]], (t) => {
        const ours = t.slice(37, 57)
        const other = `${ours.slice(0, 7)}${STRAY_SEQUENCE}`.padEnd(20, " ")
        return `${t.slice(0, 37)}${other}${t.slice(57, 105)}${" ".repeat(25)}${t.slice(130)}`
      })
    )
    expect(reply.rejectedLines).toEqual([
      {
        line: 3,
        error: `no title of ours has nosso número ${stray()}: its payment is kept to return`
      }
    ])
    expect(reply.exceptions).toEqual([])
    expect(await v1Status(ids[3]!)).toBe("pending")
    expect(await queued()).toBe(queuedBefore + 1)
  }, 60_000)

  it("a write-off on the last payable day ends the charge at once; a payment after it waits", async () => {
    const before = await merchantTotal()
    const queuedBefore = await queued()
    const off = await upload(retorno([[4, { movement: "09", paidOn: DUE }]]))
    expect(off.counts).toMatchObject({ writtenOff: 1 })
    expect(await v1Status(ids[4]!)).toBe("cancelled")
    const paid = await upload(retorno([[4, { movement: "06", paidOn: DUE, fee: BANK_FEE, reasons: ["04"] }]]))
    expect(paid.counts).toMatchObject({ settled: 0, other: 1 })
    expect(paid.exceptions).toEqual([
      {
        line: 3,
        transactionId: ids[4],
        message: "paid at the bank after the transaction ended (CANCELLED): recorded to return"
      }
    ])
    expect(paid.bankFees).toBe(BANK_FEE)
    expect(await payersOf(ids[4]!)).toBe(-AMOUNT)
    expect(await merchantTotal()).toBe(before)
    expect(await queued()).toBe(queuedBefore + 1)
  }, 60_000)

  it("the operator lists what is owed and closes each once returned: its return posting, once", async () => {
    const owed = await returns()
    const title = (place: number, code: string, occurredOn: string) => ({
      accountId,
      transactionId: ids[place],
      ourNumber: ourNumbers[place],
      code,
      occurredOn,
      amount: AMOUNT,
      status: "to_return"
    })
    // Oldest first: the late 17, the second 06, the stray 06, the 06 after the early write-off.
    expect(owed).toMatchObject([
      title(1, "17", LATE),
      title(2, "06", DUE),
      {
        accountId: null,
        transactionId: null,
        ourNumber: stray(),
        code: "06",
        occurredOn: today,
        amount: AMOUNT,
        line: 3,
        reason: "no title of ours has this nosso número",
        status: "to_return"
      },
      title(4, "06", DUE)
    ])
    expect(await gauge("operator_queue", KIND)).toBe(4)
    expect(await gauge("operator_queue_oldest_age_seconds", KIND)).toBeGreaterThan(0)

    // Title 1's, transferred back to its payer: closed with the reverse posting.
    const closed = await runCli<{ outcome: string; payment: ToReturn }>(
      ["boleto", "returned", "--id", owed[0]!.id],
      env,
      60_000
    )
    expect(closed).toMatchObject({ outcome: "returned", payment: { id: owed[0]!.id, status: "returned" } })
    expect(await payersOf(ids[1]!)).toBe(0)
    expect(await owedBack(ids[1]!)).toEqual([
      { type: "boleto_payment_returned", book: "payers", amount: AMOUNT },
      { type: "boleto_payment_returned", book: "payouts", amount: -AMOUNT },
      { type: "boleto_payment_to_return", book: "payers", amount: -AMOUNT },
      { type: "boleto_payment_to_return", book: "payouts", amount: AMOUNT }
    ])
    expect(await gauge("operator_queue", KIND)).toBe(3)
    // Closed again: nothing posted twice.
    const twice = await runCli<{ outcome: string }>(["boleto", "returned", "--id", owed[0]!.id], env, 60_000)
    expect(twice.outcome).toBe("already_returned")
    expect(await payersOf(ids[1]!)).toBe(0)
    // An id naming none is refused.
    const none = await runCliOutput(["boleto", "returned", "--id", "not-an-id"], env)
    expect(none.code).toBe(1)
    expect(none.stderr).toContain("no boleto payment to return not-an-id")

    // The rest returned: the stray one has no books to post on.
    for (const p of owed.slice(1)) {
      const done = await runCli<{ outcome: string }>(["boleto", "returned", "--id", p.id], env, 60_000)
      expect(done.outcome).toBe("returned")
    }
    expect((await payersOf(ids[2]!)) - (await payersOf(ids[0]!))).toBe(0)
    expect(await payersOf(ids[4]!)).toBe(0)
    expect(await returns()).toEqual([])
    expect(await gauge("operator_queue", KIND)).toBe(0)
    expect(await gauge("operator_queue_oldest_age_seconds", KIND)).toBe(0)
    // The books check holds throughout.
    const check = await runCli<{ ok: boolean }>(["ledger", "check"], env, 60_000)
    expect(check.ok).toBe(true)
  }, 180_000)
})
