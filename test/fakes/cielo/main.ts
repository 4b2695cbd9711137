/**
 * `npm run fake -- cielo [--api-port N] [--query-port N]`: the fake Cielo alone, for running the
 * gateway against it on a laptop (docs/providers.md). Prints the variables the gateway needs.
 * Faults: `POST {CIELO_API_URL}/__fake/faults {"op":"sale","fault":{"kind":"timeout"},"times":1}`.
 */
import { startFakeCielo } from "./fake.ts"

const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? Number(process.argv[i + 1]) : undefined
}
const apiPort = arg("--api-port")
const queryPort = arg("--query-port")
const fake = await startFakeCielo({
  ...(apiPort === undefined ? {} : { apiPort }),
  ...(queryPort === undefined ? {} : { queryPort })
})
const env = { LIVE_ACQUIRERS: "cielo", ...fake.env() }
process.stdout.write(
  `fake Cielo listening\n${Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n")}\n`
)
const stop = () => void fake.close().then(() => process.exit(0))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
