import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { BALANCES, type Balance, POSTING_TYPES } from "../../domain/ledger.ts"
import { Ids } from "../../ports/Ids.ts"
import { type Balances, Ledger } from "../../ports/Ledger.ts"
import { KEYSET_AT, keysetPage, pageBounds } from "./keyset.ts"
import { traced } from "./traced.ts"
import { settledHorizon } from "./settledHorizon.ts"

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

const decodeTaken = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ party: Schema.String, book: Schema.String, amount: Schema.Number }))
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
            // trigger, the entry's sum is checked at commit. The postings share one instant, read once (the
            // column's clock_timestamp() would stamp each row apart: a sale on one São Paulo day and its fee
            // on the next, a statement page showing one without the other).
            const rows = yield* sql<{ posted: number }>`
              with e as (
                insert into ledger_entries (id, account_id, key, transaction_id, withdrawal_id)
                values (${id}, ${accountId}, ${entry.key}, ${entry.transactionId}, ${entry.withdrawalId})
                on conflict (account_id, key) do nothing
                returning id
              ), p as (
                insert into ledger_postings (entry_id, account_id, party, book, type, amount, transaction_id,
                                             withdrawal_id, description, created_at)
                select e.id, ${accountId}, x.party, x.book, x.type, x.amount, ${entry.transactionId}::uuid,
                       ${entry.withdrawalId}::uuid, x.description, w.at
                from e, (select clock_timestamp() as at) w,
                  rows from (jsonb_to_recordset(${JSON.stringify(postings)}::jsonb)
                  as (party text, book text, type text, amount bigint, description text))
                  with ordinality as x(party, book, type, amount, description, n)
                order by x.n
                returning 1
              )
              select (select count(*) from e)::int as posted`
            return rows[0]!.posted > 0
          }).pipe(Effect.orDie),
        // By the entries of the transaction (migration 0048's index): a refund's and its reversals' keys
        // start with `refund`; a reversal's postings negate the refund's, so the sums are what stands. The
        // recipients only: the merchant's own refund postings counted as a recipient's made every refund after
        // the first take the merchant's rounding centavos (refundShares) and refuse a sale's own money.
        refundsTaken: (accountId, transactionId) =>
          sql`
            select p.party, p.book, sum(p.amount)::bigint as amount
            from ledger_entries e join ledger_postings p on p.entry_id = e.id
            where e.account_id = ${accountId} and e.transaction_id = ${transactionId}
              and e.key like 'refund%'
              and ((p.type = 'refund' and p.party not in ('system', 'merchant'))
                   or (p.type = 'fee' and p.book = 'fees'))
            group by p.party, p.book`.pipe(
            Effect.flatMap(decodeTaken),
            Effect.orDie,
            Effect.map((rows) => {
              const recipients = new Map<string, number>()
              let fee = 0
              for (const r of rows) {
                if (r.book === "fees") fee -= r.amount
                else recipients.set(r.party, (recipients.get(r.party) ?? 0) - r.amount)
              }
              return { recipients, fee }
            })
          ),
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
        statement: (accountId, f, range) =>
          Effect.flatMap(settledHorizon(sql), (horizon) => {
            // Only postings below the horizon: one a late commit adds is never behind a cursor already given.
            const where = sql.and([
              sql`account_id = ${accountId}`,
              sql`party = ${f.party}`,
              sql`created_at >= ${f.from}`,
              sql`created_at < ${f.before}`,
              sql`created_at < ${horizon}::timestamptz`,
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
          }),
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
          // Each transaction's record against its postings (docs/money.md "The books check"): books that
          // balance with themselves can still disagree with the refunds and disputes they pay for. Only
          // transactions whose sale was posted: a sale older than the books has no postings to compare.
          const records = yield* sql<{ accountId: string; what: string; expected: number; actual: number }>`
            with sold as (
              -- amount_total here is the refunds' base: a boleto's payment when it has one (refundBase).
              select t.account_id, t.id, t.status,
                     coalesce((t.details -> 'payment' ->> 'amount')::bigint, t.amount_total) as amount_total,
                     t.fee, t.refunded_amount, t.refund_reserved,
                     t.refunded_amount + t.refund_reserved as taken
              from transactions t
              join ledger_entries e on e.account_id = t.account_id and e.key = 'sale:' || t.id
            ), refund_rows as (
              select r.transaction_id as id,
                     coalesce(sum(r.amount) filter (where r.status = 'SUCCEEDED'), 0)::bigint as succeeded,
                     coalesce(sum(r.amount) filter (where r.status = 'PENDING'), 0)::bigint as pending,
                     count(*) filter (where r.status = 'FAILED')::bigint as failed
              from refunds r group by 1
            ), posted as (
              -- The system side of the refunds (the money sent back) and of the fees (kept less returned).
              select p.transaction_id as id,
                     coalesce(sum(p.amount) filter (where p.type = 'refund'), 0)::bigint as refunded,
                     -- The bank's fee on a boleto is the gateway's cost, not the merchant's fee (migration 0033).
                     coalesce(sum(p.amount) filter (where p.book = 'fees' and p.type <> 'bank_fee'), 0)::bigint as fees
              from ledger_postings p where p.party = 'system' and p.transaction_id is not null group by 1
            ), held as (
              select h.transaction_id as id, sum(h.amount)::bigint as amount
              from ledger_holds h where h.released_at is null and starts_with(h.tag, 'dispute:') group by 1
            ), facts as (
              select s.*, coalesce(r.succeeded, 0) as succeeded, coalesce(r.pending, 0) as pending,
                     coalesce(r.failed, 0) as failed, coalesce(p.refunded, 0) as posted_refunds,
                     coalesce(p.fees, 0) as posted_fees, coalesce(h.amount, 0) as held,
                     -- CONTRACT-v1 §7: the fee kept is the fee less round_half_up(fee · refunded / amount_total).
                     s.fee - case when s.amount_total = 0 then 0
                                  else (2 * s.fee * s.taken + s.amount_total) / (2 * s.amount_total) end as fee_kept,
                     case when s.status in ('PRE_CHARGEBACK', 'MED_RECEIVED', 'MED_ANALYSIS')
                          then s.amount_total - s.taken else 0 end as disputed
              from sold s left join refund_rows r on r.id = s.id left join posted p on p.id = s.id
                left join held h on h.id = s.id
            )
            select account_id, 'transaction ' || id || ' refunded_amount vs its SUCCEEDED refunds' as what,
                   succeeded as expected, refunded_amount as actual
            from facts where succeeded <> refunded_amount
            union all
            select account_id, 'transaction ' || id || ' refund_reserved vs its PENDING refunds',
                   pending, refund_reserved
            from facts where pending <> refund_reserved
            union all
            select account_id, 'transaction ' || id || ' refunded_amount + refund_reserved vs its refund postings',
                   taken, posted_refunds
            from facts where taken <> posted_refunds
            union all
            -- Each refund's share of the fee is computed on cumulative totals; a refund that failed between
            -- two others reversed its own share, which may leave a centavo per failed refund.
            select account_id, 'transaction ' || id || ' fee kept vs its fee postings', fee_kept, posted_fees
            from facts where abs(fee_kept - posted_fees) > failed
            union all
            select account_id, 'transaction ' || id || ' ' || status || ' dispute holds', disputed, held
            from facts where disputed <> held`
          // Each refund row's state against its own entries: PENDING and SUCCEEDED sent its amount back,
          // FAILED sent nothing (its entry reversed, or never written). A refund PENDING for 5 minutes, ten
          // times the longest request (HTTP_REQUEST_TIMEOUT_MS, 30 s), lost the provider's answer: its money
          // is taken and never recorded (the state issue 19's race left). Not a card refund: one whose outcome
          // the acquirer could not say stays PENDING, its money reserved, for an operator to conclude (the
          // queue's card_refund_unknown, docs/providers.md "Known limits"), which is no imbalance to page on.
          // Nor a PIX refund: one the PSP has not decided stays PENDING on purpose, reserved, asked again by
          // reconcile_pix (docs/providers.md "Refunds"; the queue's pix_refund_undecided).
          const refundRows = yield* sql<{ accountId: string; what: string; expected: number; actual: number }>`
            select r.account_id, 'refund ' || r.id || ' ' || r.status || ' vs its refund postings' as what,
                   case when r.status = 'FAILED' then 0 else r.amount end as expected,
                   coalesce(sum(p.amount), 0)::bigint as actual
            from refunds r
            join ledger_entries s on s.account_id = r.account_id and s.key = 'sale:' || r.transaction_id
            left join ledger_entries e on e.account_id = r.account_id
              and e.key in ('refund:' || r.id, 'refund_reversal:' || r.id)
            left join ledger_postings p on p.entry_id = e.id and p.party = 'system' and p.type = 'refund'
            group by r.account_id, r.id, r.status, r.amount
            having coalesce(sum(p.amount), 0) <> case when r.status = 'FAILED' then 0 else r.amount end
            union all
            select r.account_id,
                   'refund ' || r.id || ' PENDING since ' || r.created_at || ': its answer was never recorded',
                   0, r.amount
            from refunds r join transactions t on t.id = r.transaction_id and t.account_id = r.account_id
            where r.status = 'PENDING' and r.created_at < now() - interval '5 minutes'
              and t.method not in ('CARD', 'PIX')`
          return [...balances, ...entries, ...open, ...records, ...refundRows].map((d) => ({
            ...d,
            expected: Number(d.expected),
            actual: Number(d.actual)
          }))
        }).pipe(Effect.orDie)
      })
    )
  })
)
