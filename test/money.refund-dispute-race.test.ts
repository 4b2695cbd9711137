import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_SETTINGS } from "../src/domain/antifraud.ts"
import { parseFee } from "../src/domain/ledger.ts"
import { client, type Client, type Reply, signup } from "./support/http.ts"
import { CARDS, cardBody, freshCpf, newOrder, PROCESS, REFUND, v1Card } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 19 item 1: a refund racing the opening of a chargeback (docs/money.md "Refunds and disputes").
 * Hundreds of interleavings through the real stack — both interfaces' refund endpoints, partial and
 * full refunds, bursts of small ones, the dispute opened by the sandbox endpoint and by the dispute
 * test card's own job — and after each, the HTTP answers, the transaction's columns and status, the
 * refund rows, the ledger's postings, the dispute's holds and the events must all tell one story, to
 * the centavo. Every expected amount is computed here from CONTRACT-v1 §7's rules.
 */

let server: TestServer
let api: Client
const keys: Array<string> = []

const V1 = "/public/v1"
const TOTAL = 20_000
// CONTRACT-v1 §7: card fee 3.99 %, rounded half up; a refund returns round_half_up(fee · refunded / total).
const FEE = Math.floor((TOTAL * 399 + 5_000) / 10_000)
const feeReturned = (refunded: number) => Math.floor((2 * FEE * refunded + TOTAL) / (2 * TOTAL))
const DISPUTE_CARD = "4000000000000259"
const DISPUTE_DELAY_MS = 1_500

beforeAll(async () => {
  server = await startTestServer({
    rateLimitPerMinute: 1_000_000,
    workerPollIntervalMs: 20,
    // Hundreds of sales on one card: the velocity rules must not send them to review.
    antifraud: { ...DEFAULT_SETTINGS, reviewAt: 101, rejectAt: 101 },
    money: {
      fees: { CARD: parseFee("3.99%")!, PIX: parseFee("0.99%")!, BOLETO: parseFee("349")! },
      schedule: { pixDays: 0, billetDays: 1, cardDays: 30, reserveDays: 30, reserve: { a: 0n, b: 100n } },
      withdrawalDelaySeconds: 5,
      disputeDelaySeconds: DISPUTE_DELAY_MS / 1000
    }
  })
  api = client(server.baseUrl)
  for (let i = 0; i < 4; i++) keys.push((await signup(api)).key)
}, 60_000)
afterAll(async () => {
  await server?.close()
})

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

type Interface = "v1" | "v2"

const customer = () => ({ name: "Maria Silva", email: "maria@example.com", document: freshCpf(), ip: "203.0.113.7" })

/** A captured card sale of TOTAL through `iface`; its id (the v1 hash is the same uuid). */
const sale = async (key: string, iface: Interface, pan: string = CARDS.visa): Promise<string> => {
  if (iface === "v1") {
    const created = await api.post(
      `${V1}/transactions`,
      {
        method: "credit_card",
        amount: TOTAL,
        installments: 1,
        customer: customer(),
        card: v1Card(pan)
      },
      { token: key }
    )
    expect(created.status, created.text).toBe(201)
    expect(created.body.data.status).toBe("paid")
    return created.body.data.hash as string
  }
  const { orderId } = await newOrder(api, key, TOTAL)
  const reply = await api.post(PROCESS, cardBody(orderId, TOTAL, pan), { key })
  expect(reply.status, reply.text).toBe(201)
  expect(reply.body.status).toBe("CAPTURED")
  return reply.body.transactionId as string
}

/** A refund through `iface`; `amount` undefined refunds what is left. */
const refund = (key: string, iface: Interface, id: string, amount?: number) =>
  iface === "v1"
    ? api.post(`${V1}/transactions/${id}/refund`, amount === undefined ? {} : { amount }, { token: key })
    : api.post(REFUND, amount === undefined ? { transactionId: id } : { transactionId: id, amount }, { key })

const chargeback = (key: string, id: string, stage: "open" | "won") =>
  api.post(`/api/sandbox/transactions/${id}/chargeback`, { stage }, { key })

interface Asked {
  readonly amount: number | undefined
  readonly reply: Reply
}

interface Round {
  readonly name: string
  readonly key: string
  readonly iface: Interface
  readonly id: string
  readonly refunds: ReadonlyArray<Asked>
  /** The sandbox endpoint's answer; null when the dispute card's job opened (or tried to open) it. */
  readonly dispute: Reply | null
}

/** What the database says about one transaction, read once the round's requests have all answered. */
const facts = async (id: string) => {
  const q = async <T>(text: string) => (await server.db.query(text, [id])).rows as Array<T>
  const [[t], rows, [money], [held], events] = await Promise.all([
    q<{ status: string; refunded: number; reserved: number }>(
      `select status, refunded_amount::int as refunded, refund_reserved::int as reserved
       from transactions where id = $1`
    ),
    q<{ status: string; amount: number }>(
      "select status, amount::int as amount from refunds where transaction_id = $1 order by created_at, id"
    ),
    q<{ systemRefund: number; merchantFee: number; merchantTotal: number; merchantReserved: number }>(
      `select coalesce(sum(amount) filter (where party = 'system' and type = 'refund'), 0)::int as "systemRefund",
              coalesce(sum(amount) filter (where party = 'merchant' and type = 'fee'), 0)::int as "merchantFee",
              coalesce(sum(amount) filter (where party = 'merchant'), 0)::int as "merchantTotal",
              coalesce(sum(amount) filter (where party = 'merchant' and book = 'reserved'), 0)::int
                as "merchantReserved"
       from ledger_postings where transaction_id = $1`
    ),
    q<{ amount: number }>(
      `select coalesce(sum(amount), 0)::int as amount from ledger_holds
       where transaction_id = $1 and released_at is null and tag like 'dispute:%'`
    ),
    q<{ kind: string; refunded: number; status: string }>(
      `select kind, (snapshot->>'refundedAmount')::int as refunded, snapshot->>'status' as status from events
       where transaction_id = $1 order by created_at, id`
    )
  ])
  return { t: t!, rows, money: money!, held: held!.amount, events }
}

/**
 * Whether the dispute opened while one of the round's refunds was at the acquirer: that refund was
 * recorded under the dispute's status (or, before issue 19's fix, answered 409 `invalid_state`).
 */
const inFlightWhenDisputed = async (round: Round) =>
  round.refunds.some((r) => r.reply.text.includes("invalid_state")) ||
  (await facts(round.id)).events.some((e) => e.kind.startsWith("refund_") && e.status === "PRE_CHARGEBACK")

const isDisputed = (status: string) => status === "PRE_CHARGEBACK"

/**
 * Every agreement of issue 19, as a list of what disagrees (empty when the round's story is one).
 * The expected figures come from the answers the client got and CONTRACT-v1 §7's rules.
 */
const audit = async (round: Round): Promise<Array<string>> => {
  const { events, held, money, rows, t } = await facts(round.id)
  const bad: Array<string> = []
  const say = (what: string, expected: unknown, actual: unknown) => {
    if (JSON.stringify(expected) !== JSON.stringify(actual))
      bad.push(
        `${round.name} ${round.id}: ${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`
      )
  }
  const ok = round.refunds.filter((r) => r.reply.status === 200)
  for (const r of round.refunds) {
    if (r.reply.status === 200) continue
    // A refund loses cleanly: refused before anything was taken, never for a state it caused itself.
    const clean = [409, 400].includes(r.reply.status) && !r.reply.text.includes("invalid_state")
    if (!clean) bad.push(`${round.name} ${round.id}: refund answered ${r.reply.status} ${r.reply.text}`)
  }
  const refunded = t.refunded
  // The answers: each 200 is one SUCCEEDED row, every other answer left no row.
  say("refund rows", ok.length, rows.length)
  say("succeeded rows", ok.length, rows.filter((r) => r.status === "SUCCEEDED").length)
  say(
    "rows' sum vs refunded_amount",
    refunded,
    rows.reduce((s, r) => s + r.amount, 0)
  )
  if (ok.every((r) => r.amount !== undefined))
    say(
      "answered amounts vs refunded_amount",
      refunded,
      ok.reduce((s, r) => s + r.amount!, 0)
    )
  say("refund_reserved", 0, t.reserved)
  // The ledger: the money that left, the fee returned in proportion, what the merchant keeps.
  say("refund postings", refunded, money.systemRefund)
  say("fee returned", feeReturned(refunded), money.merchantFee + FEE)
  say("merchant's money on the sale", TOTAL - FEE - refunded + feeReturned(refunded), money.merchantTotal)
  // The dispute: open (the endpoint said 200, or the card's job opened it), it holds what was not refunded.
  const disputed = round.dispute === null ? isDisputed(t.status) : round.dispute.status === 200
  if (round.dispute !== null && round.dispute.status !== 200) {
    // Only a sale already refunded in full cannot be disputed.
    say("dispute refused", [409, "REFUNDED", TOTAL], [round.dispute.status, t.status, refunded])
  }
  say("dispute holds", disputed ? TOTAL - refunded : 0, held)
  say("merchant's reserved", disputed ? TOTAL - refunded : 0, money.merchantReserved)
  const status = disputed
    ? "PRE_CHARGEBACK"
    : refunded === TOTAL
      ? "REFUNDED"
      : refunded > 0
        ? "PARTIAL_REFUND"
        : round.iface === "v1"
          ? t.status === "PAID"
            ? "PAID"
            : "CAPTURED"
          : "CAPTURED"
  say("status", status, t.status)
  // The events: one per refund answered 200, the last one carrying the final refunded amount, one opening.
  const refundEvents = events.filter((e) => e.kind === "refund_partial" || e.kind === "refund_full")
  say("refund events", ok.length, refundEvents.length)
  // Concurrent refunds commit in lock order, not in the order of their transactions' clocks: the highest.
  say("latest refund event's refundedAmount", refunded, Math.max(0, ...refundEvents.map((e) => e.refunded)))
  say("chargeback_open events", disputed ? 1 : 0, events.filter((e) => e.kind === "chargeback_open").length)
  return bad
}

/**
 * After a won dispute the rest is refundable, exactly: the transaction returns to the status its refunds
 * give it, and a refund without amount takes precisely what is left.
 */
const winThenRefundRest = async (round: Round): Promise<Array<string>> => {
  const { rows: earlier, t: before } = await facts(round.id)
  const beforeRows = earlier.length
  const bad: Array<string> = []
  const say = (what: string, expected: unknown, actual: unknown) => {
    if (JSON.stringify(expected) !== JSON.stringify(actual))
      bad.push(
        `${round.name} ${round.id}: ${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`
      )
  }
  const won = await chargeback(round.key, round.id, "won")
  say("won answer", 200, won.status)
  const afterWon = (await facts(round.id)).t.status
  say(
    "status after won",
    before.refunded === TOTAL ? "REFUNDED" : before.refunded > 0 ? "PARTIAL_REFUND" : "PAID",
    afterWon
  )
  const rest = await refund(round.key, round.iface, round.id)
  if (before.refunded === TOTAL) say("nothing left to refund", 409, rest.status)
  else say("rest refunded", 200, rest.status)
  const { events, held, money, rows, t } = await facts(round.id)
  say("refunded after the rest", TOTAL, t.refunded)
  say("status after the rest", "REFUNDED", t.status)
  say(
    "the rest's row",
    before.refunded === TOTAL ? [] : [TOTAL - before.refunded],
    rows.slice(beforeRows).map((r) => r.amount)
  )
  say(
    "rows' sum",
    TOTAL,
    rows.reduce((s, r) => s + r.amount, 0)
  )
  say("refund postings after the rest", TOTAL, money.systemRefund)
  say("fee returned in full", FEE, money.merchantFee + FEE)
  say("the merchant as if the sale never happened", 0, money.merchantTotal)
  say("no dispute hold left", 0, held)
  say("reserved back to zero", 0, money.merchantReserved)
  say("refund_full event", 1, events.filter((e) => e.kind === "refund_full").length)
  return bad
}

// A small deterministic generator: the same interleavings on every run.
let seed = 19
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}
const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(random() * xs.length)]!

type Plan =
  | { readonly kind: "one"; readonly amount: number | undefined; readonly refundAt: number; readonly disputeAt: number }
  | {
      readonly kind: "burst"
      readonly amounts: ReadonlyArray<number>
      readonly gap: number
      readonly disputeAt: number
    }

const plan = (): Plan => {
  // The dispute lands from a little before the refund to a little after it: the refund's two steps
  // (take the money, ask the acquirer, record its answer) are a few milliseconds apart.
  const disputeAt = Math.floor(random() * 12)
  if (random() < 0.7) {
    const amount = pick([5_000, 5_000, undefined, TOTAL, 1 + Math.floor(random() * (TOTAL - 1))])
    return { kind: "one", amount, refundAt: Math.floor(random() * 6), disputeAt }
  }
  const n = 2 + Math.floor(random() * 4)
  const amounts = Array.from({ length: n }, () => pick([100, 100, 1_000, 4_000]))
  return { kind: "burst", amounts, gap: Math.floor(random() * 4), disputeAt }
}

const race = async (name: string, key: string, iface: Interface): Promise<Round> => {
  const id = await sale(key, iface)
  const p = plan()
  const refunds: Array<Promise<Asked>> = []
  const asks =
    p.kind === "one"
      ? [{ amount: p.amount, at: p.refundAt }]
      : p.amounts.map((amount, i) => ({ amount: amount as number | undefined, at: i * p.gap }))
  for (const a of asks)
    refunds.push(sleep(a.at).then(async () => ({ amount: a.amount, reply: await refund(key, iface, id, a.amount) })))
  const dispute = sleep(p.disputeAt).then(() => chargeback(key, id, "open"))
  return {
    name: `${name} ${iface} ${JSON.stringify(p)}`,
    key,
    iface,
    id,
    refunds: await Promise.all(refunds),
    dispute: await dispute
  }
}

/** The dispute card opens its own dispute DISPUTE_DELAY_MS after capture: 100-centavo refunds all around it. */
const cardRace = async (name: string, key: string, iface: Interface): Promise<Round> => {
  const id = await sale(key, iface, DISPUTE_CARD)
  const start = Date.now()
  let openedAt: number | null = null
  const watch = (async () => {
    while (openedAt === null && Date.now() - start < DISPUTE_DELAY_MS + 5_000) {
      const { rows } = await server.db.query("select status from transactions where id = $1", [id])
      if (rows[0].status === "PRE_CHARGEBACK") openedAt = Date.now()
      else await sleep(10)
    }
  })()
  // Refunds of 100 centavos, six in flight at any moment, from the capture until just after the job
  // opened the dispute (never the whole amount: at most 150 of them).
  const asked: Array<Asked> = []
  const more = () => asked.length < 150 && (openedAt === null || Date.now() - openedAt < 50)
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (more()) asked.push({ amount: 100, reply: await refund(key, iface, id, 100) })
    })
  )
  await watch
  return { name: `${name} ${iface} dispute card`, key, iface, id, refunds: asked, dispute: null }
}

const ROUNDS = 200
const PARALLEL = 8

describe("a refund racing the opening of a dispute (issue 19)", () => {
  it(`${ROUNDS} interleavings of refunds and the sandbox chargeback, both interfaces: all records agree`, async () => {
    const disagreements: Array<string> = []
    const disputed: Array<Round> = []
    let hits = 0
    let wrong = 0
    for (let start = 0; start < ROUNDS; start += PARALLEL) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(PARALLEL, ROUNDS - start) }, (_, i) =>
          race(`#${start + i}`, keys[i % keys.length]!, (start + i) % 2 === 0 ? "v1" : "v2")
        )
      )
      for (const round of batch) {
        const found = await audit(round)
        disagreements.push(...found)
        if (found.length > 0) wrong += 1
        if (round.dispute?.status === 200) disputed.push(round)
        // The interleaving the issue found: the dispute opened while a refund was at the acquirer.
        if (round.dispute?.status === 200 && (await inFlightWhenDisputed(round))) hits += 1
      }
    }
    // After the dispute is won, "refund the rest" refunds exactly the remainder.
    for (const round of disputed.slice(0, 30)) disagreements.push(...(await winThenRefundRest(round)))
    console.info(
      `refund/dispute races: ${ROUNDS} run, ${disputed.length} disputed, ` +
        `${hits} opened while a refund was in flight, ${wrong} rounds disagreeing, ` +
        `${disagreements.length} disagreements`
    )
    expect(disagreements).toEqual([])
  }, 300_000)

  it("the dispute test card opens its dispute in the middle of 100-centavo refunds: every record agrees", async () => {
    const disagreements: Array<string> = []
    const rounds = await Promise.all(
      (["v1", "v2", "v1", "v2"] as const).map((iface, i) => cardRace(`card#${i}`, keys[i]!, iface))
    )
    let hits = 0
    let wrong = 0
    for (const round of rounds) {
      const found = await audit(round)
      disagreements.push(...found)
      if (found.length > 0) wrong += 1
      if (await inFlightWhenDisputed(round)) hits += 1
    }
    for (const round of rounds)
      if ((await facts(round.id)).t.status === "PRE_CHARGEBACK") disagreements.push(...(await winThenRefundRest(round)))
    console.info(
      `dispute card races: ${rounds.length} run, ${rounds.reduce((s, r) => s + r.refunds.length, 0)} refunds, ` +
        `${hits} opened while a refund was in flight, ${wrong} rounds disagreeing, ` +
        `${disagreements.length} disagreements`
    )
    expect(disagreements).toEqual([])
  }, 120_000)
})
