import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "./support/database.ts"
import { runCliOutput } from "./support/processes.ts"

const cli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCliOutput(args, env)

describe("the operator CLI's messages", () => {
  let url: string
  let env: Record<string, string>
  let db: pg.Pool
  beforeAll(async () => {
    url = await createMigratedTestDatabase()
    env = { DATABASE_URL: url }
    db = new pg.Pool({ connectionString: url, max: 2 })
    const made = await cli(
      ["accounts", "create", "--name", "Ze", "--email", "ze@example.com", "--password", "correct horse battery"],
      env
    )
    expect(made.code, made.stderr).toBe(0)
  }, 90_000)
  afterAll(async () => {
    await db?.end()
  })

  it("accounts create with an email already registered says so, as signup's 409 does", async () => {
    const again = await cli(
      ["accounts", "create", "--name", "Ze 2", "--email", "ze@example.com", "--password", "correct horse battery"],
      env
    )
    expect(again.code).toBe(1)
    expect(again.stderr.trim()).toMatch(/already registered/i)
  }, 60_000)

  it("accounts create refuses what signup refuses, naming the option, and stores nothing", async () => {
    for (const [option, value, rule] of [
      ["--email", "ze at example.com", /^--email must be a valid email address$/],
      ["--password", "short", /^--password must have at least 10 characters$/],
      ["--name", "   ", /^--name must not be empty$/]
    ] as const) {
      const args = { "--name": "Ze 3", "--email": "ze3@example.com", "--password": "correct horse battery" }
      const given = Object.entries({ ...args, [option]: value }).flat()
      const refused = await cli(["accounts", "create", ...given], env)
      expect(refused.code, refused.stderr).toBe(1)
      expect(refused.stderr.trim()).toMatch(rule)
    }
    const stored = await db.query("select count(*)::int as n from accounts where email in ($1, $2)", [
      "ze at example.com",
      "ze3@example.com"
    ])
    expect(stored.rows[0].n).toBe(0)
  }, 90_000)

  it("an unknown option is named in one readable line, not an Effect Cause as JSON", async () => {
    const r = await cli(["pix", "handled", "--idd", "E2E", "--note", "returned at the PSP"], env)
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain('"_id":"Cause"')
    expect(r.stderr).toContain("--idd")
  }, 60_000)

  it("an option given without its value is named, not an Effect Cause as JSON", async () => {
    const r = await cli(["refunds", "conclude", "--outcome", "refunded", "--id"], env)
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain('"_id":"Cause"')
    expect(r.stderr).toContain("--id")
  }, 60_000)

  it("a --rate-limit too large for the column is refused with a clear line, not a SqlError as JSON", async () => {
    const r = await cli(
      ["keys", "create", "--account", "ze@example.com", "--scopes", "orders:read", "--rate-limit", "99999999999"],
      env
    )
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain('"_id":"Cause"')
    expect(r.stderr).toContain("--rate-limit")
  }, 60_000)

  it("a DATABASE_URL naming a missing database: PostgreSQL's reason, not a Cause with no message", async () => {
    const missing = new URL(url)
    missing.pathname = "/gw_no_such_db"
    const r = await cli(["ledger", "check"], { DATABASE_URL: missing.toString() })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/gw_no_such_db.*does not exist|does not exist/)
  }, 60_000)

  it("a DATABASE_URL refusing connections: the reason and the URL (password hidden), not a bare errno", async () => {
    const refused = new URL(url)
    refused.port = "1"
    refused.password = "hunter2-review"
    const r = await cli(["ledger", "check"], { DATABASE_URL: refused.toString() })
    expect(r.code).toBe(1)
    expect(r.stderr).not.toContain("hunter2-review")
    expect(r.stderr).not.toContain('"_id":"Cause"')
    expect(r.stderr).toContain("127.0.0.1:1")
  }, 60_000)

  it("pix exceptions lists the oldest payment waiting, the one GatewayPixExceptionWaiting is about", async () => {
    // 101 PIX naming no charge of ours wait for an operator; the oldest for two days.
    await db.query(
      `insert into pix_received (end_to_end_id, txid, amount, paid_at, source, outcome, received_at)
       select 'E2EWAITING' || lpad(g::text, 4, '0'), null, 1000 + g, now() - interval '2 days', 'webhook',
              'unknown_charge', now() - interval '2 days' + g * interval '1 minute'
       from generate_series(0, 100) g`
    )
    const waiting = (
      await db.query<{ n: number }>(
        `select count(*)::int as n from pix_received
         where outcome <> 'settled' and outcome <> 'returned' and handled_at is null`
      )
    ).rows[0]!.n
    expect(waiting).toBe(101)
    const r = await cli(["pix", "exceptions"], env)
    expect(r.code, r.stderr).toBe(0)
    const listed = JSON.parse(r.stdout) as Array<{ endToEndId: string }>
    expect(listed.map((p) => p.endToEndId)).toContain("E2EWAITING0000")
  }, 60_000)
})
