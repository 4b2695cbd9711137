/**
 * The instant an ISO 8601 date-time with its offset (`Z`, ±HH:MM or ±HHMM) writes, or undefined when it writes
 * none: JavaScript rolls an impossible day or hour over (2026-02-30 becomes 03-02, 24:00 the next day)
 * where PostgreSQL refuses it, so a key that goes back to the database as ::timestamptz (a 500 there), or a
 * bound taken silently as another day, is refused here. The written calendar day must be the instant's
 * day at the written offset.
 */
export const instantOf = (iso: string): Date | undefined => {
  const date = new Date(iso)
  const offset = /(Z|([+-])(\d{2}):?(\d{2}))$/i.exec(iso)
  if (Number.isNaN(date.getTime()) || offset === null) return undefined
  const minutes =
    offset[2] === undefined ? 0 : (offset[2] === "-" ? -1 : 1) * (Number(offset[3]) * 60 + Number(offset[4]))
  const [y, m, d] = iso.slice(0, 10).split("-").map(Number) as [number, number, number]
  const local = new Date(date.getTime() + minutes * 60_000)
  return local.getUTCFullYear() === y && local.getUTCMonth() === m - 1 && local.getUTCDate() === d ? date : undefined
}
