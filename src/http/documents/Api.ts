import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { NotFound } from "../shared/errors.ts"

const token = HttpApiSchema.param("token", Schema.String)

/** What a buyer's browser opens: no API key, the unguessable token in the URL is the credential. */
export class DocumentsApi extends HttpApiGroup.make("documents")
  .add(
    HttpApiEndpoint.get("pixQr")`/pix/${token}/qr.png`
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/png" }))
      .addError(NotFound)
      .annotate(OpenApi.Description, "PNG QR code of exactly the transaction's PIX `emv`.")
  )
  .add(
    HttpApiEndpoint.get("boletoPdf")`/boleto/${token}/boleto.pdf`
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/pdf" }))
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Printable boleto: payer, amount, due date, digitable line and Interleaved 2 of 5 barcode."
      )
  )
  .prefix("/documents")
  .annotate(OpenApi.Title, "Buyer documents") {}
