import { createHash } from "node:crypto"
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { transactionIdOf } from "../src/adapters/providers/bb-cnab240/retorno.ts"
import { addCalendarDays, onOrNextBusinessDay } from "../src/domain/calendar.ts"
import { saoPauloDate } from "../src/domain/time.ts"
import { answerRemessa, type Outcome } from "./fakes/bank/bank.ts"
import { type LoopbackFake } from "./fakes/loopback/server.ts"
import { startBankByFilesService } from "./support/bankByFiles.ts"
import { type Client } from "./support/http.ts"
import { checkLedger } from "./support/ledger-check.ts"
import { runCli, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * How a bank's retornos are taken in (docs/providers.md "Boleto: banks by CNAB 240"), through one service process
 * in live mode with LIVE_BOLETO_PROVIDER=bb-cnab240, retornos by the operator's upload and the watched directory:
 * - the bank's fee is posted once per occurrence (nosso número, code, day): the bank reporting an occurrence again
 *   in a later file posts nothing, also when the first report's fee was posted under the key of its file and line
 *   (before fees were keyed by their occurrence); another occurrence of the title, and each fee-only 28, posts;
 * - a held retorno whose predecessor was committed by an ingestion that stopped before taking it is processed by
 *   the next ingestion, whatever file that is, and by the cycle job with nothing in the directory;
 * - a segment U carrying a date the calendar does not have is reported with its line number, the rest of the file
 *   applied, by the upload and by the cycle (which then goes on).
 * The cycle's poll is long (600 s): the test runs it when it asks, by rescheduling its job for now.
 */

const UPLOAD_TOKEN = "intake-upload-token-0123456789abcdefgh"
const V1 = "/public/v1"
const FEE_BILLET = 349
const AMOUNT = 10_000
const TITLES = 12
const today = saoPauloDate(new Date())
const DUE = onOrNextBusinessDay(addCalendarDays(today, 10))

let fake: LoopbackFake
let service: RoleProcess
let databaseUrl: string
let db: pg.Client
let api: Client
let key: string
let env: Record<string, string>
let remessaDir: string
let retornoDir: string
let remessa = ""
/** Transaction ids by their place in the remessa. */
let ids: Array<string> = []

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
    prefix: "intake",
    merchantName: "Loja Retornos",
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
  ids = remessa
    .split("\r\n")
    .filter((l) => l[13] === "P")
    .map((l) => transactionIdOf(l.slice(195, 220))!)
  expect(ids).toHaveLength(TITLES)
}, 180_000)

afterAll(async () => {
  await db?.end()
  await stopAll([service])
  await fake?.close()
  for (const dir of [remessaDir, retornoDir]) if (dir) rmSync(dir, { recursive: true, force: true })
})

const upload = (content: string) => api.post("/ops/bank/retornos", { content }, { token: UPLOAD_TOKEN })

/**
 * A retorno of number `nsa` carrying only the titles at the places given, each with its outcome, in that order:
 * the file header on line 1, the batch header on 2, then each title's T and U (lines 3 and 4 for the first).
 */
const retornoOf = (nsa: number, outcomes: ReadonlyArray<readonly [number, Outcome]>) => {
  const of = new Map(outcomes)
  const all = answerRemessa(remessa, nsa, (t) => of.get(t.index) ?? { movement: "02" })
  const lines = all.split("\r\n").filter((l) => l !== "")
  const body = outcomes.flatMap(([i]) => [lines[2 + 2 * i]!, lines[3 + 2 * i]!])
  return `${[lines[0]!, lines[1]!, ...body, ...lines.slice(-2)].join("\r\n")}\r\n`
}

/** The file with the field at U positions `from`–(from + 7) of line `line` (1-based) replaced by `digits`. */
const withUDate = (text: string, line: number, from: number, digits: string) => {
  const lines = text.split("\r\n")
  const u = lines[line - 1]!
  expect(u[13]).toBe("U")
  lines[line - 1] = `${u.slice(0, from - 1)}${digits}${u.slice(from - 1 + 8)}`
  return lines.join("\r\n")
}

const digestOf = (content: string) => createHash("sha256").update(content, "latin1").digest("hex")

/** What an ingestion that committed retorno `nsa` and stopped before taking the held ones leaves: its record. */
const committedAlone = (nsa: number) => {
  const content = retornoOf(nsa, [])
  return db.query(
    `insert into cnab_retornos (file_number, digest, content, status, source, report, processed_at)
     values ($1, $2, $3, 'processed', 'upload', '{}'::jsonb, now())`,
    [nsa, digestOf(content), content]
  )
}

/**
 * The number the next retorno must carry, each case starting from it (held files a failed case left are dropped):
 * a case that fails leaves the next ones their own outcome.
 */
const sequenceStart = async () => {
  await db.query(`delete from cnab_retornos where status = 'held'`)
  const [{ next }] = (
    await db.query<{ next: number }>(
      `select coalesce(max(file_number) + 1, 1)::int as next from cnab_retornos where status = 'processed'`
    )
  ).rows as [{ next: number }]
  return next
}

/** The cycle job's next run moved to now, as its poll would: it drains, reads the directory, maybe cuts. */
const runCycle = () =>
  db.query(
    `select graphile_worker.add_job('bank_files_cycle', '{}'::json, job_key := 'bank_files_cycle',
                                     job_key_mode := 'replace', max_attempts := 1)`
  )

const eventually = async (what: string, done: () => Promise<boolean>) => {
  const deadline = Date.now() + 45_000
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

const statusOf = async (id: string) =>
  (await db.query<{ status: string }>(`select status from transactions where id = $1`, [id])).rows[0]!.status

const retornoStatus = async (nsa: number) =>
  (await db.query<{ status: string }>(`select status from cnab_retornos where file_number = $1`, [nsa])).rows[0]?.status

/** The bank's fees the gateway's books carry for a transaction, centavos. */
const bankFeesOf = async (id: string) =>
  -Number(
    (
      await db.query<{ total: string }>(
        `select coalesce(sum(amount), 0)::text as total from ledger_postings
         where transaction_id = $1 and type = 'bank_fee' and book = 'fees'`,
        [id]
      )
    ).rows[0]!.total
  )

const merchantTotal = async () => {
  const balance = await api.get(`${V1}/balance`, { token: key })
  expect(balance.status, balance.text).toBe(200)
  return (balance.body.data.available as number) + (balance.body.data.pending as number)
}

const paidToday = (fee = 0): Outcome => ({ movement: "06", paidOn: today, fee, reasons: ["04"] })
/** What one title paid on its face value leaves the merchant. */
const NET = AMOUNT - FEE_BILLET

describe("CNAB 240 retorno intake", () => {
  it("a repeated occurrence posts no fee; another occurrence of the title, and each 28, posts its own", async () => {
    const n = await sequenceStart()
    const before = await merchantTotal()
    // Retorno n: title 0 paid today, fee 180; title 1 registered, fee 50.
    const first = await upload(
      retornoOf(n, [
        [0, paidToday(180)],
        [1, { movement: "02", fee: 50 }]
      ])
    )
    expect(first.status, first.text).toBe(200)
    expect(first.body).toMatchObject({ outcome: "processed", bankFees: 230 })
    expect(first.body.counts).toMatchObject({ settled: 1, registered: 1 })
    expect(await statusOf(ids[0]!)).toBe("PAID")
    expect(await merchantTotal()).toBe(before + NET)

    // The next: the same payment of title 0 again (title, code, day, fee): one liquidation, one fee. Title 1 paid:
    // another occurrence of a title already charged, its own fee.
    const second = await upload(
      retornoOf(n + 1, [
        [0, paidToday(180)],
        [1, paidToday(180)]
      ])
    )
    expect(second.status, second.text).toBe(200)
    expect(second.body).toMatchObject({ outcome: "processed", bankFees: 180 })
    expect(second.body.counts).toMatchObject({ settled: 1, alreadySettled: 1 })
    expect(await statusOf(ids[1]!)).toBe("PAID")
    expect(await merchantTotal()).toBe(before + 2 * NET)

    // Then title 1's registration again (nothing), and a fee-only 28 on title 0 (a debit of its own).
    const third = await upload(
      retornoOf(n + 2, [
        [1, { movement: "02", fee: 50 }],
        [0, { movement: "28", fee: 90 }]
      ])
    )
    expect(third.status, third.text).toBe(200)
    expect(third.body).toMatchObject({ outcome: "processed", bankFees: 90 })
    expect(third.body.counts).toMatchObject({ registered: 1, feeOnly: 1 })
    // Another 28 on title 0 with the same fields: each 28 the bank reports is a tariff it debited.
    const fourth = await upload(retornoOf(n + 3, [[0, { movement: "28", fee: 90 }]]))
    expect(fourth.status, fourth.text).toBe(200)
    expect(fourth.body).toMatchObject({ outcome: "processed", bankFees: 90 })

    expect(await bankFeesOf(ids[0]!)).toBe(180 + 90 + 90)
    expect(await bankFeesOf(ids[1]!)).toBe(50 + 180)
    // The bank's fees are the gateway's cost: the merchant's books moved by the two sales alone.
    expect(await merchantTotal()).toBe(before + 2 * NET)
  }, 60_000)

  it("a fee standing under its file and line is not posted again when a later retorno repeats it", async () => {
    const n = await sequenceStart()
    const before = await merchantTotal()
    // Retorno n as an earlier version took it: title 2 paid with the bank's fee 180, the fee posted under
    // `bank_fee:<n>:3` (its T on line 3). Here: the payment ingested without the fee, then the record and the
    // entry made what that version left.
    const asSent = retornoOf(n, [[2, paidToday(180)]])
    const earlier = await upload(retornoOf(n, [[2, paidToday(0)]]))
    expect(earlier.status, earlier.text).toBe(200)
    expect(earlier.body.counts).toMatchObject({ settled: 1 })
    await db.query(`update cnab_retornos set content = $1, digest = $2 where file_number = $3`, [
      asSent,
      digestOf(asSent),
      n
    ])
    const [{ accountId }] = (
      await db.query<{ accountId: string }>(`select account_id as "accountId" from transactions where id = $1`, [
        ids[2]
      ])
    ).rows as [{ accountId: string }]
    await db.query("begin")
    const entry = await db.query<{ id: string }>(
      `insert into ledger_entries (id, account_id, key, transaction_id)
       values (gen_random_uuid(), $1, $2, $3) returning id`,
      [accountId, `bank_fee:${n}:3`, ids[2]]
    )
    await db.query(
      `insert into ledger_postings (entry_id, account_id, party, book, type, amount, transaction_id, description)
       values ($1, $2, 'system', 'fees', 'bank_fee', -180, $3, 'bank fee 06'),
              ($1, $2, 'system', 'payers', 'bank_fee', 180, $3, 'bank fee 06')`,
      [entry.rows[0]!.id, accountId, ids[2]]
    )
    await db.query("commit")
    expect(await bankFeesOf(ids[2]!)).toBe(180)

    // The next retorno repeats that payment and pays title 3: title 2's fee stands as it was, title 3's is posted.
    const later = await upload(
      retornoOf(n + 1, [
        [2, paidToday(180)],
        [3, paidToday(180)]
      ])
    )
    expect(later.status, later.text).toBe(200)
    expect(later.body).toMatchObject({ outcome: "processed", bankFees: 180 })
    expect(later.body.counts).toMatchObject({ settled: 1, alreadySettled: 1 })
    expect(await bankFeesOf(ids[2]!)).toBe(180)
    expect(await bankFeesOf(ids[3]!)).toBe(180)
    expect(await merchantTotal()).toBe(before + 2 * NET)
  }, 60_000)

  it("a held retorno stranded after its predecessor's commit is processed by the next ingestion", async () => {
    const n = await sequenceStart()
    const before = await merchantTotal()
    // Retorno n + 1 (title 4 paid) arrives before n: held.
    const ahead = retornoOf(n + 1, [[4, paidToday()]])
    const held = await upload(ahead)
    expect(held.status, held.text).toBe(202)
    expect(held.body).toMatchObject({ outcome: "held", message: `retorno ${n + 1} held until retorno ${n} arrives` })
    // Retorno n committed by an ingestion that stopped before the transaction taking n + 1 from the database (a
    // crash, a deploy, that step failing): n processed, n + 1 still held.
    await committedAlone(n)
    expect(await retornoStatus(n + 1)).toBe("held")
    // Retorno n + 1 again: already received; its turn has come, so it is processed now.
    const again = await upload(ahead)
    expect(again.status, again.text).toBe(200)
    expect(again.body.outcome).toBe("duplicate")
    expect(again.body.then).toMatchObject([{ fileNumber: n + 1, outcome: "processed", counts: { settled: 1 } }])
    expect(await retornoStatus(n + 1)).toBe("processed")
    expect(await statusOf(ids[4]!)).toBe("PAID")
    // The next in sequence: processed as such.
    const next = await upload(retornoOf(n + 2, [[5, paidToday()]]))
    expect(next.status, next.text).toBe(200)
    expect(next.body).toMatchObject({ outcome: "processed", then: [] })
    expect(await statusOf(ids[5]!)).toBe("PAID")

    // n + 4 held before n + 3; n + 3 committed alone; the next file is n + 5: n + 4 is taken first, then n + 5 in
    // its turn (not held behind it).
    const held2 = await upload(retornoOf(n + 4, [[6, paidToday()]]))
    expect(held2.status, held2.text).toBe(202)
    await committedAlone(n + 3)
    const after = await upload(retornoOf(n + 5, [[7, paidToday()]]))
    expect(after.status, after.text).toBe(200)
    expect(after.body).toMatchObject({ fileNumber: n + 5, outcome: "processed" })
    expect(after.body.then).toMatchObject([{ fileNumber: n + 4, outcome: "processed" }])
    expect(await retornoStatus(n + 4)).toBe("processed")
    expect(await retornoStatus(n + 5)).toBe("processed")
    expect(await statusOf(ids[6]!)).toBe("PAID")
    expect(await statusOf(ids[7]!)).toBe("PAID")
    expect(await merchantTotal()).toBe(before + 4 * NET)
  }, 60_000)

  it("the cycle job processes a held retorno whose turn has come, the directory empty", async () => {
    const n = await sequenceStart()
    const before = await merchantTotal()
    const held = await upload(retornoOf(n + 1, [[8, paidToday()]]))
    expect(held.status, held.text).toBe(202)
    await committedAlone(n)
    await runCycle()
    await eventually(
      `retorno ${n + 1} processed by the cycle`,
      async () => (await retornoStatus(n + 1)) === "processed"
    )
    expect(await statusOf(ids[8]!)).toBe("PAID")
    expect(await merchantTotal()).toBe(before + NET)
  }, 60_000)

  it("a U with a day the calendar lacks: that line reported by number, the rest of the file applied", async () => {
    const n = await sequenceStart()
    const before = await merchantTotal()
    // By the upload: titles 9 and 10 paid; title 10's U (line 6) has the credit date (U 146–153) "00002027",
    // digits as the picture asks, no day.
    const uploaded = withUDate(
      retornoOf(n, [
        [9, paidToday()],
        [10, paidToday()]
      ]),
      6,
      146,
      "00002027"
    )
    const reply = await upload(uploaded)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toMatchObject({ fileNumber: n, outcome: "processed" })
    expect(reply.body.counts).toMatchObject({ settled: 1 })
    expect(reply.body.rejectedLines).toEqual([
      { line: 6, error: 'segment U of line 5: creditOn (146-153) is not a date: "00002027"' }
    ])
    expect(await statusOf(ids[9]!)).toBe("PAID")
    expect(await statusOf(ids[10]!)).toBe("PENDING")

    // In the watched directory: title 10 paid "on" 31 April (the day of the occurrence, U 138–145, the payment's
    // day), title 11 paid. The cycle reads it, reports the line, applies the rest and moves the file aside.
    const watched = withUDate(
      retornoOf(n + 1, [
        [10, paidToday()],
        [11, paidToday()]
      ]),
      4,
      138,
      "31042027"
    )
    writeFileSync(join(retornoDir, ".retorno-watched.tmp"), watched, "latin1")
    renameSync(join(retornoDir, ".retorno-watched.tmp"), join(retornoDir, "retorno-watched.ret"))
    await runCycle()
    await eventually("the watched retorno moved to processed/", async () =>
      existsSync(join(retornoDir, "processed", "retorno-watched.ret"))
    )
    const [row] = (
      await db.query<{ status: string; report: any }>(
        `select status, report from cnab_retornos where file_number = $1`,
        [n + 1]
      )
    ).rows
    expect(row!.status).toBe("processed")
    expect(row!.report.rejectedLines).toEqual([
      { line: 4, error: 'segment U of line 3: occurredOn (138-145) is not a date: "31042027"' }
    ])
    expect(await statusOf(ids[10]!)).toBe("PENDING")
    expect(await statusOf(ids[11]!)).toBe("PAID")
    expect(await merchantTotal()).toBe(before + 2 * NET)
  }, 60_000)

  it("the books reconcile", async () => {
    expect(await checkLedger(databaseUrl)).toEqual([])
  }, 60_000)
})
