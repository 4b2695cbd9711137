import { Context, type Effect } from "effect"

/** What a printed boleto shows (FEBRABAN layout). */
export interface BoletoSlip {
  readonly beneficiaryName: string
  readonly beneficiaryDocument: string
  readonly bankCode: string
  readonly bankName: string
  readonly payerName: string
  readonly payerDocument: string
  readonly amountCents: number
  readonly dueDate: string
  readonly digitableLine: string
  readonly formattedDigitableLine: string
  readonly barcode: string
  readonly documentNumber: string
  readonly issuedAt: string
}

/** The buyer's documents: the PIX QR image of a BR Code and the boleto PDF. */
export class DocumentRenderer extends Context.Tag("DocumentRenderer")<
  DocumentRenderer,
  {
    readonly qrPng: (emv: string) => Effect.Effect<Uint8Array>
    readonly boletoPdf: (slip: BoletoSlip) => Effect.Effect<Uint8Array>
  }
>() {}
