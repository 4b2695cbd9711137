/**
 * Pages of a list (CONTRACT-v1 §1 pagination; issue 10 keyset pages), in the words every repository's
 * `page` shares.
 */

/** Where a page stopped: its last row's `created_at` (PostgreSQL's text, microseconds kept) and id. */
export interface ListKey {
  readonly at: string
  readonly id: string
}

/**
 * Which rows a page holds: `offset` rows in, or, given `after` (where the page before stopped), the
 * `limit` rows after it by the list's index, a seek whose cost does not grow with the depth.
 */
export interface PageRange {
  readonly offset: number
  readonly limit: number
  readonly after?: ListKey | undefined
}

/** A page, how many rows match in all, and where it stopped when it is full (null on a short page). */
export interface Page<A> {
  readonly rows: ReadonlyArray<A>
  readonly total: number
  readonly next: ListKey | null
}

/**
 * What a list of /api keeps (docs/api.md "Lists"): rows created in [createdFrom, createdBefore), and
 * with this status and method where the resource has them. Nothing set: every row.
 */
export interface ListFilter {
  readonly status?: string | undefined
  readonly method?: string | undefined
  readonly createdFrom?: Date | undefined
  readonly createdBefore?: Date | undefined
}
