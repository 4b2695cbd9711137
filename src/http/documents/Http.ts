import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { formatDigitableLine } from "../../domain/boleto.ts"
import { instructionLines } from "../../domain/chargeTerms.ts"
import { saoPauloDate } from "../../domain/time.ts"
import { DocumentRenderer } from "../../ports/DocumentRenderer.ts"
import { PublicDocuments } from "../../ports/PublicDocuments.ts"
import { GatewayApi } from "../Api.ts"
import { NotFound } from "../shared/errors.ts"

const notFound = NotFound.of({ message: "document not found", code: "not_found" })

// Public but immutable for their token: let browsers and proxies keep them, never share across users.
const headers = { "cache-control": "private, max-age=300" }

export const DocumentsHttp = HttpApiBuilder.group(GatewayApi, "documents", (handlers) =>
  Effect.gen(function* () {
    const documents = yield* PublicDocuments
    const renderer = yield* DocumentRenderer
    return handlers
      .handle("pixQr", ({ path }) =>
        Effect.gen(function* () {
          const t = yield* Effect.flatMap(
            documents.find(path.token, "pix_qr"),
            Option.match({ onNone: () => Effect.fail(notFound), onSome: Effect.succeed })
          )
          const png = yield* renderer.qrPng(t.details.pix!.emv)
          return HttpServerResponse.uint8Array(png, { contentType: "image/png", headers })
        })
      )
      .handle("boletoPdf", ({ path }) =>
        Effect.gen(function* () {
          const { merchant, transaction: t } = yield* Effect.flatMap(
            documents.findWithMerchant(path.token, "boleto_pdf"),
            Option.match({ onNone: () => Effect.fail(notFound), onSome: Effect.succeed })
          )
          const b = t.details.boleto!
          // The gateway holds the bank's collection agreement and is the beneficiário; the merchant the
          // buyer pays is named as sacador/avalista, its final beneficiary (docs/boleto.md).
          const pdf = yield* renderer.boletoPdf({
            beneficiaryName: "Payment Gateway Sandbox",
            beneficiaryDocument: "00000000000191",
            guarantorName: merchant.name,
            guarantorDocument: merchant.document,
            ourNumber: b.ourNumber,
            // The charge terms as banks print them, and the last day it may be paid (docs/boleto.md).
            instructions: [
              `Pagamento de compra em ${merchant.name}. Dúvidas sobre a compra: fale com a loja.`,
              ...instructionLines(
                t.amount,
                b.dueDate,
                b.terms,
                t.expiresAt === null ? b.dueDate : saoPauloDate(t.expiresAt)
              )
            ],
            bankCode: b.bankCode,
            bankName: b.bankName,
            payerName: b.payerName,
            payerDocument: b.payerDocument,
            amountCents: t.amount,
            dueDate: b.dueDate,
            digitableLine: b.digitableLine,
            formattedDigitableLine: formatDigitableLine(b.digitableLine),
            barcode: b.barcode,
            documentNumber: b.ourNumber,
            issuedAt: saoPauloDate(t.createdAt),
            pixEmv: t.details.pix?.emv
          })
          return HttpServerResponse.uint8Array(pdf, { contentType: "application/pdf", headers })
        })
      )
  })
)
