/**
 * `npm run fake -- <name> [options]` starts one provider's local fake alone, so a developer can run
 * the whole gateway in live mode on a laptop (docs/providers.md). Each fake lives in
 * `test/fakes/<name>/main.ts` and prints the addresses and credentials the gateway needs.
 */
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "fakes")
const available = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort()
const name = process.argv[2]
if (name === undefined || !available.includes(name)) {
  process.stderr.write(`usage: npm run fake -- <${available.join("|")}> [options]\n`)
  process.exit(2)
}
await import(pathToFileURL(join(root, name, "main.ts")).href)
