/** The loader hook of test/support/loaded-modules.mjs (hooks run in a thread of their own). */
import { appendFileSync } from "node:fs"

export const load = async (url, context, next) => {
  const result = await next(url, context)
  if (process.env.LOADED_MODULES_FILE) appendFileSync(process.env.LOADED_MODULES_FILE, `${url}\n`)
  return result
}
