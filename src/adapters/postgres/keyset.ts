import type { SqlClient, Statement } from "@effect/sql"
import { Chunk, Effect, Option, Stream } from "effect"
import type { ListFilter, ListKey, Page, PageRange } from "../../ports/Page.ts"
import { withSpan } from "../../spans.ts"

/**
 * Rows per query of a streamed list: big enough to amortise a round trip, small enough that decoding and
 * encoding one page holds the event loop for a few milliseconds only (other requests share it). The first
 * page is smaller so that the first byte leaves soon.
 */
export const PAGE_SIZE = 500
const FIRST_PAGE_SIZE = 100

/**
 * The key of a row read with `KEYSET_AT` in its select list (`ListKey`): its `created_at` as PostgreSQL's
 * own text (a JS Date would lose the microseconds and repeat or skip rows at a page boundary) and its id,
 * which makes the order unique.
 */
const keyOf = (row: { readonly [column: string]: unknown }): ListKey => ({
  at: String(row["keysetAt"]),
  id: String(row["id"])
})

/** Where a page read with `KEYSET_AT` stopped, when it is full (a short page is the last). */
const nextKey = (rows: ReadonlyArray<{ readonly [column: string]: unknown }>, limit: number): ListKey | null =>
  rows.length === limit && rows.length > 0 ? keyOf(rows[rows.length - 1]!) : null

/** The select list's extra column that a keyset page reads its key from (camelCased: `keysetAt`). */
export const KEYSET_AT = "created_at::text as keyset_at"

/**
 * The rows past `after` in a list ordered by (created_at, id), `desc` newest first: a seek on the list's
 * index. `id` is the type of the table's ids; nothing without a key.
 */
export const seekAfter = (
  sql: SqlClient.SqlClient,
  after: ListKey | undefined,
  order: "asc" | "desc",
  id: "uuid" | "bigint",
  table = ""
) =>
  after === undefined
    ? sql``
    : sql`and (${sql.literal(`${table}created_at, ${table}id`)}) ${sql.literal(order === "desc" ? "<" : ">")}
          (${after.at}::timestamptz, ${after.id}::${sql.literal(id)})`

/**
 * Where a page of a list ordered by (created_at, id) starts and how long it is (ports/Page.ts): after
 * `range.after` by a seek, else `range.offset` rows in.
 */
export const pageBounds = (
  sql: SqlClient.SqlClient,
  range: PageRange,
  order: "asc" | "desc",
  id: "uuid" | "bigint",
  table = ""
) => ({
  seek: seekAfter(sql, range.after, order, id, table),
  limit: range.after === undefined ? sql`limit ${range.limit} offset ${range.offset}` : sql`limit ${range.limit}`
})

/**
 * A page of a list and how many rows match in all: `found` read with `KEYSET_AT`, decoded by `decode`;
 * a full page says where it stopped, so that the next one can seek.
 */
export const keysetPage = <A, E1, E2, E3>(
  found: Effect.Effect<ReadonlyArray<{ readonly [column: string]: unknown }>, E1>,
  limit: number,
  decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, E2>,
  total: Effect.Effect<number, E3>
): Effect.Effect<Page<A>> =>
  Effect.all([found, total]).pipe(
    Effect.flatMap(([rows, total]) =>
      Effect.map(decode(rows), (decoded) => ({
        rows: decoded,
        total,
        next: nextKey(rows, limit)
      }))
    ),
    Effect.orDie
  )

/**
 * A page of one table's rows matching `where` (scoped by account by the caller), newest first with ties by id
 * (docs/api.md "Lists"), and how many match in all: the lists of one table with nothing joined.
 */
export const newestFirstPage = <A, E>(
  sql: SqlClient.SqlClient,
  table: string,
  columns: string,
  where: Statement.Fragment,
  range: PageRange,
  decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, E>
): Effect.Effect<Page<A>> => {
  const { seek, limit } = pageBounds(sql, range, "desc", "uuid")
  return keysetPage(
    sql`
      select ${sql.literal(columns)}, ${sql.literal(KEYSET_AT)} from ${sql.literal(table)} where ${where} ${seek}
      order by created_at desc, id desc ${limit}`,
    range.limit,
    decode,
    sql<{ n: number }>`select count(*)::int as n from ${sql.literal(table)} where ${where}`.pipe(
      Effect.map((r) => r[0]?.n ?? 0)
    )
  )
}

/**
 * Every row of a list, one query of `PAGE_SIZE` per pull: `page(after)` runs the list's query after the
 * key (none: from the start) with `limit` rows, each query scoped by account and served by an index
 * on the list's order, so no query holds a connection while the client reads and none grows with the
 * position. Rows inserted while the stream runs show up if they sort after the current page.
 */
export const keysetStream = <A, E>(
  page: (
    after: Option.Option<ListKey>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<{ readonly [column: string]: unknown }>, E>,
  decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>>
): Stream.Stream<A> =>
  Stream.paginateChunkEffect(Option.none<ListKey>(), (after) => {
    const limit = Option.isNone(after) ? FIRST_PAGE_SIZE : PAGE_SIZE
    return page(after, limit).pipe(
      Effect.orDie,
      Effect.flatMap((rows) => {
        const key = nextKey(rows, limit)
        const next = key === null ? Option.none<Option.Option<ListKey>>() : Option.some(Option.some(key))
        return Effect.map(decode(rows), (records) => [Chunk.unsafeFromArray(records), next] as const)
      }),
      withSpan("keysetStream.page")
    )
  })

/**
 * The conditions of a ListFilter (ports/Page.ts), each `and …`, for a table with `created_at` and,
 * where the filter names them, `status` and `method` columns.
 */
export const listWhere = (sql: SqlClient.SqlClient, filter: ListFilter) =>
  sql`${filter.status === undefined ? sql`` : sql`and status = ${filter.status}`}
    ${filter.method === undefined ? sql`` : sql`and method = ${filter.method}`}
    ${filter.createdFrom === undefined ? sql`` : sql`and created_at >= ${filter.createdFrom}`}
    ${filter.createdBefore === undefined ? sql`` : sql`and created_at < ${filter.createdBefore}`}`
