import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { BALANCES, type Balance, POSTING_TYPES } from "../../domain/ledger.ts"
import { Ids } from "../../ports/Ids.ts"
import { type Balances, Ledger } from "../../ports/Ledger.ts"
import { KEYSET_AT, keysetPage, pageBounds } from "./keyset.ts"
import { traced } from "./traced.ts"

const PostingRow = Schema.Struct({
  id: Schema.Union(Schema.String, Schema.Number).pipe(
    Schema.transform(Schema.String, { decode: String, encode: (s) => s })
  ),
  party: Schema.String,
  book: Schema.Literal(...BALANCES),
  type: Schema.Literal(...POSTING_TYPES),
  amount: Schema.Number,
  transactionId: Schema.NullOr(Schema.String),
  withdrawalId: Schema.NullOr(Schema.String),
  description: Schema.String,
  createdAt: Schema.DateFromSelf
})
const decodePostings = Schema.decodeUnknown(Schema.Array(PostingRow))

const decodeEntryPostings = Schema.decodeUnknown(
  Schema.Array(
    Schema.Struct({
      party: Schema.String,
      book: Schema.Literal("available", "pending", "reserved", "acquirer", "payers", "fees", "payouts"),
      type: Schema.Literal(...POSTING_TYPES),
      amount: Schema.Number,
      description: Schema.String
    })
  )
)

const BalanceRow = Schema.Struct({
  party: Schema.String,
  book: Schema.Literal(...BALANCES),
  amount: Schema.Number,
  updatedAt: Schema.NullOr(Schema.DateFromSelf)
})
const decodeBalances = Schema.decodeUnknown(Schema.Array(BalanceRow))

const zero = (): Record<Balance, number> => ({ available: 0, pending: 0, reserved: 0 })

// Rows are locked and postings inserted in this one order ("C" collation: byte order, the same as
// JavaScript's `<` on these ASCII names), so that two movements never wait on each other crosswise.
const byLockOrder = <T extends { readonly party: string; readonly book: string }>(a: T, b: T) =>
  a.party < b.party ? -1 : a.party > b.party ? 1 : a.book < b.book ? -1 : a.book > b.book ? 1 : 0

export const LedgerLive = Layer.effect(
  Ledger,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids
    return Ledger.of(
      traced("Ledger", {
        post: (accountId, entry) =>
          Effect.gen(function* () {
            const id = yield* ids.next
            const postings = [...entry.postings].sort(byLockOrder)
            // One round trip: the entry (once per key) and its postings; the balance rows move in the
            // trigger, the entry's sum is checked at commit.
            const rows = yield* sql<{ posted: number }>`
              with e as (
                insert into ledger_entries (id, account_id, key, transaction_id, withdrawal_id)
                values (${id}, ${accountId}, ${entry.key}, ${entry.transactionId}, ${entry.withdrawalId})
                on conflict (account_id, key) do nothing
                returning id
              ), p as (
                insert into ledger_postings (entry_id, account_id, party, book, type, amount, transaction_id,
                                             withdrawal_id, description)
                select e.id, ${accountId}, x.party, x.book, x.type, x.amount, ${entry.transactionId}::uuid,
                       ${entry.withdrawalId}::uuid, x.description
                from e, rows from (jsonb_to_recordset(${JSON.stringify(postings)}::jsonb)
                  as (party text, book text, type text, amount bigint, description text))
                  with ordinality as x(party, book, type, amount, description, n)
                order by x.n
                returning 1
              )
              select (select count(*) from e)::int as posted`
            return rows[0]!.posted > 0
          }).pipe(Effect.orDie),
        entryPostings: (accountId, key) =>
          sql`
            select p.party, p.book, p.type, p.amount, p.description
            from ledger_entries e join ledger_postings p on p.entry_id = e.id
            where e.account_id = ${accountId} and e.key = ${key}
            order by p.id`.pipe(Effect.flatMap(decodeEntryPostings), Effect.orDie),
        posted: (accountId, key) =>
          sql`select 1 from ledger_entries where account_id = ${accountId} and key = ${key}`.pipe(
            Effect.map((r) => r.length > 0),
            Effect.orDie
          ),
        lock: (accountId, parties) =>
          Effect.gen(function* () {
            const sorted = [...new Set(parties)].sort()
            yield* sql`
              insert into ledger_balances (account_id, party, book)
              select ${accountId}, p.party, b.book
              from unnest(${sorted}::text[]) as p(party), unnest(${BALANCES}::text[]) as b(book)
              order by p.party collate "C", b.book collate "C"
              on conflict do nothing`
            const rows = yield* sql`
              select party, book, amount, updated_at from ledger_balances
              where account_id = ${accountId} and party = any(${sorted}::text[])
              order by party collate "C", book collate "C"
              for update`.pipe(Effect.flatMap(decodeBalances))
            const result = new Map<string, Balances>(sorted.map((p) => [p, zero()]))
            for (const row of rows) (result.get(row.party) as Record<Balance, number>)[row.book] = row.amount
            return result as ReadonlyMap<string, Balances>
          }).pipe(Effect.orDie),
        balance: (accountId, party) =>
          sql`select party, book, amount, updated_at from ledger_balances
              where account_id = ${accountId} and party = ${party}`.pipe(
            Effect.flatMap(decodeBalances),
            Effect.map((rows) => {
              const result = zero()
              let updatedAt: Date | null = null
              for (const row of rows) {
                result[row.book] = row.amount
                if (row.updatedAt && (updatedAt === null || row.updatedAt > updatedAt)) updatedAt = row.updatedAt
              }
              return { ...result, updatedAt }
            }),
            Effect.orDie
          ),
        statement: (accountId, f, range) => {
          const where = sql.and([
            sql`account_id = ${accountId}`,
            sql`party = ${f.party}`,
            sql`created_at >= ${f.from}`,
            sql`created_at < ${f.before}`,
            ...(f.type ? [sql`type = ${f.type}`] : [])
          ])
          // On the index (account_id, party, created_at, id): a cursor's page is a seek, whatever its depth.
          // Ordered by the table's columns: a bare `id` would name the select list's text `id` ("11" < "7").
          const { seek, limit } = pageBounds(sql, range, "asc", "bigint", "p.")
          return keysetPage(
            sql`
              select id::text, party, book, type, amount, transaction_id, withdrawal_id, description, created_at,
                     ${sql.literal(KEYSET_AT)}
              from ledger_postings p where ${where} ${seek}
              order by p.created_at, p.id ${limit}`,
            range.limit,
            decodePostings,
            sql<{ n: number }>`select count(*)::int as n from ledger_postings where ${where}`.pipe(
              Effect.map((r) => r[0]?.n ?? 0)
            )
          )
        },
        check: Effect.gen(function* () {
          const balances = yield* sql<{ accountId: string; what: string; expected: number; actual: number }>`
            with sums as (
              select account_id, party, book, sum(amount)::bigint as amount
              from ledger_postings where party <> 'system' group by 1, 2, 3
            )
            select coalesce(b.account_id, s.account_id) as account_id,
                   'balance ' || coalesce(b.party, s.party) || '/' || coalesce(b.book, s.book) as what,
                   coalesce(s.amount, 0) as expected, coalesce(b.amount, 0) as actual
            from ledger_balances b full join sums s
              on s.account_id = b.account_id and s.party = b.party and s.book = b.book
            where coalesce(s.amount, 0) <> coalesce(b.amount, 0)`
          const entries = yield* sql<{ accountId: string; what: string; expected: number; actual: number }>`
            select e.account_id, 'entry ' || e.key as what, 0 as expected, sum(p.amount)::bigint as actual
            from ledger_entries e join ledger_postings p on p.entry_id = e.id
            group by e.id having sum(p.amount) <> 0`
          // Pending money is exactly the open receivables; reserved money is the open reserve plus
          // what open disputes hold.
          const open = yield* sql<{ accountId: string; what: string; expected: number; actual: number }>`
            with expected as (
              select account_id, party, balance as book, sum(amount)::bigint as amount
              from receivables where settled_at is null group by 1, 2, 3
              union all
              select account_id, party, 'reserved', sum(amount)::bigint
              from ledger_holds where released_at is null and tag like 'dispute:%' group by 1, 2
            ), totals as (
              select account_id, party, book, sum(amount)::bigint as amount from expected group by 1, 2, 3
            )
            select coalesce(b.account_id, t.account_id) as account_id,
                   'receivables ' || coalesce(b.party, t.party) || '/' || coalesce(b.book, t.book) as what,
                   coalesce(t.amount, 0) as expected, coalesce(b.amount, 0) as actual
            from (select * from ledger_balances where book <> 'available') b
            full join totals t on t.account_id = b.account_id and t.party = b.party and t.book = b.book
            where coalesce(t.amount, 0) <> coalesce(b.amount, 0)`
          return [...balances, ...entries, ...open].map((d) => ({
            ...d,
            expected: Number(d.expected),
            actual: Number(d.actual)
          }))
        }).pipe(Effect.orDie)
      })
    )
  })
)
