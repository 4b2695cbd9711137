/**
 * The fake PSP follows the API Pix, not our adapter: every request it receives and every answer it gives in
 * a scripted session (through the bcb-pix adapter and the fake's levers, errors included) is validated
 * against ../shared/specs/bcb-pix-api-2.9.0.yaml by openapi-backend. The spec is used from there and never
 * copied; where it is absent the test says so and skips. The spec's known errata (rails-research appendix)
 * are corrected, each by its name, before validating.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { randomUUID } from "node:crypto"
import { ConfigProvider, Effect, Layer } from "effect"
import { OpenAPIBackend } from "openapi-backend"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { BcbPixProviderLive } from "../../../src/adapters/providers/bcb-pix/BcbPixProvider.ts"
import { PixProvider } from "../../../src/ports/PixProvider.ts"
import { makeCertificates } from "./certs.ts"
import { type FakePsp, gatewayEnv, startFakePsp } from "./server.ts"

// Beside the checkout; a git worktree elsewhere names it with BCB_PIX_SPEC.
const SPEC =
  process.env.BCB_PIX_SPEC ??
  join(import.meta.dirname, "..", "..", "..", "..", "shared", "specs", "bcb-pix-api-2.9.0.yaml")

type Json = Record<string, unknown>
const walk = (node: unknown, visit: (o: Json) => void) => {
  if (Array.isArray(node)) for (const x of node) walk(x, visit)
  else if (node !== null && typeof node === "object") {
    visit(node as Json)
    for (const v of Object.values(node)) walk(v, visit)
  }
}

/** The rails-research appendix's corrections, by id: the smallest change that makes the YAML mean what it says. */
const errata: Record<string, (spec: Json) => void> = {
  "slash-delimited-patterns": (spec) =>
    walk(spec, (o) => {
      if (typeof o.pattern === "string" && /^\/.*\/$/.test(o.pattern)) o.pattern = o.pattern.slice(1, -1)
    }),
  "anchor-patterns": (spec) =>
    walk(spec, (o) => {
      if (typeof o.pattern === "string" && !o.pattern.startsWith("^")) o.pattern = `^(?:${o.pattern})$`
    }),
  "location-without-scheme": (spec) =>
    walk(spec, (o) => {
      const location = (o.properties as Json | undefined)?.location as Json | undefined
      if (location?.format === "uri") delete location.format
    }),
  // A cobv's answer carries `recebedor`; the YAML requires its address one level too high.
  "recebedor-required-misplaced": (spec) => {
    const schema = ((spec.components as Json).schemas as Json).DadosRecebedor as Json
    delete schema.required
  },
  "pixconsultados-requires-pix": (spec) => {
    const schema = ((spec.components as Json).schemas as Json).PixConsultados as Json
    schema.required = ["parametros"]
  }
}

const specPresent = existsSync(SPEC)
if (!specPresent) console.warn(`contract test skipped: ${SPEC} is absent`)

describe.skipIf(!specPresent)("the fake PSP against the API Pix 2.9.0 OpenAPI", () => {
  let psp: FakePsp
  let api: OpenAPIBackend
  const certificates = specPresent ? makeCertificates() : undefined

  beforeAll(async () => {
    const spec = parse(readFileSync(SPEC, "utf8")) as Json
    for (const fix of Object.values(errata)) fix(spec)
    // The spec names no operationId; the validator needs one per operation.
    for (const [path, item] of Object.entries(spec.paths as Record<string, Json>))
      for (const [method, op] of Object.entries(item))
        if (method !== "parameters" && (op as Json).operationId === undefined)
          (op as Json).operationId = `${method} ${path}`
    api = new OpenAPIBackend({ definition: spec as never, strict: false, quick: false, validate: true })
    await api.init()
    psp = await startFakePsp({ profile: "efi", certificates: certificates! })
  })
  afterAll(() => psp?.close())

  it("every request and answer of a session (charges, payments, refunds, webhook, errors) is the spec's", async () => {
    const layer = BcbPixProviderLive.pipe(
      Layer.provide(
        Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(gatewayEnv(psp, certificates!)))))
      )
    )
    await Effect.runPromise(
      Effect.gen(function* () {
        const pix = yield* PixProvider
        const make = (amount: number, payer: boolean) =>
          pix.createCharge({
            transactionId: randomUUID(),
            amount,
            expiresAt: new Date(Date.now() + 600_000),
            merchantName: "Loja",
            merchantCity: "Sao Paulo",
            payer: Effect.succeed(
              payer ? { name: "Empresa Ltda", document: "11222333000181", documentType: "cnpj" } : null
            )
          })
        const a = yield* make(1_050, true)
        yield* make(2_000, false)
        const b = yield* make(3_000, false)
        yield* pix.chargeStatus(a.txid)
        const e2e = yield* Effect.promise(() => psp.pay(a.txid, { notify: false }))
        // A second payer of the same charge: `CobCompleta.pix` lists both.
        yield* Effect.promise(() => psp.pay(a.txid, { notify: false, again: true }))
        yield* pix.chargeStatus(a.txid)
        yield* pix.cancelCharge(b.txid)
        yield* pix.cancelCharge(a.txid) // refused (paid), then read back
        const refundId = randomUUID()
        yield* pix.refund({ txid: a.txid, refundId, amount: 50 })
        yield* pix.refund({ txid: a.txid, endToEndId: e2e, refundId, amount: 50 }) // id reused: refused, read back
        yield* Effect.promise(() => psp.settleRefund(e2e, refundId.replace(/-/g, ""), "DEVOLVIDO", { notify: false }))
        yield* pix.refundStatus({ endToEndId: e2e, refundId })
        yield* pix.receivedPayments({ from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000) })
        yield* Effect.either(pix.chargeStatus("unknownunknownunknownunknown0"))
        yield* pix.registerNotifications("https://gateway.example.com/providers/pix/efi/webhook")
        // A bolepix's due-date charge (cobv) with every term, asked twice (the second PUT refused, read back).
        const due = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10)
        const dueCharge = {
          transactionId: randomUUID(),
          amount: 100_000,
          dueDate: due,
          payableDaysAfterDue: 30,
          terms: {
            fine: { kind: "percentage" as const, value: 200 },
            interest: { kind: "percentage_per_month" as const, value: 100 },
            discounts: [{ kind: "fixed" as const, value: 5_000, until: due }],
            abatement: { kind: "fixed" as const, value: 1_000 }
          },
          merchantName: "Loja",
          merchantCity: "Sao Paulo",
          payer: { name: "Ana Souza", document: "52998224725", documentType: "cpf" as const }
        }
        const v = yield* pix.createDueCharge(dueCharge)
        yield* pix.createDueCharge(dueCharge)
        yield* Effect.promise(() => psp.pay(v.txid, { notify: false, amount: 94_000 }))
        // Withdrawn (PATCH /cobv/{txid} with the status alone); a paid one refused (400), then read back.
        const w = yield* pix.createDueCharge({ ...dueCharge, transactionId: randomUUID() })
        yield* pix.withdrawDueCharge(w.txid)
        yield* pix.withdrawDueCharge(v.txid)
      }).pipe(Effect.provide(layer))
    )

    const problems: Array<string> = []
    const seen = new Set<string>()
    for (const x of psp.exchanges) {
      const request = { method: x.method, path: x.path, query: x.query, body: x.requestBody, headers: {} }
      const operation = api.matchOperation(request)
      if (operation === undefined) {
        problems.push(`${x.method} ${x.path}: no such operation`)
        continue
      }
      seen.add(`${operation.operationId ?? operation.path} ${x.status}`)
      const req = api.validateRequest(request, operation)
      if (!req.valid) problems.push(`${x.method} ${x.path} request: ${JSON.stringify(req.errors)}`)
      if (x.status === 0) continue // the answer was dropped on purpose
      const res = api.validateResponse(x.responseBody, operation, x.status)
      if (!res.valid) problems.push(`${x.method} ${x.path} → ${x.status}: ${JSON.stringify(res.errors)}`)
    }
    expect(problems).toEqual([])
    // The session did reach the operations it claims to cover, including refusals.
    expect(psp.exchanges.length).toBeGreaterThanOrEqual(17)
    expect([...seen].filter((s) => s.includes("/cobv/{txid}")).sort()).toEqual([
      "get /cobv/{txid} 200",
      "patch /cobv/{txid} 200",
      "patch /cobv/{txid} 400",
      "put /cobv/{txid} 201",
      "put /cobv/{txid} 400"
    ])
    expect([...seen].some((s) => s.endsWith(" 404"))).toBe(true)
    expect([...seen].some((s) => s.endsWith(" 400"))).toBe(true)
  })
})
