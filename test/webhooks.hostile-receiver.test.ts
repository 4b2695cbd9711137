import { createServer } from "node:http"
import { Deferred, Effect, Fiber, Schedule } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { batched } from "../src/adapters/postgres/batched.ts"
import {
  chargePix,
  deliveries,
  jobs,
  type Merchant,
  newMerchant,
  registerWebhook,
  until
} from "./support/payments-fixtures.ts"
import { startReceiver } from "./support/receiver.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * A receiver's answer is untrusted input kept on the delivery record (docs/webhooks.md "Deliveries": the
 * first 4 KB of the body, whatever the status). Whatever it holds, each attempt is recorded once and the
 * delivery follows WEBHOOK_RETRY_SCHEDULE (CONTRACT §8), never graphile-worker's own retries of a failed
 * job: a NUL byte, which PostgreSQL's text cannot hold, is kept as U+FFFD; a record the database still
 * refuses is written without the answer; and neither touches the records of other merchants' deliveries
 * written in the same statement.
 */
let server: TestServer
const closers: Array<() => Promise<void>> = []
beforeAll(async () => {
  server = await startTestServer({
    webhookAllowPrivateUrls: true,
    webhookRetrySchedule: [1, 1, 1],
    // Answers are held until every delivery has arrived (below): a busy machine must not time them out.
    webhookTimeoutMs: 20_000,
    workerConcurrency: 24,
    rateLimitPerMinute: 100_000
  })
})
afterAll(async () => {
  await Promise.all(closers.map((close) => close()))
  await server?.close()
})

interface Detail {
  readonly status: string
  readonly attempts: number
  readonly response: { readonly status: number | null; readonly body: string | null } | null
  readonly error: string | null
}
const detail = async (m: Merchant, deliveryId: string): Promise<Detail> => {
  const reply = await m.api.get(`/api/webhooks/deliveries/${deliveryId}`, { key: m.key })
  if (reply.status !== 200) throw new Error(`delivery: ${reply.status} ${reply.text}`)
  return reply.body
}

/** The merchant's `count` deliveries once all are finished, and their jobs gone (nothing can send them again). */
const finished = async (m: Merchant, count: number) => {
  const done = await until(
    `${count} deliveries finished`,
    async () => {
      const listed = await deliveries(m)
      return listed.length === count && listed.every((d) => d.status !== "PENDING") ? listed : undefined
    },
    25_000
  )
  const ids = done.map((d) => d.deliveryId)
  await until(
    "their jobs gone",
    async () =>
      (await jobs(server.db, "task_identifier = 'deliver_webhook' and payload->>'deliveryId' = any($1)", [ids]))
        .length === 0 || undefined,
    10_000
  )
  return Promise.all(done.map((d) => detail(m, d.deliveryId)))
}

/**
 * One receiver per path, each answering `answers[path]`, that holds every answer until `expected` requests
 * have arrived and then sends them all at once: the attempts' records reach the database together and share
 * the delivery repository's batched statements. `sent(path)` has the webhook-id of each request received.
 */
const heldReceivers = async (expected: number, answers: Record<string, { status: number; body: string }>) => {
  const received: Array<{ path: string; id: string }> = []
  const held: Array<() => void> = []
  const receiver = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      const path = req.url ?? ""
      received.push({ path, id: String(req.headers["webhook-id"]) })
      const { status, body } = answers[path] ?? { status: 404, body: "" }
      held.push(() => res.writeHead(status, { "content-type": "text/plain" }).end(body))
      if (received.length >= expected) for (const answer of held.splice(0)) answer()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const { port } = receiver.address() as { port: number }
  closers.push(
    () =>
      new Promise((resolve) => {
        receiver.closeAllConnections()
        receiver.close(() => resolve())
      })
  )
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    sent: (path: string) => received.filter((r) => r.path === path).map((r) => r.id)
  }
}

/** Two merchants' deliveries answered at the same instant: `others` answered "ok", `hostile` answered `body`. */
const deliveredTogether = async (body: string) => {
  const receivers = await heldReceivers(20, { "/ok": { status: 200, body: "ok" }, "/hostile": { status: 200, body } })
  const others = await newMerchant(server.baseUrl)
  const hostile = await newMerchant(server.baseUrl)
  await registerWebhook(others, receivers.url("/ok"))
  await registerWebhook(hostile, receivers.url("/hostile"))
  await Promise.all([
    ...Array.from({ length: 12 }, () => chargePix(others)),
    ...Array.from({ length: 8 }, () => chargePix(hostile))
  ])
  const [otherRecords, hostileRecords] = await Promise.all([finished(others, 12), finished(hostile, 8)])
  return { receivers, otherRecords, hostileRecords }
}

/** What every delivery of a merchant looks like, and how many times each was sent. */
const summary = (records: ReadonlyArray<Detail>, sent: ReadonlyArray<string>) => ({
  records: [
    ...new Set(records.map((d) => JSON.stringify([d.status, d.attempts, d.response?.status, d.response?.body])))
  ],
  sends: sent.length,
  distinct: new Set(sent).size
})

/** A receiver answering `status` with `body` to every attempt; the merchant's one delivery once FAILED. */
const refusedEveryTime = async (status: number, body: string) => {
  const receiver = await startReceiver()
  closers.push(receiver.close)
  receiver.respond({ status, body })
  const merchant = await newMerchant(server.baseUrl)
  await registerWebhook(merchant, receiver.url)
  await chargePix(merchant)
  const [record] = await finished(merchant, 1)
  return { record, sends: receiver.requests.length }
}

describe("a receiver whose answer holds a NUL byte", () => {
  it("a 200 is recorded SUCCESS once, U+FFFD for the NUL, as are the deliveries sharing its statement", async () => {
    const { receivers, otherRecords, hostileRecords } = await deliveredTogether("ok\u0000")
    expect(summary(otherRecords, receivers.sent("/ok"))).toEqual({
      records: [JSON.stringify(["SUCCESS", 1, 200, "ok"])],
      sends: 12,
      distinct: 12
    })
    expect(summary(hostileRecords, receivers.sent("/hostile"))).toEqual({
      records: [JSON.stringify(["SUCCESS", 1, 200, "ok\uFFFD"])],
      sends: 8,
      distinct: 8
    })
  }, 60_000)

  it("a 500 is a failed attempt with U+FFFD for the NUL, retried on the schedule, then FAILED", async () => {
    const { record, sends } = await refusedEveryTime(500, "boom\u0000")
    expect({ record, sends }).toMatchObject({
      record: { status: "FAILED", attempts: 4, response: { status: 500, body: "boom\uFFFD" }, error: "HTTP 500" },
      sends: 4
    })
  }, 60_000)
})

describe("an attempt whose record the database refuses", () => {
  // Fault injection: a row whose response body holds the marker is refused, as any value the database
  // cannot store would be.
  const MARKER = "refused by the database"
  beforeAll(async () => {
    await server.db.query(`
      create or replace function test_refuse_answer() returns trigger language plpgsql as $$
      begin
        if new.response_body like '%${MARKER}%' then
          raise exception 'injected: response body refused' using errcode = 'character_not_in_repertoire';
        end if;
        return new;
      end $$;
      create trigger test_refuse_answer before update on webhook_deliveries
        for each row execute function test_refuse_answer();`)
  })
  afterAll(async () => {
    await server.db.query("drop trigger if exists test_refuse_answer on webhook_deliveries")
  })

  it("a 200 is recorded SUCCESS once without its answer; deliveries sharing its statement keep theirs", async () => {
    const { receivers, otherRecords, hostileRecords } = await deliveredTogether(MARKER)
    expect(summary(otherRecords, receivers.sent("/ok"))).toEqual({
      records: [JSON.stringify(["SUCCESS", 1, 200, "ok"])],
      sends: 12,
      distinct: 12
    })
    expect(summary(hostileRecords, receivers.sent("/hostile"))).toEqual({
      records: [JSON.stringify(["SUCCESS", 1, 200, null])],
      sends: 8,
      distinct: 8
    })
  }, 60_000)

  it("a 500 is a failed attempt recorded without its answer, retried on the schedule, then FAILED", async () => {
    const { record, sends } = await refusedEveryTime(500, MARKER)
    expect({ record, sends }).toMatchObject({
      record: { status: "FAILED", attempts: 4, response: { status: 500, body: null }, error: "HTTP 500" },
      sends: 4
    })
  }, 60_000)
})

describe("a batched statement that fails", () => {
  it("refused for its data, runs each of its calls again alone: only the call at fault fails", async () => {
    const statements: Array<ReadonlyArray<number>> = []
    const exits = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const open = yield* Deferred.make<void>()
          const write = yield* batched((keys: ReadonlyArray<number>) =>
            Effect.zipRight(
              Effect.sync(() => statements.push(keys)),
              Effect.zipRight(
                Deferred.await(open),
                keys.includes(13)
                  ? Effect.die(Object.assign(new Error("refused"), { code: "22021" }))
                  : Effect.succeed(keys)
              )
            )
          )
          const taken = (n: number) =>
            Effect.repeat(
              Effect.sync(() => statements.length < n),
              {
                while: (waiting) => waiting,
                schedule: Schedule.spaced("1 millis")
              }
            )
          // Both lanes busy with a statement each, so the next three calls go together in one.
          const first = yield* Effect.fork(Effect.exit(write(1)))
          yield* taken(1)
          const second = yield* Effect.fork(Effect.exit(write(2)))
          yield* taken(2)
          const rest = yield* Effect.fork(Effect.forEach([13, 4, 5], (k) => Effect.exit(write(k)), { concurrency: 3 }))
          yield* Effect.sleep("20 millis")
          yield* Deferred.succeed(open, undefined)
          return [yield* Fiber.join(first), yield* Fiber.join(second), ...(yield* Fiber.join(rest))]
        })
      )
    )
    expect(exits.map((exit) => exit._tag)).toEqual(["Success", "Success", "Failure", "Success", "Success"])
    const [one, two, shared, ...alone] = statements
    expect([one, two, [...shared!].sort((a, b) => a - b)]).toEqual([[1], [2], [4, 5, 13]])
    expect(alone).toEqual(shared!.map((key) => [key]))
  })
})
