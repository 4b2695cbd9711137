import { randomUUID } from "node:crypto"
import pg from "pg"

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
