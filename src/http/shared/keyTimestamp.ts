const AT = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?[+-](0\d|1[0-5])(:[0-5]\d)?$/

/**
 * `created_at::text` as PostgreSQL writes it, of a real instant PostgreSQL takes back: a list cursor's key
 * goes back to the database as `::timestamptz`, which fails (a 500) on 2026-02-30, 25:00, an offset past
 * ±15:59 or the year 0, where this says no (both cursors: keysetCursor.ts, v1/cursor.ts).
 */
export const isKeyTimestamp = (text: string): boolean => {
  const m = AT.exec(text)
  if (m === null) return false
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s))
  return (
    y >= 1000 &&
    t.getUTCFullYear() === y &&
    t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi &&
    t.getUTCSeconds() === s
  )
}
