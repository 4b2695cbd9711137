import { Clock, Effect, Layer, Schema } from "effect"
import {
  PixProvider,
  type PixChargeRequest,
  type PixDueChargeRequest,
  type PixChargeState,
  type PixChargeStatus,
  type PixRefundState,
  type ReceivedPix
} from "../../../ports/PixProvider.ts"
import { withSpan } from "../../../spans.ts"
import { BcbPixConfig } from "./config.ts"
import { makeClient, type PixClient, type PixError, refused, unreadable } from "./client.ts"
import { cobvValue } from "../../../domain/chargeTerms.ts"
import { CobGerada, CobVGerada, Devolucao, Pix, PixConsultados, toCentavos, toValor } from "./wire.ts"

/**
 * The txid of a charge: our transaction id's letters and digits, within the API's `[a-zA-Z0-9]{26,35}`.
 * A UUID gives its 32 hex digits; the same transaction always gives the same txid, so `PUT /cob/{txid}` is
 * idempotent by construction.
 */
export const txidFor = (transactionId: string): string =>
  transactionId
    .replace(/[^A-Za-z0-9]/g, "")
    .padEnd(26, "0")
    .slice(0, 35)

/** The devolução id of a refund: our refund id's letters and digits (`[a-zA-Z0-9]{1,35}`). */
export const devolucaoIdFor = (refundId: string): string => refundId.replace(/[^A-Za-z0-9]/g, "").slice(0, 35)

const chargeStatusOf: Record<CobGerada["status"], PixChargeStatus> = {
  ATIVA: "OPEN",
  CONCLUIDA: "PAID",
  REMOVIDA_PELO_USUARIO_RECEBEDOR: "REMOVED_BY_RECEIVER",
  REMOVIDA_PELO_PSP: "REMOVED_BY_PSP"
}

const refundStatusOf = {
  EM_PROCESSAMENTO: "PROCESSING",
  DEVOLVIDO: "RETURNED",
  NAO_REALIZADO: "NOT_RETURNED"
} as const

const dateOr = (s: string | undefined): Date | null => {
  if (s === undefined) return null
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? null : d
}

/**
 * Our refund id from a devolução id: the 32 hex digits `devolucaoIdFor` made of a UUID are that UUID again;
 * any other id (a devolução made in the PSP's own portal) is passed as it is, and names no refund of ours.
 */
export const refundIdOf = (devolucaoId: string): string => {
  const m = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/i.exec(devolucaoId)
  return m === null ? devolucaoId : m.slice(1).join("-").toLowerCase()
}

export const refundOf = (d: Devolucao): PixRefundState => ({
  refundId: refundIdOf(d.id),
  amount: toCentavos(d.valor),
  status: refundStatusOf[d.status],
  settledAt: dateOr(d.horario?.liquidacao),
  reason: d.motivo ?? null
})

export const receivedOf = (p: Pix): ReceivedPix => ({
  endToEndId: p.endToEndId,
  txid: p.txid ?? null,
  amount: toCentavos(p.valor),
  paidAt: dateOr(p.horario) ?? new Date(0),
  refunds: (p.devolucoes ?? []).map(refundOf)
})

/**
 * A `cob` or a `cobv` as the port sees it: its status and the payments the PSP attributes to it, each named
 * by the charge's txid: the spec's `Pix.txid` is optional, and a payment the inbox cannot match to its
 * charge would be claimed as an unknown one, so that the charge's own notice is a duplicate and the charge
 * expires paid.
 */
const stateOf = (cob: CobGerada | CobVGerada): PixChargeState => ({
  txid: cob.txid,
  status: chargeStatusOf[cob.status],
  payments: (cob.pix ?? []).map((p) => ({ ...receivedOf(p), txid: p.txid ?? cob.txid }))
})

const decode =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (body: string): Effect.Effect<A, PixError> =>
    Schema.decodeUnknown(Schema.parseJson(schema))(body).pipe(Effect.mapError(unreadable))

const unknownCharge = () => refused("pix_charge_unknown", "the PIX provider does not know this charge")

/** The seconds from now to `expiresAt` (at least one: the API requires a positive `expiracao`). */
const secondsUntil = (expiresAt: Date, now: number) => Math.max(1, Math.ceil((expiresAt.getTime() - now) / 1000))

export const makeBcbPixProvider = (client: PixClient, pixKey: string, registration: "api" | "manual" = "api") => {
  const getCob = (txid: string) =>
    client.call("GET", `/cob/${txid}`, { notFound: unknownCharge }).pipe(Effect.flatMap(decode(CobGerada)))

  const createCharge = (request: PixChargeRequest) =>
    Effect.gen(function* () {
      const txid = txidFor(request.transactionId)
      const now = yield* Clock.currentTimeMillis
      const payer = request.payer === undefined ? null : yield* request.payer
      const body = {
        calendario: { expiracao: secondsUntil(request.expiresAt, now) },
        ...(payer === null
          ? {}
          : {
              devedor: {
                [payer.documentType]: payer.document,
                nome: payer.name.slice(0, 200)
              }
            }),
        valor: { original: toValor(request.amount) },
        chave: pixKey
      }
      const put = client.call("PUT", `/cob/${txid}`, { body }).pipe(Effect.flatMap(decode(CobGerada)))
      // The PUT is keyed by our txid: a dropped answer is asked again, and a refusal because the txid is
      // already taken (our own earlier PUT that committed) is read back and accepted when it is this charge.
      const cob = yield* put.pipe(
        Effect.catchTag("ProviderUnavailable", () => put),
        Effect.catchTag("Unprocessable", (error) =>
          getCob(txid).pipe(
            Effect.orElseFail(() => error),
            Effect.filterOrFail(
              (existing) => existing.valor.original === body.valor.original && existing.status === "ATIVA",
              () => error
            )
          )
        )
      )
      if (cob.pixCopiaECola === undefined) return yield* unreadable()
      // The BR Code the buyer sees is the PSP's own (dynamic, pointing at its `location`), never rebuilt here.
      return { emv: cob.pixCopiaECola, txid: cob.txid }
    })

  /**
   * A bolepix's PIX side: `PUT /cobv/{txid}` with the boleto's due date, amount and terms (`cobvValue`, the
   * one-to-one map of docs/boleto.md), keyed by the same txid as a `cob` would be, so a retry is the same charge.
   */
  const createDueCharge = (request: PixDueChargeRequest) =>
    Effect.gen(function* () {
      const txid = txidFor(request.transactionId)
      const body = {
        calendario: {
          dataDeVencimento: request.dueDate,
          validadeAposVencimento: request.payableDaysAfterDue
        },
        devedor: { [request.payer.documentType]: request.payer.document, nome: request.payer.name.slice(0, 200) },
        valor: {
          original: toValor(request.amount),
          ...(request.terms === undefined ? {} : cobvValue(request.terms))
        },
        chave: pixKey
      }
      const put = client.call("PUT", `/cobv/${txid}`, { body }).pipe(Effect.flatMap(decode(CobVGerada)))
      const cobv = yield* put.pipe(
        Effect.catchTag("ProviderUnavailable", () => put),
        Effect.catchTag("Unprocessable", (error) =>
          client.call("GET", `/cobv/${txid}`).pipe(
            Effect.flatMap(decode(CobVGerada)),
            Effect.orElseFail(() => error),
            Effect.filterOrFail(
              (existing) => existing.valor.original === body.valor.original && existing.status === "ATIVA",
              () => error
            )
          )
        )
      )
      if (cobv.pixCopiaECola === undefined) return yield* unreadable()
      return { emv: cobv.pixCopiaECola, txid: cobv.txid, key: pixKey }
    })

  const cancelCharge = (txid: string) =>
    client
      .call("PATCH", `/cob/${txid}`, { body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" }, notFound: unknownCharge })
      .pipe(
        Effect.flatMap(decode(CobGerada)),
        Effect.map(stateOf),
        // A charge paid (or withdrawn) meanwhile cannot be withdrawn: its state now is the answer.
        Effect.catchTag("Unprocessable", (error) =>
          error.code === "pix_charge_unknown" ? Effect.fail(error) : getCob(txid).pipe(Effect.map(stateOf))
        )
      )

  const getCobv = (txid: string) =>
    client.call("GET", `/cobv/${txid}`, { notFound: unknownCharge }).pipe(Effect.flatMap(decode(CobVGerada)))

  /**
   * A bolepix's `cobv` withdrawn: `PATCH /cobv/{txid}` with the status alone (CobVRevisada: withdrawing it
   * with other changes is refused). The PSP refuses it (400 CobVOperacaoInvalida) once the charge is no
   * longer ATIVA — paid, or withdrawn by an earlier try whose answer was lost — so a refusal is read back
   * with `GET /cobv/{txid}` and that state is the answer. Read back still ATIVA, the refusal was about
   * something else: it stands.
   */
  const withdrawDueCharge = (txid: string) =>
    client
      .call("PATCH", `/cobv/${txid}`, { body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" }, notFound: unknownCharge })
      .pipe(
        Effect.flatMap(decode(CobVGerada)),
        Effect.map(stateOf),
        Effect.catchTag("Unprocessable", (error) =>
          error.code === "pix_charge_unknown"
            ? Effect.fail(error)
            : getCobv(txid).pipe(
                Effect.map(stateOf),
                Effect.filterOrFail(
                  (state) => state.status !== "OPEN",
                  () => error
                )
              )
        )
      )

  const refund = (request: {
    readonly txid: string
    readonly endToEndId?: string | null | undefined
    readonly refundId: string
    readonly amount: number
  }) =>
    Effect.gen(function* () {
      const endToEndId =
        request.endToEndId ??
        (yield* getCob(request.txid).pipe(
          Effect.flatMap((cob) => {
            const paid = cob.pix?.[0]
            return paid === undefined
              ? Effect.fail(refused("pix_not_paid", "the PIX provider has no payment for this charge"))
              : Effect.succeed(paid.endToEndId)
          })
        ))
      const id = devolucaoIdFor(request.refundId)
      const put = client
        .call("PUT", `/pix/${endToEndId}/devolucao/${id}`, { body: { valor: toValor(request.amount) } })
        .pipe(Effect.flatMap(decode(Devolucao)))
      // Same id on a retry (rails-research §1.5); an id already used by our own committed PUT is read back.
      const done = yield* put.pipe(
        Effect.catchTag("ProviderUnavailable", () => put),
        Effect.catchTag("Unprocessable", (error) =>
          client.call("GET", `/pix/${endToEndId}/devolucao/${id}`).pipe(
            Effect.flatMap(decode(Devolucao)),
            // Unreadable for now, the devolução may well exist (our PUT committed): undecided, not refused.
            Effect.catchAll((readBack): Effect.Effect<never, PixError> =>
              Effect.fail(readBack._tag === "ProviderUnavailable" ? readBack : error)
            ),
            Effect.filterOrFail(
              (d) => d.valor === toValor(request.amount),
              () => error
            )
          )
        )
      )
      return { ...refundOf(done), refundId: request.refundId }
    })

  const refundStatus = (request: { readonly endToEndId: string; readonly refundId: string }) =>
    client
      .call("GET", `/pix/${request.endToEndId}/devolucao/${devolucaoIdFor(request.refundId)}`, {
        notFound: () => refused("pix_refund_unknown", "the PIX provider does not know this refund")
      })
      .pipe(
        Effect.flatMap(decode(Devolucao)),
        Effect.map((d) => ({ ...refundOf(d), refundId: request.refundId }))
      )

  const receivedPayments = (window: { readonly from: Date; readonly to: Date }) =>
    Effect.gen(function* () {
      const all: Array<ReceivedPix> = []
      for (let page = 0; ; page++) {
        const listed = yield* client
          .call("GET", "/pix", {
            query: {
              inicio: window.from.toISOString(),
              fim: window.to.toISOString(),
              "paginacao.paginaAtual": String(page)
            }
          })
          .pipe(Effect.flatMap(decode(PixConsultados)))
        all.push(...listed.pix.map(receivedOf))
        if (page + 1 >= listed.parametros.paginacao.quantidadeDePaginas || page >= 999) return all
      }
    })

  const registerNotifications = (url: string) =>
    registration === "manual"
      ? Effect.fail(
          refused("pix_webhook_manual", "this PSP registers notice URLs by its staff: ask it to register the URL")
        )
      : client.call("PUT", `/webhook/${encodeURIComponent(pixKey)}`, { body: { webhookUrl: url } }).pipe(Effect.asVoid)

  return PixProvider.of({
    registerNotifications: (url) => registerNotifications(url).pipe(withSpan("BcbPixProvider.registerNotifications")),
    createCharge: (request) => createCharge(request).pipe(withSpan("BcbPixProvider.createCharge")),
    createDueCharge: (request) => createDueCharge(request).pipe(withSpan("BcbPixProvider.createDueCharge")),
    chargeStatus: (txid) => getCob(txid).pipe(Effect.map(stateOf), withSpan("BcbPixProvider.chargeStatus")),
    cancelCharge: (txid) => cancelCharge(txid).pipe(withSpan("BcbPixProvider.cancelCharge")),
    withdrawDueCharge: (txid) => withdrawDueCharge(txid).pipe(withSpan("BcbPixProvider.withdrawDueCharge")),
    refund: (request) => refund(request).pipe(withSpan("BcbPixProvider.refund")),
    refundStatus: (request) => refundStatus(request).pipe(withSpan("BcbPixProvider.refundStatus")),
    receivedPayments: (window) => receivedPayments(window).pipe(withSpan("BcbPixProvider.receivedPayments"))
  })
}

/** The adapter from the environment (docs/configuration.md, PIX_*); a bad configuration stops start-up. */
export const BcbPixProviderLive = Layer.scoped(
  PixProvider,
  Effect.gen(function* () {
    const config = yield* BcbPixConfig
    const client = yield* makeClient(config)
    return makeBcbPixProvider(client, config.pixKey, config.profile.webhookRegistration)
  }).pipe(Effect.orDie)
)
