import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseCrontab } from "graphile-worker"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { CRONTAB } from "../src/jobs/tasks.ts"
import { client, type Client, signup } from "./support/http.ts"
import { freshCpf } from "./support/foundation.ts"
import { until } from "./support/payments-fixtures.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A background job that keeps failing reaches an alert (ops/alerts.yml, against what /metrics exports;
 * docs/operations.md "Scheduled jobs"), long before graphile-worker spends its attempts:
 * - a job that failed and is retried is `jobs{state="retrying"}`, and the age of its task's oldest such job is
 *   `jobs_oldest_retrying_age_seconds`: `GatewayJobRetrying` fires once one has failed for over 30 minutes
 *   (pay_withdrawal's 25 attempts take about four days), not for a blip;
 * - a job whose payload does not decode fails for good on its first attempt, its `last_error` saying what does
 *   not decode and none of the payload's values;
 * - a crontab task's failed runs since its last success are its failed jobs (a success deletes them):
 *   `GatewayScheduledJobFailing` fires for an hourly task failing on two runs in a row, not one; and a ledger
 *   check never recorded alerts too (`GatewayLedgerNeverChecked`).
 * The alerts are evaluated by `promtool test rules` on the values /metrics gave.
 */

let server: TestServer
let api: Client
const V1 = "/public/v1"
const BANK = { bank_code: "341", agency: "0001", account: "123456", account_digit: "7", type: "checking" }
let ledgerCheckedAtStart = -1

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  ledgerCheckedAtStart = metric(await scrape(), "ledger_check_timestamp_seconds")
})
afterAll(async () => {
  await server?.close()
})

const metric = (text: string, name: string, labels: Record<string, string> = {}) => {
  const line = text
    .split("\n")
    .find(
      (l) =>
        (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) &&
        Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`))
    )
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}
const scrape = async () => (await fetch(server.metricsUrl)).text()

const jobOf = async (key: string) =>
  (
    await server.db.query<{ attempts: number; max_attempts: number; run_at: Date; last_error: string | null }>(
      "select attempts, max_attempts, run_at, last_error from graphile_worker.jobs where key = $1",
      [key]
    )
  ).rows[0]

const RULES = fileURLToPath(new URL("../ops/alerts.yml", import.meta.url))
interface Rule {
  readonly alert?: string
  readonly labels?: Record<string, string>
  readonly annotations?: Record<string, string>
}

/**
 * Whether `promtool test rules` finds exactly `expected` firing of `alertname` after `minutes` of the series
 * given, each constant at its value (as scraped): the rule's own labels and annotations are expected with them.
 */
const promtool = (
  alertname: string,
  series: Record<string, number>,
  minutes: number,
  expected: ReadonlyArray<{ readonly labels: Record<string, string>; readonly value?: number }>
) => {
  const rules = (parse(readFileSync(RULES, "utf8")) as { groups: Array<{ rules: Array<Rule> }> }).groups.flatMap(
    (g) => g.rules
  )
  const rule = rules.find((r) => r.alert === alertname)
  if (rule === undefined) return { status: 1, output: `no alert ${alertname} in ops/alerts.yml` }
  const render = (text: string, labels: Record<string, string>, value?: number) =>
    text
      .replace(/\{\{\s*\$labels\.(\w+)\s*\}\}/g, (_, k: string) => labels[k] ?? "")
      .replace(/\{\{\s*\$value\s*\}\}/g, String(value))
  const test = {
    rule_files: [RULES],
    evaluation_interval: "1m",
    tests: [
      {
        interval: "1m",
        input_series: Object.entries(series).map(([name, value]) => ({ series: name, values: `${value}x${minutes}` })),
        alert_rule_test: [
          {
            eval_time: `${minutes}m`,
            alertname,
            exp_alerts: expected.map((e) => ({
              exp_labels: { ...rule.labels, ...e.labels },
              exp_annotations: Object.fromEntries(
                Object.entries(rule.annotations ?? {}).map(([k, v]) => [k, render(v, e.labels, e.value)])
              )
            }))
          }
        ]
      }
    ]
  }
  const dir = mkdtempSync(join(tmpdir(), "alerts-test-"))
  try {
    writeFileSync(join(dir, "test.yml"), JSON.stringify(test))
    const run = spawnSync("promtool", ["test", "rules", join(dir, "test.yml")], { encoding: "utf8" })
    if (run.error) return { status: 1, output: `promtool: ${run.error.message} (apt-get install -y prometheus)` }
    return { status: run.status, output: run.stdout + run.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const expectAlerts = (...args: Parameters<typeof promtool>) => {
  const { status, output } = promtool(...args)
  expect(status, output).toBe(0)
}

describe("a pay_withdrawal job that keeps failing", () => {
  it("is retrying, aged from its first failure: GatewayJobRetrying fires past 30 minutes, not before", async () => {
    const { key } = await signup(api)
    const created = await api.post(
      `${V1}/transactions`,
      {
        method: "pix",
        amount: 10_000,
        customer: { name: "Maria Silva", email: "m@example.com", document: freshCpf() }
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    const paid = await api.post(`/api/sandbox/transactions/${created.body.data.hash}/pay`, undefined, { key })
    expect(paid.status, paid.text).toBe(200)
    const w = await api.post(`${V1}/withdrawals`, { amount: 5_000, bank_account: BANK }, { token: key })
    expect(w.status, w.text).toBe(201)
    const id = w.body.data.id as string
    const jobKey = `withdraw:${id}`
    // The job fails on every attempt (any lasting cause: a payouts bank down, a row it cannot read).
    await server.db.query(`update withdrawals set bank_account = '{}'::jsonb where id = $1`, [id])
    await server.db.query("update graphile_worker._private_jobs set run_at = now() where key = $1", [jobKey])
    const started = Date.now()
    const job = await until(
      "three failed attempts",
      async () => {
        const j = await jobOf(jobKey)
        if (j !== undefined && j.attempts < 3 && j.run_at.getTime() > Date.now())
          await server.db.query("update graphile_worker._private_jobs set run_at = now() where key = $1", [jobKey])
        return j !== undefined && j.attempts >= 3 ? j : undefined
      },
      30_000
    )
    expect(job.max_attempts).toBe(25)
    expect((await server.db.query("select status from withdrawals where id = $1", [id])).rows[0].status).toBe("pending")

    // A blip's worth of failures (three, seconds apart): seen, and no alert.
    const early = await scrape()
    expect(metric(early, "jobs", { task: "pay_withdrawal", state: "retrying" })).toBe(1)
    const earlyAge = metric(early, "jobs_oldest_retrying_age_seconds", { task: "pay_withdrawal" })
    expect(earlyAge).toBeGreaterThan(0)
    expect(earlyAge).toBeLessThanOrEqual((Date.now() - started) / 1000 + 1)
    const series = (age: number) => ({ [`jobs_oldest_retrying_age_seconds{task="pay_withdrawal"}`]: age })
    expectAlerts("GatewayJobRetrying", series(earlyAge), 5, [])

    // The same job as graphile-worker leaves it after 8 failures, the last 10 minutes ago: its first failure
    // was the sum of the back-offs before (e^1 + … + e^7 s, about 29 minutes) earlier, 39 minutes ago.
    await server.db.query(
      `update graphile_worker._private_jobs
       set attempts = 8, run_at = now() + make_interval(secs => exp(8) - 600), created_at = now() - interval '1 day'
       where key = $1`,
      [jobKey]
    )
    const firstFailure = 600 + [1, 2, 3, 4, 5, 6, 7].reduce((s, n) => s + Math.exp(n), 0)
    const late = await scrape()
    expect(metric(late, "jobs", { task: "pay_withdrawal", state: "retrying" })).toBe(1)
    const lateAge = metric(late, "jobs_oldest_retrying_age_seconds", { task: "pay_withdrawal" })
    expect(Math.abs(lateAge - firstFailure), `${lateAge} s, ${firstFailure} s expected`).toBeLessThan(30)
    expectAlerts("GatewayJobRetrying", series(lateAge), 5, [{ labels: { task: "pay_withdrawal" } }])
    // The crontab's tasks retry for seconds only and are left to GatewayScheduledJobFailing.
    expectAlerts("GatewayJobRetrying", { [`jobs_oldest_retrying_age_seconds{task="reconcile_pix"}`]: 3600 }, 5, [])
  }, 60_000)
})

describe("a job whose payload no longer decodes", () => {
  it("fails for good on its first attempt, saying what does not decode and none of the payload's values", async () => {
    await server.db.query(
      `select graphile_worker.add_job('settle_receivable', '{"accountId":"not-an-account","receivableId":"nope"}'::json,
         job_key := 'undecodable', max_attempts := 25)`
    )
    const job = await until("the first attempt", async () => {
      const j = await jobOf("undecodable")
      return j !== undefined && j.attempts >= 1 && j.last_error !== null ? j : undefined
    })
    expect({ attempts: job.attempts, max: job.max_attempts }).toEqual({ attempts: 25, max: 25 })
    expect(job.last_error).toMatch(/^settle_receivable failed: UndecodablePayload: the payload does not decode/)
    expect(job.last_error).toContain("receivableId: expected UUID")
    expect(job.last_error).toContain("accountId: expected")
    expect(job.last_error).not.toMatch(/not-an-account|nope/)
    const failed = metric(await scrape(), "jobs", { task: "settle_receivable", state: "failed" })
    expect(failed).toBe(1)
    expectAlerts("GatewayJobsFailing", { [`jobs{task="settle_receivable",state="failed"}`]: failed }, 20, [
      { labels: { task: "settle_receivable" } }
    ])
  })
})

describe("the hourly cleanup, failing", () => {
  it("alerts once two runs in a row failed, not one, and clears when a run succeeds", async () => {
    const cleanup = parseCrontab(CRONTAB).find((i) => i.task === "cleanup")!
    const failedRuns = async () =>
      Number(
        (
          await server.db.query(
            `select count(*) from graphile_worker.jobs where task_identifier = 'cleanup' and attempts >= max_attempts`
          )
        ).rows[0].count
      )
    // A run as the crontab adds it (no job key, ?max=3), driven through its attempts without the back-off.
    const run = async () => {
      const before = await failedRuns()
      const { id } = (
        await server.db.query<{ id: string }>(
          `select id from graphile_worker.add_job('cleanup', '{}'::json, max_attempts := $1)`,
          [cleanup.options.maxAttempts]
        )
      ).rows[0]!
      await until("the run's end", async () => {
        const {
          rows: [j]
        } = await server.db.query<{ attempts: number; max_attempts: number; run_at: Date }>(
          "select attempts, max_attempts, run_at from graphile_worker.jobs where id = $1",
          [id]
        )
        if (j === undefined) return "succeeded"
        if (j.attempts < j.max_attempts && j.run_at.getTime() > Date.now())
          await server.db.query("update graphile_worker._private_jobs set run_at = now() where id = $1", [id])
        return j.attempts >= j.max_attempts && (await failedRuns()) > before ? "failed" : undefined
      })
    }
    const failedGauge = async () => metric(await scrape(), "jobs", { task: "cleanup", state: "failed" })
    const series = (n: number) => ({ [`jobs{task="cleanup",state="failed"}`]: n })

    // The clean-up fails on every run.
    await server.db.query("alter table idempotency_keys rename to idempotency_keys_gone")
    try {
      await run()
      expect(await failedGauge()).toBe(1)
      expectAlerts("GatewayScheduledJobFailing", series(1), 5, [])
      await run()
      expect(await failedGauge()).toBe(2)
      expectAlerts("GatewayScheduledJobFailing", series(2), 5, [{ labels: { task: "cleanup" }, value: 2 }])
    } finally {
      await server.db.query("alter table idempotency_keys_gone rename to idempotency_keys")
    }
    // Mended: the next run succeeds and deletes the failed runs before it, and the alert clears.
    await run()
    expect(await failedRuns()).toBe(0)
    expect(await failedGauge()).toBe(0)
    expectAlerts("GatewayScheduledJobFailing", series(0), 5, [])
    // The hourly ledger check alike; the others of the crontab once they failed for 15 minutes.
    expectAlerts(
      "GatewayScheduledJobFailing",
      {
        [`jobs{task="ledger_check",state="failed"}`]: 2,
        [`jobs{task="return_bolepix_pix",state="failed"}`]: 2,
        [`jobs{task="reconcile_pix",state="failed"}`]: 15
      },
      5,
      [
        { labels: { task: "ledger_check" }, value: 2 },
        { labels: { task: "reconcile_pix" }, value: 15 }
      ]
    )
  }, 60_000)
})

describe("a ledger check never recorded", () => {
  it("alerts after three hours (GatewayLedgerCheckStale waits for a first check), not before", () => {
    expect(ledgerCheckedAtStart).toBe(0)
    const series = (at: number) => ({ ledger_check_timestamp_seconds: at })
    expectAlerts("GatewayLedgerNeverChecked", series(ledgerCheckedAtStart), 190, [{ labels: {} }])
    expectAlerts("GatewayLedgerNeverChecked", series(ledgerCheckedAtStart), 170, [])
    expectAlerts("GatewayLedgerNeverChecked", series(3 * 3600), 190, [])
  })
})
