/**
 * `npm run fake -- rede [--port N]`: the fake e.Rede alone (docs/providers.md). Prints the variables
 * the gateway needs. Faults: `POST {REDE_API_URL}/__fake/faults {"op":"transaction","fault":{"kind":"drop"}}`.
 */
import { startFakeRede } from "./fake.ts"

const i = process.argv.indexOf("--port")
const port = i >= 0 ? Number(process.argv[i + 1]) : undefined
const fake = await startFakeRede(port === undefined ? {} : { port })
const env = { LIVE_ACQUIRERS: "rede", ...fake.env() }
process.stdout.write(
  `fake e.Rede listening\n${Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n")}\n`
)
const stop = () => void fake.close().then(() => process.exit(0))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
