import { randomBytes, randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { migratedDatabase } from "../../../test/support/databaseLayer.ts"
import { AccountId, CustomerId, OrderId, TransactionId } from "../../domain/ids.ts"
import { KeyAdmission } from "../../ports/Admission.ts"
import { CustomerRepo } from "../../ports/CustomerRepo.ts"
import { OrderRepo } from "../../ports/OrderRepo.ts"
import { TransactionRepo } from "../../ports/TransactionRepo.ts"
import { CustomerRepoLive } from "./CustomerRepoLive.ts"
import { KeyAdmissionLive } from "./KeyAdmissionLive.ts"
import { OrderRepoLive } from "./OrderRepoLive.ts"
import { takeReadAhead } from "./readAhead.ts"
import { TransactionRepoLive } from "./TransactionRepoLive.ts"

/**
 * The order read with the admission (docs/performance.md "The order read with the admission"): read in
 * the admission's statement only once the request is admitted, scoped by the key's account, and served
 * once to `OrderRepo.findToCharge` without a lock. Each test changes the order in the database after the
 * admission, so what findToCharge answers shows where it came from.
 */

const Database = migratedDatabase()

/** An account with a key (its digest, its limit and scopes), a customer and a PENDING order of 1,000. */
const seed = (rateLimit = 100, scopes: ReadonlyArray<string> | null = null) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accountId = AccountId.make(randomUUID())
    const customerId = CustomerId.make(randomUUID())
    const orderId = OrderId.make(randomUUID())
    const digest = randomBytes(32)
    yield* sql`insert into accounts (id, name, email, password_hash)
      values (${accountId}, 'Loja', ${`${accountId}@example.com`}, 'x')`
    yield* sql`insert into api_keys (id, account_id, label, key_prefix, key_last4, key_digest, is_primary, scopes,
                                     rate_limit)
      values (${randomUUID()}, ${accountId}, 'k', 'sk_test', 'abcd', ${digest}, true,
              ${scopes === null ? null : [...scopes]}::text[], ${rateLimit})`
    yield* sql`insert into customers (id, account_id, name, email, document, phone)
      values (${customerId}, ${accountId}, 'Maria', 'maria@example.com', '52998224725', '11999999999')`
    yield* sql`insert into orders (id, account_id, customer_id, amount, status)
      values (${orderId}, ${accountId}, ${customerId}, 1000, 'PENDING')`
    const pay = sql`update orders set status = 'PAID' where id = ${orderId}`
    return { accountId, customerId, orderId, digest, pay }
  })

const statusOf = (found: Option.Option<{ readonly order: { readonly status: string } }>) =>
  Option.getOrUndefined(Option.map(found, (f) => f.order.status))

layer(KeyAdmissionLive.pipe(Layer.merge(OrderRepoLive), Layer.provideMerge(Database)))(
  "the order read with the admission",
  (it) => {
    it.effect("an admitted request's order is served once from the admission's read, then read again", () =>
      Effect.gen(function* () {
        const { accountId, orderId, digest, pay } = yield* seed()
        const admitted = yield* (yield* KeyAdmission).admit(digest, "payments:write", undefined, orderId)
        expect(Option.getOrThrow(admitted)._tag).toBe("Admitted")
        yield* pay
        const orders = yield* OrderRepo
        const first = yield* orders.findToCharge(accountId, orderId, false)
        expect(statusOf(first)).toBe("PENDING")
        expect(Option.getOrThrow(first)).toMatchObject({ customerLive: true, customerName: "Maria" })
        expect(Option.getOrThrow(first).order.amount).toBe(1000)
        expect(statusOf(yield* orders.findToCharge(accountId, orderId, false))).toBe("PAID")
      })
    )

    it.effect("with a lock, or for another order, the order is read from the database", () =>
      Effect.gen(function* () {
        const { accountId, orderId, digest, pay } = yield* seed()
        const orders = yield* OrderRepo
        yield* (yield* KeyAdmission).admit(digest, "payments:write", undefined, orderId)
        yield* pay
        expect(statusOf(yield* orders.findToCharge(accountId, orderId, true))).toBe("PAID")
        yield* (yield* KeyAdmission).admit(digest, "payments:write", undefined, orderId)
        expect(yield* orders.findToCharge(accountId, OrderId.make(randomUUID()), false)).toEqual(Option.none())
        // Read for this account: asked by another account (a tenant other than the key's), it is not served.
        yield* (yield* KeyAdmission).admit(digest, "payments:write", undefined, orderId)
        expect(yield* orders.findToCharge(AccountId.make(randomUUID()), orderId, false)).toEqual(Option.none())
      })
    )

    it.effect("another account's key naming the order reads nothing of it", () =>
      Effect.gen(function* () {
        const mine = yield* seed()
        const theirs = yield* seed()
        yield* (yield* KeyAdmission).admit(theirs.digest, "payments:write", undefined, mine.orderId)
        expect(yield* (yield* OrderRepo).findToCharge(theirs.accountId, mine.orderId, false)).toEqual(Option.none())
      })
    )

    it.effect("a request refused its scope or its rate-limit slot reads no order", () =>
      Effect.gen(function* () {
        const admission = yield* KeyAdmission
        const orders = yield* OrderRepo
        const limited = yield* seed(1)
        yield* admission.admit(limited.digest, "payments:write")
        const refused = Option.getOrThrow(
          yield* admission.admit(limited.digest, "payments:write", undefined, limited.orderId)
        )
        expect(refused._tag === "Admitted" && refused.decision.allowed).toBe(false)
        yield* limited.pay
        expect(statusOf(yield* orders.findToCharge(limited.accountId, limited.orderId, false))).toBe("PAID")

        const scoped = yield* seed(100, ["customers:read"])
        const forbidden = yield* admission.admit(scoped.digest, "payments:write", undefined, scoped.orderId)
        expect(Option.getOrThrow(forbidden)._tag).toBe("Forbidden")
        yield* scoped.pay
        expect(statusOf(yield* orders.findToCharge(scoped.accountId, scoped.orderId, false))).toBe("PAID")
      })
    )
  }
)

layer(KeyAdmissionLive.pipe(Layer.provideMerge(Database)))("admissions of one key at once", (it) => {
  it.effect("go together, each with its own exact decision: the limit accepted, each remaining once", () =>
    Effect.gen(function* () {
      const { digest, accountId } = yield* seed(30)
      const admission = yield* KeyAdmission
      const all = yield* Effect.forEach(
        Array.from({ length: 40 }),
        () => Effect.map(admission.admit(digest, "customers:read"), Option.getOrThrow),
        { concurrency: "unbounded" }
      )
      const decisions = all.map((a) => (a._tag === "Admitted" ? a.decision : undefined))
      const accepted = decisions.filter((d) => d?.allowed)
      expect(accepted).toHaveLength(30)
      expect(accepted.map((d) => d!.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i))
      expect(decisions.filter((d) => d?.allowed === false).every((d) => d!.remaining === 0)).toBe(true)
      for (const a of all) expect(a.principal.accountId).toBe(accountId)
      // One stamp per statement (migration 0042): fewer statements than the requests they admitted.
      const sql = yield* SqlClient.SqlClient
      const [hits] = yield* sql<{ hits: number; stamps: number }>`
        select count(*)::int as hits, count(distinct h.at)::int as stamps
        from rate_limit_hits h join api_keys k on k.id = h.key_id where k.account_id = ${accountId}`
      expect(hits).toEqual({ hits: 30, stamps: expect.any(Number) })
      expect(hits!.stamps).toBeLessThan(30)
    })
  )

  it.effect("an unknown key is none of them; a key lacking the scope refuses them all and takes no slot", () =>
    Effect.gen(function* () {
      const admission = yield* KeyAdmission
      const unknown = yield* Effect.forEach(
        Array.from({ length: 10 }),
        () => admission.admit(randomBytes(32), "x:read"),
        {
          concurrency: "unbounded"
        }
      )
      expect(unknown.every(Option.isNone)).toBe(true)
      const { digest, accountId } = yield* seed(30, ["payments:read"])
      const refused = yield* Effect.forEach(
        Array.from({ length: 10 }),
        () => Effect.map(admission.admit(digest, "customers:read"), Option.getOrThrow),
        { concurrency: "unbounded" }
      )
      expect(refused.map((a) => a._tag)).toEqual(Array.from({ length: 10 }, () => "Forbidden"))
      const sql = yield* SqlClient.SqlClient
      const [left] = yield* sql<{ hits: number }>`
        select count(*)::int as hits from rate_limit_hits h join api_keys k on k.id = h.key_id
        where k.account_id = ${accountId}`
      expect(left!.hits).toBe(0)
    })
  )
})

/** A customer's name, as CustomerRepo.find gives it. */
const nameOf = (found: Option.Option<{ readonly name: string }>) =>
  Option.getOrUndefined(Option.map(found, (c) => c.name))
const readCustomer = (id: string) => ({ kind: "customer" as const, id })

layer(
  KeyAdmissionLive.pipe(
    Layer.merge(CustomerRepoLive),
    Layer.merge(OrderRepoLive),
    Layer.merge(TransactionRepoLive),
    Layer.provideMerge(Database)
  )
)("the customer, order or transaction read with the admission", (it) => {
  it.effect("an admitted request's customer is served once from the admission's read, then read again", () =>
    Effect.gen(function* () {
      const { accountId, customerId, digest } = yield* seed()
      yield* (yield* KeyAdmission).admit(digest, "customers:read", undefined, undefined, readCustomer(customerId))
      const sql = yield* SqlClient.SqlClient
      yield* sql`update customers set name = 'Renamed' where id = ${customerId}`
      const customers = yield* CustomerRepo
      expect(nameOf(yield* customers.find(accountId, customerId))).toBe("Maria")
      expect(nameOf(yield* customers.find(accountId, customerId))).toBe("Renamed")
      // A deleted customer is read ahead as none, as the repository reads it.
      yield* sql`update customers set deleted_at = now() where id = ${customerId}`
      yield* (yield* KeyAdmission).admit(digest, "customers:read", undefined, undefined, readCustomer(customerId))
      expect(yield* takeReadAhead("customer", accountId, customerId)).toEqual(Option.some(Option.none()))
    })
  )

  it.effect("an admitted request's order is served once to OrderRepo.find, then read again", () =>
    Effect.gen(function* () {
      const { accountId, orderId, digest, pay } = yield* seed()
      const read = { kind: "order" as const, id: orderId }
      yield* (yield* KeyAdmission).admit(digest, "orders:read", undefined, undefined, read)
      yield* pay
      const orders = yield* OrderRepo
      // Not for the charge's read of it: that is another kind of read (orderToCharge.ts).
      expect(statusOf(yield* orders.findToCharge(accountId, orderId, false))).toBe("PAID")
      yield* (yield* KeyAdmission).admit(digest, "orders:read", undefined, undefined, read)
      yield* (yield* SqlClient.SqlClient)`update orders set status = 'CANCELLED' where id = ${orderId}`
      const status = (found: Option.Option<{ readonly status: string }>) =>
        Option.getOrUndefined(Option.map(found, (o) => o.status))
      expect(status(yield* orders.find(accountId, orderId))).toBe("PAID")
      expect(status(yield* orders.find(accountId, orderId))).toBe("CANCELLED")
    })
  )

  it.effect("an admitted request's transaction is served once to TransactionRepo.find, then read again", () =>
    Effect.gen(function* () {
      const { accountId, orderId, customerId, digest } = yield* seed()
      const sql = yield* SqlClient.SqlClient
      const id = TransactionId.make(randomUUID())
      yield* sql`insert into transactions (id, account_id, origin, order_id, customer_id, method, amount, status)
          values (${id}, ${accountId}, 'v2', ${orderId}, ${customerId}, 'PIX', 1000, 'PENDING')`
      const read = { kind: "transaction" as const, id }
      const transactions = yield* TransactionRepo
      const status = (found: Option.Option<{ readonly status: string }>) =>
        Option.getOrUndefined(Option.map(found, (t) => t.status))
      yield* (yield* KeyAdmission).admit(digest, "transactions:read", undefined, undefined, read)
      yield* sql`update transactions set status = 'PAID', paid_at = now() where id = ${id}`
      const ahead = yield* transactions.find(accountId, id)
      expect(status(ahead)).toBe("PENDING")
      expect(Option.getOrThrow(ahead)).toMatchObject({ id, amount: 1000, method: "PIX", orderId, customerId })
      expect(status(yield* transactions.find(accountId, id))).toBe("PAID")
      // Another account's key naming it reads none of it; asked for another id, the database answers.
      const theirs = yield* seed()
      yield* (yield* KeyAdmission).admit(theirs.digest, "transactions:read", undefined, undefined, read)
      expect(yield* takeReadAhead("transaction", theirs.accountId, id)).toEqual(Option.some(Option.none()))
      yield* (yield* KeyAdmission).admit(digest, "transactions:read", undefined, undefined, read)
      expect(yield* transactions.find(accountId, TransactionId.make(randomUUID()))).toEqual(Option.none())
      expect(status(yield* transactions.find(accountId, id))).toBe("PAID")
    })
  )

  it.effect("another account's key naming the customer reads none of it; a refused request reads nothing", () =>
    Effect.gen(function* () {
      const admission = yield* KeyAdmission
      const mine = yield* seed()
      const theirs = yield* seed()
      yield* admission.admit(theirs.digest, "customers:read", undefined, undefined, readCustomer(mine.customerId))
      expect(yield* takeReadAhead("customer", theirs.accountId, mine.customerId)).toEqual(Option.some(Option.none()))

      const limited = yield* seed(1)
      yield* admission.admit(limited.digest, "customers:read")
      yield* admission.admit(limited.digest, "customers:read", undefined, undefined, readCustomer(limited.customerId))
      expect(yield* takeReadAhead("customer", limited.accountId, limited.customerId)).toEqual(Option.none())
      const scoped = yield* seed(100, ["payments:read"])
      yield* admission.admit(scoped.digest, "customers:read", undefined, undefined, readCustomer(scoped.customerId))
      expect(yield* takeReadAhead("customer", scoped.accountId, scoped.customerId)).toEqual(Option.none())
    })
  )

  it.effect("requests admitted together each get the customer they named, and only if they got a slot", () =>
    Effect.gen(function* () {
      const { accountId, digest } = yield* seed(12)
      const sql = yield* SqlClient.SqlClient
      const ids = Array.from({ length: 20 }, () => CustomerId.make(randomUUID()))
      for (const [i, id] of ids.entries()) {
        const document = String(10_000_000_000 + i)
        yield* sql`insert into customers (id, account_id, name, email, document, phone)
            values (${id}, ${accountId}, ${`Cliente ${i}`}, 'c@example.com', ${document}, '11999999999')`
      }
      const admission = yield* KeyAdmission
      const seen = yield* Effect.forEach(
        ids,
        (id) =>
          Effect.gen(function* () {
            const admitted = Option.getOrThrow(
              yield* admission.admit(digest, "customers:read", undefined, undefined, readCustomer(id))
            )
            const allowed = admitted._tag === "Admitted" && admitted.decision.allowed
            const ahead = yield* takeReadAhead<{ readonly id: string }>("customer", accountId, id)
            return {
              allowed,
              read: Option.map(
                ahead,
                Option.map((c) => c.id)
              ),
              id
            }
          }),
        { concurrency: "unbounded" }
      )
      expect(seen.filter((s) => s.allowed)).toHaveLength(12)
      for (const s of seen) expect(s.read).toEqual(s.allowed ? Option.some(Option.some(s.id)) : Option.none())
    })
  )
})
