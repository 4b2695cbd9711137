import { Chunk, Effect, Option, Stream } from "effect"
import type { ListKey } from "../../ports/TransactionRepo.ts"
import { withSpan } from "../../spans.ts"

/**
 * Rows per query of a streamed list: big enough to amortise a round trip, small enough that decoding and
 * encoding one page holds the event loop for a few milliseconds only (other requests share it). The first
 * page is smaller so that the first byte leaves soon.
 */
export const PAGE_SIZE = 500
const FIRST_PAGE_SIZE = 100

/**
 * Where a page stopped (`ListKey`): the last row's `created_at` as PostgreSQL's own text (a JS Date would
 * lose the microseconds and repeat or skip rows at a page boundary) and its id, which makes the order
 * unique.
 */
export type Keyset = ListKey

/** The key of a row read with `KEYSET_AT` in its select list. */
export const keyOf = (row: { readonly [column: string]: unknown }): Keyset => ({
  at: String(row["keysetAt"]),
  id: String(row["id"])
})

/** The select list's extra column that a keyset page reads its key from (camelCased: `keysetAt`). */
export const KEYSET_AT = "created_at::text as keyset_at"

/**
 * Every row of a list, one query of `PAGE_SIZE` per pull: `page(after)` runs the list's query after the
 * key (none: from the start) with `limit` rows, each query scoped by account and served by an index
 * on the list's order, so no query holds a connection while the client reads and none grows with the
 * position. Rows inserted while the stream runs show up if they sort after the current page.
 */
export const keysetStream = <A, E>(
  page: (
    after: Option.Option<Keyset>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<{ readonly [column: string]: unknown }>, E>,
  decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>>
): Stream.Stream<A> =>
  Stream.paginateChunkEffect(Option.none<Keyset>(), (after) => {
    const limit = Option.isNone(after) ? FIRST_PAGE_SIZE : PAGE_SIZE
    return page(after, limit).pipe(
      Effect.orDie,
      Effect.flatMap((rows) => {
        const last = rows[rows.length - 1]
        const next =
          rows.length < limit || last === undefined
            ? Option.none<Option.Option<Keyset>>()
            : Option.some(Option.some(keyOf(last)))
        return Effect.map(decode(rows), (records) => [Chunk.unsafeFromArray(records), next] as const)
      }),
      withSpan("keysetStream.page")
    )
  })
