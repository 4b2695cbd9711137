import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { customerAndOrder, customerBody, expectError } from "./support/foundation.ts"
import { client, type Client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * interface-v2 lists return every record: the response streams keyset pages from the database instead of
 * building the whole array (issue 10, "Lists stream"). Not timed: what is asserted is that every record
 * arrives once, in order, that the process's memory does not grow with the list, and that other requests
 * are served meanwhile.
 */

const ROWS = 200_000
const MB = 1024 * 1024

// A full collection on demand, so that what is measured is memory the process holds, not garbage V8 has
// not collected yet (how much of that it lets pile up depends on the machine's load, not on the list).
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

let server: TestServer
let api: Client
let account: Awaited<ReturnType<typeof signup>>
let orderId: string

/**
 * `count` PIX transactions of one account by SQL, with details of a real charge's size. Three rows share
 * each timestamp and neighbours are a microsecond apart, so a page boundary that dropped microseconds
 * (a JS Date) or ignored the id would repeat or skip rows.
 */
const seed = (accountId: string, count: number, from = "2026-01-01") =>
  server.db.query(
    `insert into transactions (id, account_id, order_id, method, amount, status, details, created_at, updated_at)
     select gen_random_uuid(), $1, $2, 'PIX', 1000 + i % 5000, 'PENDING',
            jsonb_build_object('pix', jsonb_build_object(
              'emv', '00020126580014br.gov.bcb.pix0136' || md5(i::text) || repeat('0', 120),
              'txid', md5('t' || i), 'expiresAt', '2026-01-01T01:00:00.000Z', 'qrToken', md5('q' || i))),
            $4::timestamptz + (i / 3) * interval '1 microsecond', $4::timestamptz
     from generate_series(1, $3::int) i`,
    [accountId, orderId, count, from]
  )

/** The ids of the account's transactions in the list's order, as the database sorts them. */
const expectedIds = async (accountId: string) =>
  (
    await server.db.query<{ id: string }>(
      "select id::text as id from transactions where account_id = $1 order by created_at desc, id desc",
      [accountId]
    )
  ).rows.map((row) => row.id)

/**
 * Feeds the text of a JSON array of objects and calls `onItem` with each object as soon as its closing
 * brace arrives, so the reader holds at most one item and one network chunk.
 */
const arrayItems = (onItem: (item: any) => void) => {
  let carry = ""
  let depth = 0
  let inString = false
  let escaped = false
  let start = -1
  return (text: string) => {
    const buffer = carry + text
    const offset = carry.length
    let itemStart = start
    for (let i = offset; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i)
      if (inString) {
        if (escaped) escaped = false
        else if (c === 92) escaped = true
        else if (c === 34) inString = false
      } else if (c === 34) inString = true
      else if (c === 123 || c === 91) {
        depth += 1
        if (depth === 2 && c === 123) itemStart = i
      } else if (c === 125 || c === 93) {
        depth -= 1
        if (depth === 1 && c === 125) {
          onItem(JSON.parse(buffer.slice(itemStart, i + 1)))
          itemStart = -1
        }
      }
    }
    carry = itemStart >= 0 ? buffer.slice(itemStart) : ""
    start = itemStart >= 0 ? 0 : -1
  }
}

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
  account = await signup(api, "Loja Grande")
  orderId = (await customerAndOrder(api, account.key, 5000)).order.id
  await seed(account.accountId, ROWS)
  await server.db.query("analyze transactions")
}, 120_000)
afterAll(async () => {
  await server?.close()
})

describe("GET /api/transactions streams", () => {
  it(`${ROWS} transactions: each once, in order, memory flat, /health answered meanwhile`, async () => {
    const expected = await expectedIds(account.accountId)
    expect(expected).toHaveLength(ROWS)

    gc()
    const base = process.memoryUsage()
    let peakRss = base.rss
    let peakHeap = base.heapUsed
    let peakLive = base.heapUsed
    const sample = () => {
      const now = process.memoryUsage()
      peakRss = Math.max(peakRss, now.rss)
      peakHeap = Math.max(peakHeap, now.heapUsed)
    }
    const sampler = setInterval(sample, 20)
    // Every 200 ms: collect, then read what is still alive.
    const collector = setInterval(() => {
      gc()
      peakLive = Math.max(peakLive, process.memoryUsage().heapUsed)
    }, 200)

    let streaming = true
    let healthAnswers = 0
    const health = (async () => {
      while (streaming) {
        const reply = await fetch(`${server.baseUrl}/health`)
        await reply.arrayBuffer()
        if (reply.status === 200) healthAnswers += 1
      }
    })()

    let received = 0
    let outOfOrder = 0
    let bytes = 0
    const feed = arrayItems((item) => {
      if (item.id !== expected[received]) outOfOrder += 1
      // The spec's Transaction shape, encoded as before (the small-list tests check it field by field).
      if (typeof item.amount !== "number" || item.method !== "PIX" || item.orderId !== orderId) outOfOrder += 1
      received += 1
    })
    const response = await fetch(`${server.baseUrl}/api/transactions`, { headers: { "x-api-key": account.key } })
    try {
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("application/json")
      expect(response.headers.get("transfer-encoding")).toBe("chunked")
      const decoder = new TextDecoder()
      const reader = response.body!.getReader()
      let head = ""
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        bytes += value.byteLength
        const text = decoder.decode(value, { stream: true })
        if (head.length < 1) head = text.slice(0, 1)
        feed(text)
        sample()
      }
      expect(head).toBe("[")
    } finally {
      streaming = false
      clearInterval(sampler)
      clearInterval(collector)
      await health
    }

    const rssGrowth = (peakRss - base.rss) / MB
    const heapGrowth = (peakHeap - base.heapUsed) / MB
    const liveGrowth = (peakLive - base.heapUsed) / MB
    console.info(
      `lists.stream: ${received} rows, ${(bytes / MB).toFixed(1)} MB of JSON; peak growth during the stream: ` +
        `RSS ${rssGrowth.toFixed(1)} MB, heap ${heapGrowth.toFixed(1)} MB, live heap after GC ` +
        `${liveGrowth.toFixed(1)} MB; /health answered ${healthAnswers} times`
    )
    expect(received).toBe(ROWS)
    expect(outOfOrder).toBe(0)
    // The body is 42 MB of JSON here. A buffered response holds all of it as a string, then as a Buffer,
    // and before that 200,000 rows as pg gave them, decoded and encoded (a few hundred bytes each): well
    // over 150 MB alive at once, growing with the list. Streamed, only two pages (500 rows each) and the
    // socket's buffers are alive: a few MB, whatever the number of rows. The bounds leave room for the
    // reader in this same process (its network chunks and parsed items) and for the young generation.
    expect(liveGrowth).toBeLessThan(30)
    expect(heapGrowth).toBeLessThan(100)
    expect(rssGrowth).toBeLessThan(100)
    // Other requests share the event loop with the stream and keep being answered.
    expect(healthAnswers).toBeGreaterThan(10)
  }, 300_000) // 49 s alone; over 120 s beside the suite's other fork on a busy 2-core machine
})

describe("other streamed lists", () => {
  it("customers across several pages, names outside ASCII: the bytes of the buffered array", async () => {
    const other = await signup(api, "Loja Acentuada")
    const names = ["João Conceição", "Zoë Ångström", "Ana Müller"]
    // 620 customers: the first page (100), a full page (500) and a short one.
    await server.db.query(
      `insert into customers (id, account_id, name, email, document, phone, created_at)
       select gen_random_uuid(), $1, ($2::text[])[1 + i % 3], 'c' || i || '@example.com', lpad(i::text, 11, '0'),
              '(11) 91234-5678', timestamptz '2026-01-01' + (i / 2) * interval '1 microsecond'
       from generate_series(1, 620) i`,
      [other.accountId, names]
    )
    const created = await api.post("/api/customers", customerBody({ name: "Último Cliente" }), { key: other.key })
    expect(created.status).toBe(201)
    const reply = await api.get("/api/customers", { key: other.key })
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toBe("application/json")
    expect(reply.body).toHaveLength(621)
    expect(reply.text).toBe(JSON.stringify(reply.body))
    expect(new Set(reply.body.map((c: { id: string }) => c.id)).size).toBe(621)
    expect(reply.body[0].name).toBe("Último Cliente") // newest first (docs/api.md "Lists")
    expect(reply.body.slice(1).map((c: { name: string }) => c.name)).toContain("Zoë Ångström")
  })
  it("webhook deliveries across several pages: newest first, ties by id, each once, filters kept", async () => {
    const other = await signup(api, "Loja Entregas")
    const eventId = (
      await server.db.query<{ id: string }>(
        "insert into events (id, account_id, type) values (gen_random_uuid(), $1, 'transaction.paid') returning id",
        [other.accountId]
      )
    ).rows[0]!.id
    // 1,250 deliveries, three per microsecond: pages of 100 and 500 end inside groups of equal timestamps.
    await server.db.query(
      `insert into webhook_deliveries (id, account_id, event_id, event, url, status, created_at)
       select gen_random_uuid(), $1, $2, 'transaction.paid', 'https://example.com/hook',
              case when i % 5 = 0 then 'FAILED' else 'SUCCESS' end,
              timestamptz '2026-01-01' + (i / 3) * interval '1 microsecond'
       from generate_series(1, 1250) i`,
      [other.accountId, eventId]
    )
    const expected = async (status?: string) =>
      (
        await server.db.query<{ id: string }>(
          `select id::text as id from webhook_deliveries where account_id = $1 and ($2::text is null or status = $2)
           order by created_at desc, id desc`,
          [other.accountId, status ?? null]
        )
      ).rows.map((row) => row.id)
    const all = await api.get("/api/webhooks/deliveries", { key: other.key })
    expect(all.status).toBe(200)
    expect(all.text).toBe(JSON.stringify(all.body))
    expect(all.body.deliveries.map((d: { deliveryId: string }) => d.deliveryId)).toEqual(await expected())
    const failed = await api.get("/api/webhooks/deliveries?status=FAILED", { key: other.key })
    expect(failed.body.deliveries).toHaveLength(250)
    expect(failed.body.deliveries.map((d: { deliveryId: string }) => d.deliveryId)).toEqual(await expected("FAILED"))
  })
})

describe("failures of a streamed list", () => {
  // A row the list's schema refuses: a status outside the lifecycle's words, which only a broken
  // database could hold (this test file's database drops the check to make one).
  beforeAll(async () => {
    await server.db.query("alter table transactions drop constraint transactions_status_check")
  })

  it("a row that does not decode on the first page: the normal 500 envelope", async () => {
    const other = await signup(api, "Loja Quebrada")
    const { order } = await customerAndOrder(api, other.key, 5000)
    await server.db.query(
      `insert into transactions (id, account_id, order_id, method, amount, status, details)
       values (gen_random_uuid(), $1, $2, 'PIX', 5000, 'BROKEN', '{}')`,
      [other.accountId, order.id]
    )
    expectError(await api.get("/api/transactions", { key: other.key }), 500, "internal_error")
  })

  it("a row that does not decode after the first page: the body is aborted, not closed as valid JSON", async () => {
    const other = await signup(api, "Loja Quebrada Depois")
    const previous = orderId
    orderId = (await customerAndOrder(api, other.key, 5000)).order.id
    await seed(other.accountId, 1_500)
    await server.db.query(
      `insert into transactions (id, account_id, order_id, method, amount, status, details, created_at)
       values (gen_random_uuid(), $1, $2, 'PIX', 5000, 'BROKEN', '{}', '2000-01-01')`,
      [other.accountId, orderId]
    )
    orderId = previous
    const response = await fetch(`${server.baseUrl}/api/transactions`, { headers: { "x-api-key": other.key } })
    expect(response.status).toBe(200)
    await expect(response.text()).rejects.toThrow()
  })
})
