import { Effect, Option } from "effect"
import type { ParseResult } from "effect"

/**
 * A repository's reads through the schema of its rows, which decodes them at the edge: `rows` answers every
 * row, `first` the first if there is one. A failed statement or a row its schema refuses is a defect (the
 * database and the code disagree), never an error a caller could handle.
 */
export const decodedRows = <A>(decode: (rows: unknown) => Effect.Effect<ReadonlyArray<A>, ParseResult.ParseError>) => {
  const rows = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    query.pipe(Effect.flatMap(decode), Effect.orDie)
  const first = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    Effect.map(rows(query), (found) => Option.fromNullable(found[0]))
  return { rows, first }
}
