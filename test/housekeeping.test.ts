import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const eventually = async (check: () => Promise<boolean>, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error("condition not met in time")
}

describe("the cleanup job", () => {
  it(
    "deletes idempotency records older than 24 hours, delivery history older than 30 days and ended " +
      "antifraud counters, and nothing younger",
    async () => {
      const api = client(server.baseUrl)
      const { accountId } = await signup(api)
      const db = server.db
      const key = (name: string, age: string) =>
        db.query(
          `insert into idempotency_keys (account_id, key, fingerprint, resource_id, created_at)
         values ($1, $2, 'f', gen_random_uuid(), now() - $3::interval)`,
          [accountId, name, age]
        )
      await key("old", "25 hours")
      await key("young", "23 hours")
      const event = async (age: string, status: string) => {
        const { rows } = await db.query<{ id: string }>(
          `insert into events (id, account_id, type, payload, created_at)
         values (gen_random_uuid(), $1, 'transaction.paid', '{}'::jsonb, now() - $2::interval) returning id`,
          [accountId, age]
        )
        await db.query(
          `insert into webhook_deliveries (id, account_id, event_id, event, url, status, created_at)
         values (gen_random_uuid(), $1, $2, 'transaction.paid', 'https://example.com', $3, now() - $4::interval)`,
          [accountId, rows[0]!.id, status, age]
        )
        return rows[0]!.id
      }
      const counter = (key: string, endsIn: string) =>
        db.query(
          `insert into antifraud_counters (account_id, kind, key, bucket, count, expires_at)
         values ($1, 'card', $2, 1, 3, now() + $3::interval)`,
          [accountId, key, endsIn]
        )
      await counter("ended", "-1 minute")
      await counter("running", "10 minutes")
      const oldDone = await event("31 days", "SUCCESS")
      const oldPending = await event("31 days", "PENDING")
      const recent = await event("29 days", "FAILED")

      await db.query(`select graphile_worker.add_job('cleanup', '{}'::json)`)
      // The counters go last in the job: once they are gone, the job is done.
      await eventually(
        async () =>
          (await db.query(`select 1 from antifraud_counters where account_id = $1 and key = 'ended'`, [accountId]))
            .rowCount === 0
      )

      const keys = await db.query<{ key: string }>(`select key from idempotency_keys where account_id = $1`, [
        accountId
      ])
      expect(keys.rows.map((r) => r.key)).toEqual(["young"])
      const events = await db.query<{ id: string }>(`select id from events where account_id = $1`, [accountId])
      // A delivery still PENDING keeps its event, however old; finished old history goes.
      expect(events.rows.map((r) => r.id).sort()).toEqual([oldPending, recent].sort())
      expect(events.rows.map((r) => r.id)).not.toContain(oldDone)
      // Velocity counters of a window that has ended go; the current window's stay (CONTRACT-v1 §9).
      const counters = await db.query<{ key: string }>(`select key from antifraud_counters where account_id = $1`, [
        accountId
      ])
      expect(counters.rows.map((r) => r.key)).toEqual(["running"])
    }
  )

  it("drops the expired rate-limit hits of idle windows (a key's, a link's), leaves a window in use", async () => {
    const api = client(server.baseUrl)
    const { key, accountId } = await signup(api)
    const db = server.db
    const keyId = (await db.query<{ id: string }>("select id from api_keys where account_id = $1", [accountId]))
      .rows[0]!.id
    const link = await api.post(
      "/public/v1/payment_links",
      { name: "Camiseta", amount: 8_990, payment_methods: ["pix"] },
      { token: key }
    )
    expect(link.status, link.text).toBe(201)
    const linkId: string = link.body.data.id
    const inUse = crypto.randomUUID()
    // Windows as requests left them: the key's and the link's last hits two minutes old, the third's now.
    const window = async (id: string, ages: ReadonlyArray<string>) => {
      await db.query("delete from rate_limit_hits where key_id = $1", [id])
      for (const age of ages)
        await db.query("insert into rate_limit_hits (key_id, at) values ($1, now() - $2::interval)", [id, age])
      await db.query(
        `insert into rate_limit_counts (key_id, count) values ($1, $2)
         on conflict (key_id) do update set count = excluded.count`,
        [id, ages.length]
      )
    }
    await window(keyId, ["2 minutes", "2 minutes", "3 minutes"])
    await window(linkId, ["90 seconds"])
    await window(inUse, ["70 seconds", "10 seconds", "1 second"])
    // More idle windows than one statement takes (100): the job goes on until none is left.
    const many = await db.query<{ id: string }>(
      `with w as (select gen_random_uuid() as id from generate_series(1, 250)),
            h as (insert into rate_limit_hits (key_id, at) select id, now() - interval '5 minutes' from w)
       insert into rate_limit_counts (key_id, count) select id, 1 from w returning key_id as id`
    )
    const state = async (id: string) =>
      (
        await db.query<{ count: number | null; hits: number }>(
          `select (select count from rate_limit_counts where key_id = $1) as count,
                  (select count(*)::int from rate_limit_hits where key_id = $1) as hits`,
          [id]
        )
      ).rows[0]!

    const left = async () =>
      (
        await db.query<{ n: number }>(
          `select (select count(*)::int from rate_limit_hits where key_id = any($1::uuid[])) +
                (select coalesce(sum(count), 0)::int from rate_limit_counts where key_id = any($1::uuid[])) as n`,
          [many.rows.map((r) => r.id)]
        )
      ).rows[0]!.n

    await db.query(`select graphile_worker.add_job('cleanup', '{}'::json)`)
    // The hits go last in the job, in statements of 100 windows: once all these are gone, it is done.
    await eventually(async () => (await state(linkId)).hits === 0 && (await left()) === 0)
    // Emptied windows keep no count row either (migration 0046).
    expect(await state(keyId)).toEqual({ count: null, hits: 0 })
    expect(await state(linkId)).toEqual({ count: null, hits: 0 })
    // A window in use keeps its minute; only its hit older than that goes.
    expect(await state(inUse)).toEqual({ count: 2, hits: 2 })
    // The key takes its whole limit again: its first request finds the window empty.
    const first = await api.get("/api/customers", { key })
    expect(first.status, first.text).toBe(200)
    expect(Number(first.headers.get("ratelimit-remaining"))).toBe(Number(first.headers.get("ratelimit-limit")) - 1)
  })

  it("is scheduled hourly by the worker's crontab", async () => {
    const { rows } = await server.db.query(
      `select identifier from graphile_worker._private_tasks where identifier = 'cleanup'`
    )
    expect(rows).toHaveLength(1)
    const known = await server.db.query(
      `select count(*)::int as n from graphile_worker._private_known_crontabs where identifier like '%cleanup%'`
    )
    expect(known.rows[0].n).toBe(1)
  })
})
