/**
 * Issue 10 "Lists stream": with 1,000,000 transactions in one account, `GET /api/transactions` streams
 * from the database: first byte < 200 ms, the service's RSS grows < 100 MB, `/health` p99 < 50 ms meanwhile.
 * `benchLists` seeds the rows by SQL and measures one full read of the list over HTTP; `bench/run.ts` calls it.
 */
import { randomUUID } from "node:crypto"
import { readFile } from "node:fs/promises"
import type pg from "pg"
import { encodeCursor } from "../src/http/v1/cursor.ts"

export interface ListsResult {
  /** Items received (objects counted in the body: a v2 Transaction has no nested object). */
  readonly rows: number
  /** From sending the request to the first byte of the body. */
  readonly firstByteMs: number
  /** From sending the request to the end of the body. */
  readonly totalMs: number
  /** Peak VmRSS of the service's process during the stream minus its value before; null without a pid. */
  readonly rssGrowthMb: number | null
  /** `/health` latency while the list streams, one request at a time. */
  readonly healthP99Ms: number
  readonly healthRequests: number
  readonly bodyMb: number
  /**
   * `GET /public/v1/transactions?per_page=100`, median of 5, in ms: page 1, page 1,901 by number (an
   * offset of 190,000) and the same page by `cursor` (keyset), whose time should not grow with the depth.
   */
  readonly v1PageMs: { readonly first: number; readonly deepByNumber: number; readonly deepByCursor: number }
}

const vmRssMb = async (pid: number) => {
  const status = await readFile(`/proc/${pid}/status`, "utf8")
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]
  return kb === undefined ? null : Number(kb) / 1024
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/**
 * Gives the account `rows` PIX transactions by SQL (one customer and order, details of a real charge's
 * size, distinct microsecond timestamps), in batches so that no statement runs for long.
 */
export const seedTransactions = async (db: pg.Pool, accountId: string, rows: number) => {
  const customerId = randomUUID()
  const orderId = randomUUID()
  await db.query(
    // A CPF of its own (11144477735): the account may already have a customer with the usual test CPF.
    `insert into customers (id, account_id, name, email, document, phone)
     values ($1, $2, 'Bench Buyer', 'bench@example.com', '11144477735', '(11) 91234-5678')`,
    [customerId, accountId]
  )
  await db.query(
    `insert into orders (id, account_id, customer_id, amount, status) values ($1, $2, $3, 5000, 'PENDING')`,
    [orderId, accountId, customerId]
  )
  const batch = 100_000
  for (let from = 1; from <= rows; from += batch) {
    await db.query(
      `insert into transactions (id, account_id, order_id, customer_id, method, amount, status, details, created_at)
       select gen_random_uuid(), $1, $2, $3, 'PIX', 1000 + i % 5000, 'PENDING',
              jsonb_build_object('pix', jsonb_build_object(
                'emv', '00020126580014br.gov.bcb.pix0136' || md5(i::text) || repeat('0', 120),
                'txid', md5('t' || i), 'expiresAt', '2026-01-01T01:00:00.000Z', 'qrToken', md5('q' || i))),
              timestamptz '2026-01-01' + i * interval '1 microsecond'
       from generate_series($4::int, $5::int) i`,
      [accountId, orderId, customerId, from, Math.min(rows, from + batch - 1)]
    )
  }
  await db.query("analyze transactions")
}

/**
 * Seeds `options.rows` (default 1,000,000) transactions into `accountId`, then reads `GET /api/transactions`
 * once to the end while a second client asks `/health` one request at a time. The service's RSS is read
 * from `/proc/<pid>/status` every 50 ms when `options.pid` names its process.
 */
export async function benchLists(
  baseUrl: string,
  db: pg.Pool,
  apiKey: string,
  accountId: string,
  options: { readonly pid?: number; readonly rows?: number; readonly seed?: boolean } = {}
): Promise<ListsResult> {
  if (options.seed !== false) await seedTransactions(db, accountId, options.rows ?? 1_000_000)
  const rows = (
    await db.query<{ n: number }>("select count(*)::int as n from transactions where account_id = $1", [accountId])
  ).rows[0]!.n

  const pid = options.pid
  const rssBefore = pid === undefined ? null : await vmRssMb(pid)
  let rssPeak = rssBefore ?? 0
  let sampling = pid !== undefined
  const sampler = (async () => {
    while (sampling && pid !== undefined) {
      rssPeak = Math.max(rssPeak, (await vmRssMb(pid)) ?? 0)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()

  let streaming = true
  const healthMs: Array<number> = []
  const health = (async () => {
    while (streaming) {
      const started = performance.now()
      const reply = await fetch(`${baseUrl}/health`)
      await reply.arrayBuffer()
      if (streaming) healthMs.push(performance.now() - started)
    }
  })()

  const started = performance.now()
  let firstByteMs = -1
  let objects = 0
  let bytes = 0
  try {
    const response = await fetch(`${baseUrl}/api/transactions`, { headers: { "x-api-key": apiKey } })
    if (response.status !== 200) throw new Error(`GET /api/transactions → ${response.status} ${await response.text()}`)
    const reader = response.body!.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (firstByteMs < 0) firstByteMs = performance.now() - started
      bytes += value.byteLength
      for (let i = 0; i < value.length; i++) if (value[i] === 0x7b) objects += 1
    }
  } finally {
    streaming = false
    sampling = false
    await Promise.all([health, sampler])
  }
  const totalMs = performance.now() - started
  if (objects !== rows) throw new Error(`GET /api/transactions gave ${objects} transactions, expected ${rows}`)
  const v1PageMs = await v1Pages(baseUrl, db, apiKey, accountId, Math.min(190_000, rows - 100))
  return {
    rows: objects,
    firstByteMs: Math.round(firstByteMs),
    totalMs: Math.round(totalMs),
    rssGrowthMb: rssBefore === null ? null : Math.round((rssPeak - rssBefore) * 10) / 10,
    healthP99Ms: Math.round(percentile(healthMs, 99) * 10) / 10,
    healthRequests: healthMs.length,
    bodyMb: Math.round((bytes / 1024 / 1024) * 10) / 10,
    v1PageMs
  }
}

/** The v1 list at `depth` rows in, by page number and by cursor (the one the page before would give). */
const v1Pages = async (baseUrl: string, db: pg.Pool, apiKey: string, accountId: string, depth: number) => {
  const page = Math.floor(depth / 100) + 1
  const { rows } = await db.query<{ at: string; id: string }>(
    `select created_at::text as at, id from transactions where account_id = $1
     order by created_at desc, id desc offset $2 limit 1`,
    [accountId, (page - 1) * 100 - 1]
  )
  const timed = async (query: string) => {
    const times: Array<number> = []
    let body = ""
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      const reply = await fetch(`${baseUrl}/public/v1/transactions?${query}`, {
        headers: { authorization: `Bearer ${apiKey}` }
      })
      body = await reply.text()
      if (reply.status !== 200) throw new Error(`v1 list ${query} → ${reply.status} ${body}`)
      times.push(performance.now() - started)
    }
    return {
      ms: Math.round(percentile(times, 50) * 10) / 10,
      hashes: (JSON.parse(body) as { data: Array<{ hash: string }> }).data.map((t) => t.hash)
    }
  }
  const first = await timed("per_page=100&page=1")
  const byNumber = await timed(`per_page=100&page=${page}`)
  const byCursor = await timed(`cursor=${encodeCursor("transactions", { page, perPage: 100, key: rows[0]! })}`)
  if (JSON.stringify(byNumber.hashes) !== JSON.stringify(byCursor.hashes))
    throw new Error(`v1 page ${page} differs by number and by cursor`)
  return { first: first.ms, deepByNumber: byNumber.ms, deepByCursor: byCursor.ms }
}
