import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, type Client, signup } from "./support/http.ts"
import { CARDS, eventually, freshCpf } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Day filters over HTTP on the São Paulo days of the years Brazil kept daylight saving (until 2019). A day
 * that began at 00:00 −03:00 and ended at 24:00 −02:00 (2018-11-04: 23 hours, its midnight skipped: clocks
 * went from 23:59:59 −03:00 of the 3rd to 01:00 −02:00), or the reverse (2019-02-16: 25 hours, 23:00–24:00
 * twice), is still one São Paulo calendar day, from its first instant to the next day's
 * (src/domain/time.ts, docs/calendar.md). The v1 filters (CONTRACT-v1 §1: "dates YYYY-MM-DD (São Paulo,
 * inclusive)"; §7 financials) and the dashboard's periods (docs/dashboard.md) take days so. Rows are made
 * through the API, then backdated; each test has its own account.
 */
let server: TestServer
let api: Client
const V1 = "/public/v1"
const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), phone: "11912345678" })

const v1Pix = async (key: string) => {
  const reply = await api.post(
    `${V1}/transactions`,
    { method: "pix", amount: 1_000, customer: customer() },
    { token: key }
  )
  expect(reply.status, reply.text).toBe(201)
  return reply.body.data.hash as string
}

const v1Card = async (key: string) => {
  const reply = await api.post(
    `${V1}/transactions`,
    {
      method: "credit_card",
      amount: 2_000,
      customer: customer(),
      card: {
        number: CARDS.visa,
        holder_name: "MARIA SILVA",
        exp_month: "12",
        exp_year: String(new Date().getUTCFullYear() + 3),
        cvv: "123"
      }
    },
    { token: key }
  )
  expect(reply.status, reply.text).toBe(201)
  return reply.body.data.hash as string
}

const backdate = (id: string, at: string) =>
  server.db.query(`update transactions set created_at = $2::timestamptz where id = $1`, [id, at])

/** The v1 list of one São Paulo day: the created_at of every row. */
const listedOn = async (key: string, day: string) => {
  const reply = await api.get(`${V1}/transactions?created_from=${day}&created_to=${day}`, { token: key })
  expect(reply.status, reply.text).toBe(200)
  const createdAt = reply.body.data.map((t: { created_at: string }) => t.created_at) as Array<string>
  expect(reply.body.pagination.total, reply.text).toBe(createdAt.length)
  return createdAt
}

beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
  api = client(server.baseUrl)
}, 120_000)
afterAll(async () => {
  await server?.close()
})

describe("v1 created_from / created_to take whole São Paulo days on DST change days", () => {
  it("2018-11-04 (23 hours) starts at 01:00 −02:00: a transaction of 23:30 of the 3rd is on the 3rd only", async () => {
    const { key } = await signup(api)
    const id = await v1Pix(key)
    // 23:30 −03:00 of the 3rd is 02:30Z; the 4th began at 03:00Z (01:00 −02:00).
    await backdate(id, "2018-11-03T23:30:00-03:00")
    expect(await listedOn(key, "2018-11-04")).toEqual([])
    expect(await listedOn(key, "2018-11-03")).toEqual(["2018-11-03T23:30:00-03:00"])
  }, 60_000)

  it("2019-02-16 (25 hours) ends at 24:00 −03:00: its repeated 23:00–24:00 hour is on the 16th", async () => {
    const { key } = await signup(api)
    const id = await v1Pix(key)
    // Clocks went back from 00:00 −02:00 of the 17th to 23:00 −03:00 of the 16th; the 17th began at 03:00Z.
    await backdate(id, "2019-02-16T23:30:00-03:00")
    expect(await listedOn(key, "2019-02-16")).toEqual(["2019-02-16T23:30:00-03:00"])
    expect(await listedOn(key, "2019-02-17")).toEqual([])
  }, 60_000)
})

describe("v1 financials start_at / end_at take whole São Paulo days on DST change days", () => {
  it("postings made at 23:30 of 2018-11-03 are listed for the 3rd and not for the 4th", async () => {
    const { key } = await signup(api)
    const id = await v1Card(key)
    await eventually(async () => {
      const found = await server.db.query(`select 1 from ledger_postings where transaction_id = $1 limit 1`, [id])
      return found.rowCount === 0 ? undefined : true
    })
    // The ledger is append-only by trigger: the replica role lets the test backdate its postings.
    const c = await server.db.connect()
    try {
      await c.query("set session_replication_role = replica")
      await c.query(`update ledger_postings set created_at = '2018-11-03T23:30:00-03:00' where transaction_id = $1`, [
        id
      ])
      await c.query("set session_replication_role = origin")
    } finally {
      c.release()
    }
    const day3 = await api.get(`${V1}/financials?start_at=2018-11-03&end_at=2018-11-03`, { token: key })
    const day4 = await api.get(`${V1}/financials?start_at=2018-11-04&end_at=2018-11-04`, { token: key })
    expect(day3.status, day3.text).toBe(200)
    expect(day4.status, day4.text).toBe(200)
    expect(day3.body.data.length, day3.text).toBeGreaterThan(0)
    for (const p of day3.body.data as Array<{ created_at: string }>)
      expect(p.created_at).toBe("2018-11-03T23:30:00-03:00")
    expect(day4.body.data.map((p: { created_at: string }) => p.created_at)).toEqual([])
  }, 60_000)
})

describe("dashboard periods take whole São Paulo days in the DST years", () => {
  it("the summary of 2018-12-01 (a day at −02:00) counts its 00:30 sale and not the next day's", async () => {
    const { key, token } = await signup(api)
    // 2018-12-01 ran from 00:00 −02:00 (02:00Z) to 24:00 −02:00 (2018-12-02T02:00Z).
    await backdate(await v1Pix(key), "2018-12-01T00:30:00-02:00")
    await backdate(await v1Pix(key), "2018-12-02T00:30:00-02:00")
    const summary = await api.get(`/api/dashboard/summary?from=2018-12-01&to=2018-12-01`, { token })
    expect(summary.status, summary.text).toBe(200)
    const days = (summary.body.byDay as Array<{ day: string; count: number }>).map((d) => [d.day, d.count])
    expect(days).toEqual([["2018-12-01", 1]])
  }, 60_000)

  it("the summary of 2019-02-16 (25 hours) counts a sale of its repeated 23:00–24:00 hour", async () => {
    const { key, token } = await signup(api)
    await backdate(await v1Pix(key), "2019-02-16T23:30:00-03:00")
    const summary = await api.get(`/api/dashboard/summary?from=2019-02-16&to=2019-02-16`, { token })
    expect(summary.status, summary.text).toBe(200)
    const days = (summary.body.byDay as Array<{ day: string; count: number }>).map((d) => [d.day, d.count])
    expect(days).toEqual([["2019-02-16", 1]])
  }, 60_000)
})
