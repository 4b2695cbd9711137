import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { transactionIdOf } from "../src/adapters/providers/bb-cnab240/retorno.ts"
import { addCalendarDays, daysBetween, onOrNextBusinessDay } from "../src/domain/calendar.ts"
import { saoPauloDate } from "../src/domain/time.ts"
import { startLoopbackFake, type LoopbackFake } from "./fakes/loopback/server.ts"
import { bankByFilesEnv } from "./support/bankByFiles.ts"
import { createTestDatabase } from "./support/database.ts"
import { client, type Client, liveMerchant } from "./support/http.ts"
import { spawnRole, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * The remessa cut by the worker's cycle alone (docs/providers.md "Boleto: banks by CNAB 240"): no CLI. The
 * `bank_files_cycle` job cuts a remessa when the last one is CNAB_REMESSA_CYCLE_MINUTES old or, before the
 * first, when the oldest queued title is; titles younger than that wait. Two worker processes run the
 * cycle; the remessas are numbered 1, 2 with no number skipped or reused, and every title goes in exactly one.
 * The cycle is a minute (the setting's least), so the test ages the rows the rule compares instead of waiting.
 */

const V1 = "/public/v1"
const DUE = onOrNextBusinessDay(addCalendarDays(saoPauloDate(new Date()), 10))
/** Cycle runs a second apart: this many seconds is at least three runs on each worker. */
const SEVERAL_RUNS_MS = 4_000

let fake: LoopbackFake
let processes: Array<RoleProcess> = []
let db: pg.Client
let api: Client
let key: string
let remessaDir: string
let retornoDir: string

beforeAll(async () => {
  fake = await startLoopbackFake()
  const databaseUrl = await createTestDatabase()
  remessaDir = mkdtempSync(join(tmpdir(), "cnab-cycle-remessa-"))
  retornoDir = mkdtempSync(join(tmpdir(), "cnab-cycle-retorno-"))
  const env = {
    DATABASE_URL: databaseUrl,
    LIVE_LOOPBACK_ALLOWED: "true",
    LOOPBACK_PROVIDER_URL: fake.url,
    LIVE_PIX_PROVIDER: "loopback",
    ...bankByFilesEnv(remessaDir, retornoDir),
    CNAB_REMESSA_CYCLE_MINUTES: "1",
    CNAB_RETORNO_POLL_SECONDS: "1"
  }
  const all = await spawnRole("all", env, { readyTimeoutMs: 90_000 })
  processes = [all, await spawnRole("worker", env, { readyTimeoutMs: 90_000 })]
  api = client(all.baseUrl)
  key = (await liveMerchant(api, "Loja do Ciclo")).key
  db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
}, 120_000)

afterAll(async () => {
  await db?.end()
  await stopAll(processes)
  await fake?.close()
  for (const dir of [remessaDir, retornoDir]) if (dir) rmSync(dir, { recursive: true, force: true })
})

const boletos = async (n: number, document = "11.222.333/0001-81") => {
  const ids: Array<string> = []
  for (let i = 0; i < n; i++) {
    const reply = await api.post(
      `${V1}/transactions`,
      {
        method: "billet",
        amount: 10_000 + i,
        expires_at: `${DUE}T12:00:00-03:00`,
        customer: { name: "Beatriz Souza", email: "bia@example.com", document }
      },
      { token: key }
    )
    expect(reply.status, reply.text).toBe(201)
    ids.push(reply.body.data.hash as string)
  }
  return ids
}

const files = () => readdirSync(remessaDir).filter((name) => !name.startsWith("."))

/** The transactions a remessa carries, by its P segments (196–220 carry our id), and its NSA. */
const remessaOf = (name: string) => {
  const lines = readFileSync(join(remessaDir, name), "latin1")
    .split("\r\n")
    .filter((l) => l !== "")
  return {
    fileNumber: lines[0]!.slice(157, 163),
    ids: lines.filter((l) => l[13] === "P").map((l) => transactionIdOf(l.slice(195, 220))!)
  }
}

const waitForFiles = async (count: number) => {
  const deadline = Date.now() + 30_000
  while (files().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
  return files()
}

/** When the cycle job is next due: it moves on each run, which shows the cycle runs at all. */
const cycleRunAt = async () => {
  const { rows } = await db.query<{ runAt: Date }>(
    `select run_at as "runAt" from graphile_worker.jobs where task_identifier = 'bank_files_cycle'`
  )
  return rows.map((r) => r.runAt.getTime())
}

const counter = async () =>
  (await db.query<{ value: number }>(`select value from cnab_counters where name = 'remessa'`)).rows[0]?.value ?? 0

const sentIn = async (ids: ReadonlyArray<string>) =>
  (
    await db.query<{ status: string; remessa: number | null }>(
      `select status, remessa from cnab_titles where transaction_id = any($1::uuid[]) order by sequence`,
      [ids]
    )
  ).rows

describe("the remessa cut by the worker's cycle", () => {
  let first: Array<string> = []

  it("titles younger than a cycle wait; the oldest a cycle old, the job cuts remessa 1 of them all", async () => {
    first = await boletos(3)
    const before = Math.max(...(await cycleRunAt()))
    await new Promise((r) => setTimeout(r, SEVERAL_RUNS_MS))
    // The job ran meanwhile (its next run moved on), and cut nothing: the titles are seconds old.
    expect(Math.max(...(await cycleRunAt()))).toBeGreaterThan(before)
    expect(files()).toEqual([])
    expect(await counter()).toBe(0)
    expect((await sentIn(first)).map((t) => t.status)).toEqual(["queued", "queued", "queued"])

    // The oldest queued title a cycle old (aged here rather than waited for).
    await db.query(`update cnab_titles set created_at = created_at - interval '61 seconds'`)
    expect(await waitForFiles(1)).toEqual(["remessa-000001.rem"])
    const remessa = remessaOf("remessa-000001.rem")
    expect(remessa.fileNumber).toBe("000001")
    expect([...remessa.ids].sort()).toEqual([...first].sort())
    expect(await sentIn(first)).toEqual(first.map(() => ({ status: "sent", remessa: 1 })))
    expect(await counter()).toBe(1)
  }, 90_000)

  it("after a remessa, new titles wait for the cycle from it; then remessa 2 carries only them", async () => {
    const second = await boletos(2)
    // Ages the new titles too: what decides now is the last remessa's time, not the titles'.
    await db.query(`update cnab_titles set created_at = created_at - interval '61 seconds' where status = 'queued'`)
    await new Promise((r) => setTimeout(r, SEVERAL_RUNS_MS))
    expect(files()).toEqual(["remessa-000001.rem"])
    expect((await sentIn(second)).map((t) => t.status)).toEqual(["queued", "queued"])

    await db.query(`update cnab_remessas set created_at = created_at - interval '61 seconds'`)
    expect(await waitForFiles(2)).toEqual(["remessa-000001.rem", "remessa-000002.rem"])
    const remessa = remessaOf("remessa-000002.rem")
    expect(remessa.fileNumber).toBe("000002")
    expect([...remessa.ids].sort()).toEqual([...second].sort())
    expect(await sentIn(second)).toEqual(second.map(() => ({ status: "sent", remessa: 2 })))
    // The first remessa's titles were not sent again.
    expect(await sentIn(first)).toEqual(first.map(() => ({ status: "sent", remessa: 1 })))
    expect(await counter()).toBe(2)
  }, 90_000)

  it("a cycle old with nothing queued: no file and no number taken", async () => {
    await db.query(`update cnab_remessas set created_at = created_at - interval '61 seconds'`)
    const before = Math.max(...(await cycleRunAt()))
    await new Promise((r) => setTimeout(r, SEVERAL_RUNS_MS))
    expect(Math.max(...(await cycleRunAt()))).toBeGreaterThan(before)
    expect(files()).toEqual(["remessa-000001.rem", "remessa-000002.rem"])
    expect(await counter()).toBe(2)
    const { rows } = await db.query<{ n: string }>(`select count(*)::text as n from cnab_remessas`)
    expect(Number(rows[0]!.n)).toBe(2)
  }, 90_000)

  // An alphanumeric CNPJ (IN RFB 2.229/2024) made writing segment Q throw, which rolled back the whole cut, every
  // cycle: no title of any merchant reached the bank. It goes now; and a title that cannot be written at all stays
  // queued alone, logged, while the others go (docs/providers.md "Boleto: banks by CNAB 240").
  it("an alphanumeric CNPJ payer goes out; a title that cannot be written waits alone, the others go", async () => {
    // The previous case aged the last remessa a cycle: made young again, nothing is cut until the titles are
    // all there (the cycle runs every second).
    await db.query(`update cnab_remessas set created_at = now()`)
    const [alphanumeric] = await boletos(1, "12.ABC.345/01DE-35")
    const [plain, unwritable] = await boletos(2)
    // No value the API takes breaks a field today: the row is spoilt here to stand for the next one that would.
    await db.query(`update cnab_titles set payer_document = 'ÇÇ' where transaction_id = $1`, [unwritable])
    await db.query(`update cnab_titles set created_at = created_at - interval '61 seconds' where status = 'queued'`)
    await db.query(`update cnab_remessas set created_at = created_at - interval '61 seconds'`)
    expect(await waitForFiles(3)).toEqual(["remessa-000001.rem", "remessa-000002.rem", "remessa-000003.rem"])
    const remessa = remessaOf("remessa-000003.rem")
    expect(remessa.fileNumber).toBe("000003")
    expect([...remessa.ids].sort()).toEqual([alphanumeric!, plain!].sort())
    const q = readFileSync(join(remessaDir, "remessa-000003.rem"), "latin1")
      .split("\r\n")
      .filter((l) => l[13] === "Q")
    expect(q.map((l) => l.slice(17, 33))).toContain("2012ABC34501DE35")
    expect(await sentIn([alphanumeric!, plain!])).toEqual([
      { status: "sent", remessa: 3 },
      { status: "sent", remessa: 3 }
    ])
    // Several cycles later it is still queued, in no file, and no number was taken for it.
    await new Promise((r) => setTimeout(r, SEVERAL_RUNS_MS))
    expect(await sentIn([unwritable!])).toEqual([{ status: "queued", remessa: null }])
    expect(files()).toHaveLength(3)
    expect(await counter()).toBe(3)
  }, 90_000)

  // FEBRABAN 240 segment P 225–227: the days after its due date the bank writes a title off. They must reach
  // the last day the slip says it may be paid: BOLETO_LATE_DAYS alone, counted from a due date on a closed day,
  // wrote it off before that day, and 0 without terms before the next business day (docs/boleto.md).
  it("the bank writes a title off after the last day its slip says it may be paid, not before", async () => {
    // Due on the first Saturday at least three days ahead: payable without charges until the next business day.
    let due = addCalendarDays(saoPauloDate(new Date()), 3)
    while (new Date(`${due}T12:00:00Z`).getUTCDay() !== 6) due = addCalendarDays(due, 1)
    const grace = daysBetween(due, onOrNextBusinessDay(due))
    const registered = async (billet?: unknown) => {
      const reply = await api.post(
        `${V1}/transactions`,
        {
          method: "billet",
          amount: 10_000,
          expires_at: `${due}T12:00:00-03:00`,
          customer: { name: "Beatriz Souza", email: "bia@example.com", document: "11.222.333/0001-81" },
          ...(billet === undefined ? {} : { billet })
        },
        { token: key }
      )
      expect(reply.status, reply.text).toBe(201)
      const { rows } = await db.query<{ days: number }>(
        `select write_off_days as days from cnab_titles where transaction_id = $1`,
        [reply.body.data.hash]
      )
      return rows[0]!.days
    }
    // Without terms: not received after the next business day (Monday, or later after a holiday).
    expect(grace).toBeGreaterThanOrEqual(2)
    expect(await registered()).toBe(grace)
    // With interest, BOLETO_LATE_DAYS (30) after that day.
    expect(await registered({ interest: { type: "percentage_per_month", value: 1 } })).toBe(grace + 30)
  }, 60_000)
})
