import { createHash, randomBytes, randomUUID } from "node:crypto"
import { runMigrations } from "graphile-worker"
import pg from "pg"
import { closedLoop, type LoadResult } from "./load.ts"
import { freshDatabase } from "./setup.ts"

/**
 * The fixed yardstick of `npm run bench` (issue 22 §1): the minimal SQL of a PIX charge on a small
 * schema of its own, in a database of its own on the same PostgreSQL. Unlike bench/raw.ts (the
 * service's own statements, which move with the design), nothing here follows the project: the
 * schema and the statements are the issue's, word for word. Never change them to match the service;
 * the service is measured against this.
 */
const SCHEMA = `
create table accounts (id uuid primary key, name text not null, created_at timestamptz not null default now());
create table api_keys (
  id uuid primary key, account_id uuid not null references accounts (id),
  key_digest bytea not null unique, rate_limit int not null);
create table customers (
  id uuid primary key, account_id uuid not null references accounts (id), document text not null,
  name text not null, unique (account_id, document));
create table orders (
  id uuid primary key, account_id uuid not null references accounts (id),
  customer_id uuid not null references customers (id), amount bigint not null, status text not null,
  created_at timestamptz not null default now());
create index on orders (account_id, created_at);
create table transactions (
  id uuid primary key, order_id uuid not null references orders (id),
  account_id uuid not null references accounts (id), method text not null, amount bigint not null,
  status text not null, pix_emv text, expires_at timestamptz, created_at timestamptz not null default now(),
  updated_at timestamptz not null default now());
create index on transactions (order_id);
create index on transactions (account_id, created_at);
create table idempotency_keys (
  account_id uuid not null references accounts (id), key text not null, fingerprint text not null,
  status text not null, response_status int, response_body jsonb,
  created_at timestamptz not null default now(), primary key (account_id, key));
create index on idempotency_keys (created_at);
create table rate_limit_counters (api_key_id uuid primary key references api_keys (id), accepted bigint not null);
create table rate_limit_slots (
  api_key_id uuid not null references api_keys (id), slot int not null, at timestamptz not null,
  primary key (api_key_id, slot));
`

const KEY = { name: "y_key", text: "select id, account_id, rate_limit from api_keys where key_digest = $1" }
const RATE = {
  name: "y_rate",
  text: `with c as (update rate_limit_counters set accepted = accepted + 1 where api_key_id = $1
                    returning accepted - 1 as n)
         insert into rate_limit_slots as s (api_key_id, slot, at) select $1, c.n % $2, clock_timestamp() from c
         on conflict (api_key_id, slot) do update set at = excluded.at where s.at <= excluded.at - interval '60 seconds'
         returning s.slot`
}
const CLAIM = {
  name: "y_claim",
  text: `insert into idempotency_keys (account_id, key, fingerprint, status) values ($1, $2, $3, 'started')
         on conflict do nothing`
}
const ORDER = {
  name: "y_order",
  text: "select id, amount, status from orders where id = $1 and account_id = $2 for update"
}
const INSERT = {
  name: "y_insert",
  text: `insert into transactions (id, order_id, account_id, method, amount, status, pix_emv, expires_at)
         values ($1, $2, $3, 'PIX', $4, 'PENDING', $5, $6)`
}
const JOB = {
  name: "y_job",
  text: "select graphile_worker.add_job($1, $2::json, run_at := $3::timestamptz)"
}
const COMPLETE = {
  name: "y_complete",
  text: `update idempotency_keys set status = 'completed', response_status = 201, response_body = $3
         where account_id = $1 and key = $2`
}

/** A static BR Code of the usual length (~150 bytes): the yardstick stores one, it does not build it. */
const EMV =
  "00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/cobv/9d36b84f-c70b-478f-b95c-12729b90ca25" +
  "5204000053039865802BR5913Loja Exemplo6009SAO PAULO62070503***6304ABCD"

export interface Yardstick {
  readonly databaseUrl: string
  readonly run: (clients: number, seconds: number) => Promise<LoadResult>
}

/** Creates the yardstick's database on `serverUrl`'s server, with `backlog` parked jobs and `orders` orders. */
export const setupYardstick = async (
  serverUrl: string,
  options: { backlog: number; orders: number; amount: number }
) => {
  const databaseUrl = await freshDatabase(serverUrl, "yardstick")
  await runMigrations({ connectionString: databaseUrl })
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  const apiKey = `yardstick_${randomBytes(16).toString("hex")}`
  const digest = createHash("sha256").update(apiKey).digest()
  const accountId = randomUUID()
  const keyId = randomUUID()
  const customerId = randomUUID()
  let orderIds: Array<string>
  try {
    await db.query(SCHEMA)
    await db.query("insert into accounts (id, name) values ($1, 'Yardstick')", [accountId])
    await db.query("insert into api_keys (id, account_id, key_digest, rate_limit) values ($1, $2, $3, 100000000)", [
      keyId,
      accountId,
      digest
    ])
    await db.query("insert into rate_limit_counters (api_key_id, accepted) values ($1, 0)", [keyId])
    await db.query("insert into customers (id, account_id, document, name) values ($1, $2, '52998224725', 'Buyer')", [
      customerId,
      accountId
    ])
    const { rows } = await db.query<{ id: string }>(
      `insert into orders (id, account_id, customer_id, amount, status)
       select gen_random_uuid(), $1, $2, $3, 'PENDING' from generate_series(1, $4) returning id`,
      [accountId, customerId, options.amount, options.orders]
    )
    orderIds = rows.map((row) => row.id)
    for (let parked = 0; parked < options.backlog; parked += 10_000) {
      await db.query(
        `select graphile_worker.add_jobs(array(
           select row('cleanup', '{}'::json, null, now() + interval '30 days', 1, null, 0, null)
                    ::graphile_worker.job_spec
           from generate_series(1, $1)))`,
        [Math.min(10_000, options.backlog - parked)]
      )
    }
  } finally {
    await db.end()
  }
  // A ~400-byte response, as a charge's idempotency record keeps.
  const response = (transactionId: string, orderId: string, expiresAt: Date) =>
    JSON.stringify({
      id: transactionId,
      orderId,
      method: "PIX",
      amount: options.amount,
      status: "PENDING",
      pix: { emv: EMV, expiresAt: expiresAt.toISOString() },
      createdAt: new Date().toISOString()
    })

  const charge = async (db: pg.Client, orderId: string) => {
    const key = (await db.query({ ...KEY, values: [digest] })).rows[0]
    await db.query("begin; set local synchronous_commit = off")
    const slot = await db.query({ ...RATE, values: [key.id, key.rate_limit] })
    await db.query("commit")
    if (slot.rowCount === 0) return 429
    const idempotencyKey = randomUUID()
    const transactionId = randomUUID()
    const expiresAt = new Date(Date.now() + 3_600_000)
    await db.query("begin")
    await db.query({ ...CLAIM, values: [key.account_id, idempotencyKey, "fingerprint"] })
    await db.query({ ...ORDER, values: [orderId, key.account_id] })
    await db.query({ ...INSERT, values: [transactionId, orderId, key.account_id, options.amount, EMV, expiresAt] })
    await db.query({ ...JOB, values: ["expire_transaction", JSON.stringify({ transactionId }), expiresAt] })
    await db.query({ ...JOB, values: ["deliver_event", JSON.stringify({ transactionId }), new Date()] })
    await db.query({
      ...COMPLETE,
      values: [key.account_id, idempotencyKey, response(transactionId, orderId, expiresAt)]
    })
    await db.query("commit")
    return 201
  }

  const run = async (clients: number, seconds: number): Promise<LoadResult> => {
    const connections = await Promise.all(
      Array.from({ length: clients }, async () => {
        const db = new pg.Client({ connectionString: databaseUrl })
        await db.connect()
        return db
      })
    )
    const free = [...connections]
    try {
      return await closedLoop(clients, seconds, 2, async (i) => {
        const db = free.pop()!
        try {
          return await charge(db, orderIds[i % orderIds.length]!)
        } finally {
          free.push(db)
        }
      })
    } finally {
      await Promise.all(connections.map((c) => c.end()))
    }
  }
  return { databaseUrl, run } satisfies Yardstick
}
