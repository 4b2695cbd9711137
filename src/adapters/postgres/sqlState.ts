/** The SQLSTATE of a database error anywhere in `value`'s chain of causes (an SqlError wraps pg's). */
export const sqlState = (value: unknown, depth = 0): string | undefined => {
  if (typeof value !== "object" || value === null || depth > 4) return undefined
  const code = (value as { code?: unknown }).code
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code
  return sqlState((value as { cause?: unknown }).cause, depth + 1)
}

/** pg's `detail` beside that SQLSTATE: for a deadlock, which sessions waited on which locks. */
export const sqlDetail = (value: unknown, depth = 0): string | undefined => {
  if (typeof value !== "object" || value === null || depth > 4) return undefined
  const detail = (value as { detail?: unknown }).detail
  if (typeof detail === "string") return detail
  return sqlDetail((value as { cause?: unknown }).cause, depth + 1)
}
