/**
 * Throwaway certificates for mTLS in tests and on a developer's laptop: one CA playing the PSP's (it issues
 * the PSP's server certificate, the merchant's client certificate and the certificate the PSP presents
 * when it calls our webhook). Built with node-forge, no openssl binary; key files are written mode 600,
 * as the adapter demands (docs/providers.md).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import forge from "node-forge"

export interface Issued {
  readonly certPem: string
  readonly keyPem: string
}

export interface PixTestCertificates {
  readonly dir: string
  readonly ca: Issued
  /** The PSP's HTTPS server (localhost, 127.0.0.1). */
  readonly server: Issued
  /** The merchant's client certificate, which the PSP demands. */
  readonly merchant: Issued
  /** The PSP's client certificate for its webhook calls. */
  readonly webhookClient: Issued
  /** A certificate from another CA: what an impostor presents. */
  readonly stranger: Issued
  readonly files: {
    readonly caCert: string
    readonly merchantCert: string
    readonly merchantKey: string
    readonly merchantPkcs12: string
    readonly webhookClientCert: string
    readonly webhookClientKey: string
    readonly serverCert: string
    readonly serverKey: string
  }
  readonly pkcs12Passphrase: string
}

let serial = 1

const issue = (
  commonName: string,
  issuer: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } | null,
  extensions: ReadonlyArray<object>
) => {
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 })
  const cert = forge.pki.createCertificate()
  cert.publicKey = keys.publicKey
  cert.serialNumber = (serial++).toString(16).padStart(2, "0") + forge.util.bytesToHex(forge.random.getBytesSync(8))
  cert.validity.notBefore = new Date(Date.now() - 60_000)
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000)
  const subject = [{ name: "commonName", value: commonName }]
  cert.setSubject(subject)
  cert.setIssuer(issuer === null ? subject : issuer.cert.subject.attributes)
  cert.setExtensions([...extensions])
  cert.sign(issuer === null ? keys.privateKey : issuer.key, forge.md.sha256.create())
  return { cert, key: keys.privateKey }
}

const pem = (issued: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey }): Issued => ({
  certPem: forge.pki.certificateToPem(issued.cert),
  keyPem: forge.pki.privateKeyToPem(issued.key)
})

const caExtensions = [
  { name: "basicConstraints", cA: true },
  { name: "keyUsage", keyCertSign: true, cRLSign: true }
]

export const makeCertificates = (): PixTestCertificates => {
  const ca = issue("Fake PSP test CA", null, caExtensions)
  const server = issue("localhost", ca, [
    { name: "basicConstraints", cA: false },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: [
        { type: 2, value: "localhost" },
        { type: 7, ip: "127.0.0.1" }
      ]
    }
  ])
  const client = (cn: string, by = ca) =>
    issue(cn, by, [
      { name: "basicConstraints", cA: false },
      { name: "extKeyUsage", clientAuth: true }
    ])
  const merchant = client("merchant-client")
  const webhookClient = client("psp-webhook-client")
  const otherCa = issue("Some other CA", null, caExtensions)
  const stranger = client("stranger", otherCa)

  const dir = mkdtempSync(join(tmpdir(), "pix-certs-"))
  const write = (name: string, content: string | Buffer, secret: boolean) => {
    const path = join(dir, name)
    writeFileSync(path, content, { mode: secret ? 0o600 : 0o644 })
    return path
  }
  const pkcs12Passphrase = "test-passphrase"
  const p12 = forge.pkcs12.toPkcs12Asn1(merchant.key, [merchant.cert], pkcs12Passphrase, { algorithm: "3des" })
  const issued = {
    ca: pem(ca),
    server: pem(server),
    merchant: pem(merchant),
    webhookClient: pem(webhookClient),
    stranger: pem(stranger)
  }
  return {
    dir,
    ...issued,
    pkcs12Passphrase,
    files: {
      caCert: write("ca.crt", issued.ca.certPem, false),
      merchantCert: write("merchant.crt", issued.merchant.certPem, false),
      merchantKey: write("merchant.key", issued.merchant.keyPem, true),
      merchantPkcs12: write("merchant.p12", Buffer.from(forge.asn1.toDer(p12).getBytes(), "binary"), true),
      webhookClientCert: write("webhook-client.crt", issued.webhookClient.certPem, false),
      webhookClientKey: write("webhook-client.key", issued.webhookClient.keyPem, true),
      serverCert: write("server.crt", issued.server.certPem, false),
      serverKey: write("server.key", issued.server.keyPem, true)
    }
  }
}
