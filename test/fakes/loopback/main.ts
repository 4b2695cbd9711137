import { startLoopbackFake } from "./server.ts"

/** `npm run fake -- loopback [port]`: the test-only live provider's server, for live mode on a laptop. */
const fake = await startLoopbackFake(Number(process.argv[3] ?? 0))
process.stdout.write(
  `loopback live provider at ${fake.url}\n` +
    `start the gateway with LIVE_LOOPBACK_ALLOWED=true LOOPBACK_PROVIDER_URL=${fake.url} ` +
    `LIVE_ACQUIRERS=loopback LIVE_PIX_PROVIDER=loopback\n`
)
