import { Context, type Effect } from "effect"

/**
 * What a printed boleto shows (FEBRABAN layout). The beneficiário is who holds the bank's collection
 * agreement (the gateway); the sacador/avalista is the merchant the buyer is paying, the final
 * beneficiary (docs/boleto.md).
 */
export interface BoletoSlip {
  readonly beneficiaryName: string
  readonly beneficiaryDocument: string
  /** Sacador/avalista: the merchant's trade name. */
  readonly guarantorName?: string | undefined
  /** The merchant's CPF or CNPJ; null when it gave none. */
  readonly guarantorDocument?: string | null | undefined
  /** The bank's "nosso número". */
  readonly ourNumber?: string | undefined
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
  /** Lines for the bank's cashier and the payer ("Não receber após o vencimento."). */
  readonly instructions?: ReadonlyArray<string>
  /** A bolepix: its due-date PIX charge's BR Code, printed as a QR code beside the slip (docs/boleto.md). */
  readonly pixEmv?: string | undefined
}

/** The buyer's documents: the PIX QR image of a BR Code and the boleto PDF. */
export class DocumentRenderer extends Context.Tag("DocumentRenderer")<
  DocumentRenderer,
  {
    readonly qrPng: (emv: string) => Effect.Effect<Uint8Array>
    readonly boletoPdf: (slip: BoletoSlip) => Effect.Effect<Uint8Array>
  }
>() {}
