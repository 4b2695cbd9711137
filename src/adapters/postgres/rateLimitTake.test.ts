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
/** The prune test's window: wider apart than a loaded machine's pauses between its statements. */
const PRUNE_WINDOW = "1000 milliseconds"

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

  it("deletes expired hits from its last call's mark, or from the start if the mark is ahead (0047)", async () => {
    const key = randomUUID()
    const hitsAt = async () =>
      (await pool.query<{ at: Date }>("select at from rate_limit_hits where key_id = $1 order by at", [key])).rows.map(
        (r) => r.at.getTime()
      )
    const mark = async () =>
      (await pool.query<{ expired_to: Date }>("select expired_to from rate_limit_counts where key_id = $1", [key]))
        .rows[0]!.expired_to
    const first = await take(pool, key)
    expect(first.allowed).toBe(true)
    // The mark is the call's clock less the window: at most `t` − 300 ms.
    const expiredTo = await mark()
    expect(expiredTo.getTime()).toBeLessThanOrEqual(first.t.getTime() - 300)
    // A hit at the mark, which no call of the function can leave there: it stands for an entry a call
    // before deleted. A call that scans from the mark does not see it.
    await pool.query("insert into rate_limit_hits (key_id, at) values ($1, $2)", [key, expiredTo])
    await sleep(350)
    const second = await take(pool, key)
    expect(second).toMatchObject({ allowed: true, remaining: LIMIT - 1 })
    // The first call's hit expired and is gone; the planted one, at the mark, was not looked at.
    expect(await hitsAt()).toEqual([expiredTo.getTime(), expect.any(Number)])
    // A mark ahead of the clock, as a clock set back would leave it: that call deletes from the start.
    await pool.query("update rate_limit_counts set expired_to = now() + interval '1 hour' where key_id = $1", [key])
    await sleep(350)
    const third = await take(pool, key)
    expect(third).toMatchObject({ allowed: true, remaining: LIMIT - 1 })
    expect(await hitsAt()).toHaveLength(1)
    expect((await mark()).getTime()).toBeLessThanOrEqual(third.t.getTime() - 300)
    expect((await state(key)).count).toBe(1)
  }, 30_000)
})

/** `rate_limit_prune` (migrations 0044, 0046) once, with the tests' short window or the one given. */
const prune = async (windows: number, window = WINDOW) =>
  (
    await pool.query<{ windows: number; hits: number }>("select * from rate_limit_prune($1::interval, $2)", [
      window,
      windows
    ])
  ).rows[0]!
/** Every window of this file's earlier tests, once its hits have expired, pruned. */
const pruneAll = async () => {
  await sleep(400)
  let hits = 0
  for (let found = await prune(1_000); ; found = await prune(1_000)) {
    hits += found.hits
    if (found.windows < 1_000) return hits
  }
}

describe("rate_limit_prune", () => {
  it("drops an idle window's expired hits and lowers its count as much; windows in use keep theirs", async () => {
    await pruneAll()
    const idle = randomUUID()
    const used = randomUUID()
    for (let i = 0; i < 3; i++) expect((await take(pool, idle)).allowed).toBe(true)
    for (let i = 0; i < 2; i++) await take(pool, used)
    await sleep(1_500)
    // Used again: its own request dropped its expired hits; a third window is all within the minute.
    await take(pool, used)
    const fresh = randomUUID()
    for (let i = 0; i < 2; i++) await take(pool, fresh)
    expect(await state(idle)).toEqual({ count: 3, hits: 3 })

    // Pruned with a window of a second: the idle window's hits are 1.5 s old, the others' younger than the
    // assertions below can take on a loaded machine (with the 300 ms window, they expired mid-test there).
    expect(await prune(100, PRUNE_WINDOW)).toEqual({ windows: 1, hits: 3 })
    // Emptied, the window keeps no row of its count either (migration 0046).
    expect(await state(idle)).toEqual({ count: null, hits: 0 })
    expect(await state(used)).toEqual({ count: 1, hits: 1 })
    expect(await state(fresh)).toEqual({ count: 2, hits: 2 })
    expect(await prune(100, PRUNE_WINDOW)).toEqual({ windows: 0, hits: 0 })
    // The pruned window takes its whole limit again, each request counted from zero.
    const again = await takeMany(pool, idle, LIMIT + 1)
    expect(again.map((r) => r.allowed)).toEqual([...Array(LIMIT).fill(true), false])
    expect(again[0]!.remaining).toBe(LIMIT - 1)
    expect(await state(idle)).toEqual({ count: LIMIT, hits: LIMIT })
  })

  it("a window pruned only in part keeps its row, counting the hits left", async () => {
    await pruneAll()
    const key = randomUUID()
    await takeMany(pool, key, 1)
    // An expired hit its requests have not dropped yet (each request drops them first), beside one in the minute.
    await pool.query("insert into rate_limit_hits (key_id, at) values ($1, clock_timestamp() - interval '1 second')", [
      key
    ])
    await pool.query("update rate_limit_counts set count = count + 1 where key_id = $1", [key])
    expect(await state(key)).toEqual({ count: 2, hits: 2 })
    expect(await prune(100)).toEqual({ windows: 1, hits: 1 })
    expect(await state(key)).toEqual({ count: 1, hits: 1 })
  })

  it("takes at most the windows it is asked for per call", async () => {
    await pruneAll()
    const keys = Array.from({ length: 5 }, () => randomUUID())
    for (const key of keys) await takeMany(pool, key, 2)
    await sleep(400)
    expect(await prune(2)).toEqual({ windows: 2, hits: 4 })
    expect(await prune(2)).toEqual({ windows: 2, hits: 4 })
    expect(await prune(2)).toEqual({ windows: 1, hits: 2 })
    expect(await prune(2)).toEqual({ windows: 0, hits: 0 })
    for (const key of keys) expect(await state(key)).toEqual({ count: null, hits: 0 })
  })

  it("waits for the window's lock, the one its requests take, before it touches the window", async () => {
    await pruneAll()
    const key = randomUUID()
    await takeMany(pool, key, 3)
    await sleep(400)
    const holder = await pool.connect()
    try {
      // As a request of the window would, between its lock and its commit.
      await holder.query("begin")
      await holder.query("select pg_advisory_xact_lock(hashtextextended('rate_limit:' || $1, 0))", [key])
      let answered = false
      const pruning = prune(100).then((found) => ((answered = true), found))
      await sleep(300)
      expect(answered).toBe(false)
      expect(await state(key)).toEqual({ count: 3, hits: 3 })
      await holder.query("commit")
      expect(await pruning).toEqual({ windows: 1, hits: 3 })
      expect(await state(key)).toEqual({ count: null, hits: 0 })
    } finally {
      // After a failed expectation the lock is still held: never hand it back to the pool.
      await holder.query("rollback")
      holder.release()
    }
  })

  it("pruning while eight callers take slots: the count stays the hits, the limit per window kept", async () => {
    const key = randomUUID()
    let done = false
    let pruned = 0
    const pruner = (async () => {
      while (!done) {
        pruned += (await prune(100)).hits
        await sleep(Math.floor(Math.random() * 5))
      }
    })()
    // Pauses up to 120 ms: the window empties and fills again, and its expired hits wait for either side.
    const stamps = await eightCallers(40, 120, async (client) => [await take(client, key)])
    done = true
    await pruner
    const after = await state(key)
    // A window the pruner emptied last has no count row (migration 0046): its requests read that as 0.
    expect(after.count ?? 0).toBe(after.hits)
    expect(after.hits).toBeLessThanOrEqual(LIMIT)
    expectWindowKept(stamps)
    // The pruner did take hits from under the callers, not only from other windows.
    expect(pruned).toBeGreaterThan(0)
  }, 30_000)
})
