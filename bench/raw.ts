import { createHash, randomBytes, randomUUID } from "node:crypto"
import pg from "pg"
import { closedLoop, type LoadResult } from "./load.ts"

/**
 * The raw-SQL limit of a PIX charge (issue 10): the statements a PIX charge must issue, by a bare `pg`
 * client per connection with named prepared statements and nothing else — API-key lookup (with the
 * account's name for the BR Code), a rate-limit slot in its own transaction, the idempotency claim,
 * then in one transaction the order `FOR UPDATE` (with its customer's liveness), the transaction, its
 * public documents (QR, checkout page), its outbox event and its expiry job via
 * `graphile_worker.add_job`, and after it the idempotency completion. The service's charge is
 * measured against this, in the same run, on the same database.
 */
const KEY = {
  name: "raw_key",
  text: `select k.id, k.account_id, k.scopes, k.rate_limit, a.name
         from api_keys k join accounts a on a.id = k.account_id where k.key_digest = $1 and k.active`
}
const RATE = { name: "raw_rate", text: "select * from rate_limit_take($1, $2, interval '60 seconds')" }
const CLAIM = {
  name: "raw_claim",
  text: `insert into idempotency_keys as k (account_id, key, fingerprint, resource_id, locked_until)
         values ($1, $2, $3, $4, now() + interval '60 seconds')
         on conflict (account_id, key) do update set locked_until = excluded.locked_until
         where k.created_at < now() - interval '24 hours'
         returning resource_id`
}
const ORDER = {
  name: "raw_order",
  text: `select o.id, o.customer_id, o.amount, o.status from orders o
         join customers c on c.id = o.customer_id and c.deleted_at is null
         where o.account_id = $1 and o.id = $2 for update of o`
}
const INSERT = {
  name: "raw_insert",
  text: `insert into transactions (id, account_id, origin, order_id, customer_id, method, amount, amount_total, status,
                                   details, expires_at)
         values ($1, $2, 'v2', $3, $4, 'PIX', $5, $5, 'PENDING', $6, $7)`
}
const DOCUMENTS = {
  name: "raw_documents",
  text: `insert into public_documents (token, transaction_id, kind) values ($1, $2, 'checkout'), ($3, $2, 'pix_qr')`
}
const EVENT = {
  name: "raw_event",
  text: `insert into events (id, account_id, type, kind, origin, transaction_id, snapshot)
         values ($1, $2, 'transaction.created', 'created', 'v2', $3, $4)`
}
const EXPIRE = {
  name: "raw_expire",
  text: `select graphile_worker.add_job('expire_transaction',
           json_build_object('accountId', $1::text, 'transactionId', $2::text),
           run_at := $3::timestamptz, job_key := $4, max_attempts := 10)`
}
const COMPLETE = {
  name: "raw_complete",
  text: `update idempotency_keys set response_status = $3, response_body = $4, locked_until = null
         where account_id = $1 and key = $2`
}

export interface RawInput {
  readonly databaseUrl: string
  readonly apiKey: string
  readonly orderIds: ReadonlyArray<string>
  readonly amount: number
}

/** One charge on one client: 11 round trips. */
const charge = async (db: pg.Client, input: RawInput, digest: Buffer, orderId: string) => {
  const key = (await db.query({ ...KEY, values: [digest] })).rows[0]
  const rate = (await db.query({ ...RATE, values: [key.id, key.rate_limit] })).rows[0]
  if (!rate.allowed) return 429
  const idempotencyKey = randomUUID()
  const transactionId = randomUUID()
  await db.query({ ...CLAIM, values: [key.account_id, idempotencyKey, "fingerprint", transactionId] })
  await db.query("begin")
  const order = (await db.query({ ...ORDER, values: [key.account_id, orderId] })).rows[0]
  const expiresAt = new Date(Date.now() + 3_600_000)
  const details = {
    pix: { emv: "000201", txid: transactionId, expiresAt: expiresAt.toISOString(), qrToken: "q" },
    checkoutToken: "c"
  }
  await db.query({
    ...INSERT,
    values: [transactionId, key.account_id, orderId, order.customer_id, input.amount, details, expiresAt]
  })
  await db.query({
    ...DOCUMENTS,
    values: [randomBytes(32).toString("base64url"), transactionId, randomBytes(32).toString("base64url")]
  })
  await db.query({
    ...EVENT,
    values: [randomUUID(), key.account_id, transactionId, { id: transactionId, status: "PENDING" }]
  })
  await db.query({ ...EXPIRE, values: [key.account_id, transactionId, expiresAt, `expire:${transactionId}`] })
  await db.query("commit")
  await db.query({ ...COMPLETE, values: [key.account_id, idempotencyKey, 201, '{"status":"PENDING"}'] })
  return 201
}

/** The raw limit at `clients` connections. */
export const benchRaw = async (input: RawInput, clients: number, seconds: number): Promise<LoadResult> => {
  const digest = createHash("sha256").update(input.apiKey).digest()
  const connections = await Promise.all(
    Array.from({ length: clients }, async () => {
      const db = new pg.Client({ connectionString: input.databaseUrl })
      await db.connect()
      return db
    })
  )
  const free = [...connections]
  try {
    return await closedLoop(clients, seconds, 2, async (i) => {
      const db = free.pop()!
      try {
        return await charge(db, input, digest, input.orderIds[i % input.orderIds.length]!)
      } finally {
        free.push(db)
      }
    })
  } finally {
    await Promise.all(connections.map((c) => c.end()))
  }
}
