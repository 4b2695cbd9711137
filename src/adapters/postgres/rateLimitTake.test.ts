import { randomUUID } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMigratedTestDatabase } from "../../../test/support/database.ts"

/**
 * `rate_limit_take` (migrations 0010, 0011, 0040, 0041) against what it must keep true, whatever its body: the
 * key's count is the number of its hits left in the window; an accepted request says how many remain
 * after it; a refused one finds the window full; and concurrent callers of one key never accept more
 * than the limit within a window. Driven with a short window so that hits expire during the test.
 * (The limit across API processes over HTTP: test/ratelimit.test.ts.)
 */

const LIMIT = 5
const WINDOW = "300 milliseconds"

let pool: pg.Pool
beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createMigratedTestDatabase(), max: 8 })
})
afterAll(async () => {
  await pool?.end()
})

const take = async (client: pg.Pool | pg.PoolClient, key: string) =>
  // `t`: the database's clock once the function has returned, a moment after it stamped its hit (under the
  // key's lock, before its commit, so in the hits' order).
  (
    await client.query<{ allowed: boolean; remaining: number; reset_ms: string; t: Date }>(
      "select *, clock_timestamp() as t from rate_limit_take($1, $2, $3::interval)",
      [key, LIMIT, WINDOW]
    )
  ).rows[0]!

/** `n` requests of one key at once (migration 0042): one row each, the accepted first. */
const takeMany = async (client: pg.Pool | pg.PoolClient, key: string, n: number) =>
  (
    await client.query<{ allowed: boolean; remaining: number; reset_ms: string; t: Date }>(
      "select *, clock_timestamp() as t from rate_limit_take($1, $2, $3::interval, $4)",
      [key, LIMIT, WINDOW, n]
    )
  ).rows

const state = async (key: string) => {
  const { rows } = await pool.query<{ count: number | null; hits: number }>(
    `select (select count from rate_limit_counts where key_id = $1) as count,
            (select count(*)::int from rate_limit_hits where key_id = $1) as hits`,
    [key]
  )
  return rows[0]!
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Eight connections calling at once, `rounds` calls each with a random pause of up to `pauseMs`; the
 * database's clock after each accepted request (`t`), in order.
 */
const eightCallers = async (
  rounds: number,
  pauseMs: number,
  call: (client: pg.PoolClient) => Promise<ReadonlyArray<{ allowed: boolean; t: Date }>>
) => {
  const stamps: Array<number> = []
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      const client = await pool.connect()
      try {
        for (let i = 0; i < rounds; i++) {
          for (const reply of await call(client)) if (reply.allowed) stamps.push(reply.t.getTime())
          await sleep(Math.floor(Math.random() * pauseMs))
        }
      } finally {
        client.release()
      }
    })
  )
  return stamps.sort((a, b) => a - b)
}

/**
 * Over the whole run: any LIMIT + 1 accepted requests span more than the window (less the moment
 * between each hit's stamp and `t`), and more than LIMIT were accepted (several windows went by).
 */
const expectWindowKept = (stamps: ReadonlyArray<number>) => {
  for (let i = LIMIT; i < stamps.length; i++) expect(stamps[i]! - stamps[i - LIMIT]!).toBeGreaterThan(250)
  expect(stamps.length).toBeGreaterThan(LIMIT)
}

describe("rate_limit_take", () => {
  it("one caller: the count is the hits left, accepted ones say what remains, refused ones find it full", async () => {
    const key = randomUUID()
    let accepted = 0
    let refused = 0
    for (let i = 0; i < 150; i++) {
      const reply = await take(pool, key)
      const after = await state(key)
      expect(after.count).toBe(after.hits)
      if (reply.allowed) {
        accepted++
        expect(reply.remaining).toBe(LIMIT - after.hits)
        expect(Number(reply.reset_ms)).toBeGreaterThanOrEqual(0)
        expect(Number(reply.reset_ms)).toBeLessThanOrEqual(300)
      } else {
        refused++
        expect(after.hits).toBe(LIMIT)
        expect(reply.remaining).toBe(0)
        expect(Number(reply.reset_ms)).toBeGreaterThanOrEqual(1)
        expect(Number(reply.reset_ms)).toBeLessThanOrEqual(300)
      }
      await sleep(Math.floor(Math.random() * 25))
    }
    // Both happened, several windows over.
    expect(accepted).toBeGreaterThan(LIMIT)
    expect(refused).toBeGreaterThan(0)
  }, 30_000)

  it("eight callers at once: at most the limit accepted per window, the count still the hits", async () => {
    const key = randomUUID()
    const stamps = await eightCallers(60, 10, async (client) => [await take(client, key)])
    const after = await state(key)
    expect(after.count).toBe(after.hits)
    expect(after.hits).toBeLessThanOrEqual(LIMIT)
    expectWindowKept(stamps)
  }, 30_000)

  it("reads a busy key's hits through the index, not by scanning the table (migration 0041)", async () => {
    // A busy key as production sees it between two `analyze`s: the statistics were taken a while ago,
    // when the key's hits were those of ten minutes back, and the window has moved on past them; now
    // 30,000 hits are in the window.
    const key = randomUUID()
    const hits = (from: string) =>
      pool.query(
        `insert into rate_limit_hits (key_id, at)
         select $1, clock_timestamp() - $2::interval + g * interval '1 millisecond'
         from generate_series(1, 30000) g`,
        [key, from]
      )
    await hits("10 minutes")
    await pool.query("analyze rate_limit_hits")
    await pool.query("delete from rate_limit_hits where key_id = $1", [key])
    await hits("50 seconds")
    await pool.query("insert into rate_limit_counts (key_id, count) values ($1, 30000)", [key])
    const client = await pool.connect()
    // This backend's scans of the table not yet flushed to the shared statistics (PostgreSQL 15 keeps
    // them past a transaction's end), read before and after the calls.
    const scans = async () =>
      Number(
        (
          await client.query<{ seq_scan: string }>(
            "select seq_scan from pg_stat_xact_user_tables where relname = 'rate_limit_hits'"
          )
        ).rows[0]!.seq_scan
      )
    try {
      await client.query("begin")
      const before = await scans()
      // More calls than PL/pgSQL's five custom plans, so the generic plan is run too.
      for (let i = 0; i < 8; i++) {
        const { rows } = await client.query<{ allowed: boolean; remaining: number }>(
          "select * from rate_limit_take($1, 1000000, '60 seconds')",
          [key]
        )
        expect(rows[0]).toMatchObject({ allowed: true, remaining: 1_000_000 - 30_000 - i - 1 })
      }
      expect((await scans()) - before).toBe(0)
      await client.query("rollback")
    } finally {
      client.release()
    }
  }, 30_000)

  it("several requests in one call: each is answered as it would be alone, one after the other", async () => {
    const key = randomUUID()
    let accepted = 0
    let refused = 0
    for (let i = 0; i < 120; i++) {
      const n = 1 + Math.floor(Math.random() * 4)
      const rows = await takeMany(pool, key, n)
      const after = await state(key)
      expect(rows).toHaveLength(n)
      expect(after.count).toBe(after.hits)
      const taken = rows.filter((r) => r.allowed)
      // The accepted come first, each leaving one slot fewer than the one before it.
      expect(rows.slice(0, taken.length)).toEqual(taken)
      // The hits the call found in the window: as many accepted as it had room for, the rest refused.
      const found = after.hits - taken.length
      expect(taken.length).toBe(Math.min(n, LIMIT - found))
      expect(taken.map((r) => r.remaining)).toEqual(taken.map((_, j) => LIMIT - found - j - 1))
      for (const r of taken) expect(Number(r.reset_ms)).toBeLessThanOrEqual(300)
      for (const r of rows.slice(taken.length)) {
        expect(after.hits).toBe(LIMIT)
        expect(r).toMatchObject({ allowed: false, remaining: 0 })
        expect(Number(r.reset_ms)).toBeGreaterThanOrEqual(1)
        expect(Number(r.reset_ms)).toBeLessThanOrEqual(300)
      }
      accepted += taken.length
      refused += n - taken.length
      await sleep(Math.floor(Math.random() * 40))
    }
    expect(accepted).toBeGreaterThan(LIMIT)
    expect(refused).toBeGreaterThan(0)
  }, 30_000)

  it("eight callers at once asking for several: at most the limit accepted per window", async () => {
    const key = randomUUID()
    let asked = 0
    const stamps = await eightCallers(40, 30, (client) => {
      const n = 1 + Math.floor(Math.random() * 3)
      asked += n
      return takeMany(client, key, n)
    })
    const after = await state(key)
    expect(after.count).toBe(after.hits)
    expect(after.hits).toBeLessThanOrEqual(LIMIT)
    expectWindowKept(stamps)
    expect(stamps.length).toBeLessThan(asked)
  }, 30_000)
})
