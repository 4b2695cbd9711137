import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import pg from "pg"
import { freePort } from "../test/support/config.ts"

/** What `npm run bench` and `npm run bench:soak` both set up. */

/** A new database on `serverUrl`'s server, named `gw_<prefix>_…`; its URL. */
export const freshDatabase = async (serverUrl: string, prefix: string) => {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  const name = `gw_${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** The body of a PIX `POST /api/payment-gateway/process` for an order. */
export const pixProcessBody = (orderId: string, amount: number) => ({
  orderId,
  method: "PIX",
  amount,
  buyerDoc: "52998224725",
  buyerCellNumber: "11912345678",
  buyerAddress: {
    postal_code: "01310100",
    street: "Av Paulista",
    number: "1",
    neighborhood: "Bela Vista",
    city: "São Paulo",
    state: "SP"
  }
})

/**
 * The API role as its own process (`src/main.ts api`, through tsx as `npm start` runs it) on
 * `databaseUrl`, its data in `dir`, ready (`/ready` 200) when this resolves; `nodeFlags` go to its node.
 */
export const startBenchApi = async (databaseUrl: string, dir: string, nodeFlags: ReadonlyArray<string> = []) => {
  const port = await freePort()
  const service = spawn(process.execPath, [...nodeFlags, "--import", "tsx", "src/main.ts", "api"], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: join(dir, "data"),
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warning",
      RATE_LIMIT_PER_MINUTE: "1000000"
    },
    stdio: ["ignore", "inherit", "inherit"]
  })
  const baseUrl = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    const ready = await fetch(`${baseUrl}/ready`).then(
      (r) => r.status === 200,
      () => false
    )
    if (ready) break
    if (i > 600) {
      service.kill("SIGTERM")
      throw new Error("the service did not become ready")
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { service, baseUrl }
}
