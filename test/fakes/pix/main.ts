/**
 * `npm run fake -- pix [profile] [port]`: the fake PSP alone, for running the gateway with
 * LIVE_PIX_PROVIDER=bcb-pix on a laptop (docs/providers.md). Prints the variables the gateway needs and the
 * control address (pay a charge, inject faults, settle refunds).
 */
import { makeCertificates } from "./certs.ts"
import { startControl, startFakePsp } from "./server.ts"

const profile = process.argv[3] ?? "efi"
const port = Number(process.argv[4] ?? "0")
const certificates = makeCertificates()
const psp = await startFakePsp({ profile, certificates, port })
const control = await startControl(psp)
const lines = [
  `fake PSP (${profile}) on ${psp.url}; control on ${control.url}`,
  "gateway variables:",
  `  LIVE_PIX_PROVIDER=bcb-pix PIX_PSP=${profile} PIX_ENVIRONMENT=homologation PIX_API_URL=${psp.url}`,
  `  PIX_CLIENT_ID=${psp.clientId} PIX_CLIENT_SECRET=${psp.clientSecret} PIX_KEY=${psp.pixKey}`,
  `  PIX_APP_KEY=${psp.appKey} PIX_ACCOUNT=${psp.account}`,
  `  PIX_CERT_FILE=${certificates.files.merchantCert} PIX_KEY_FILE=${certificates.files.merchantKey}`,
  `  PIX_CA_FILE=${certificates.files.caCert}`,
  "  for its notices (the fake's client certificate is from the same CA; register with the CLI):",
  `  PIX_WEBHOOK_PORT=8443 PIX_WEBHOOK_CA_FILE=${certificates.files.caCert}`,
  `  PIX_WEBHOOK_TLS_CERT_FILE=${certificates.files.serverCert}`,
  `  PIX_WEBHOOK_TLS_KEY_FILE=${certificates.files.serverKey}`,
  "  PIX_WEBHOOK_URL=https://127.0.0.1:8443/providers/pix/<profile>/webhook",
  `pay a charge: curl -X POST ${control.url}/pay/<txid>`
]
process.stdout.write(lines.join("\n") + "\n")
const stop = () => void Promise.all([psp.close(), control.close()]).then(() => process.exit(0))
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
