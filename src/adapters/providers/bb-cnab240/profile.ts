/**
 * A bank's variations over the generic FEBRABAN 240 layout, as data (docs/providers.md "Boleto: banks
 * by CNAB 240"). Banco do Brasil: the agreement field carries the convênio, the product (0014), the
 * wallet and its variation; the nosso número is the 7-digit convênio and a 10-digit sequence. The
 * version numbers and codes below are the ones to check against the bank's own manual when the
 * agreement is signed (the homologation step every bank asks for).
 */
export interface BankProfile {
  readonly bankCode: string
  readonly bankName: string
  readonly fileLayoutVersion: string
  readonly batchLayoutVersion: string
  readonly density: string
  /** Positions 33–52 of the file header, 34–53 of the batch header. */
  readonly agreementField: (agreement: Agreement) => string
  readonly ourNumber: (agreement: Agreement, sequence: number) => string
  /** Segment P position 58. */
  readonly walletCode: string
  /** Segment P 107–108: 02 duplicata mercantil, 04 duplicata de serviço, 17 recibo… */
  readonly kind: string
}

export interface Agreement {
  /** Convênio de cobrança. */
  readonly agreement: string
  readonly wallet: string
  readonly walletVariation: string
  readonly agency: string
  readonly agencyDigit: string
  readonly account: string
  readonly accountDigit: string
  readonly companyDocument: string
  readonly companyName: string
}

export const BANCO_DO_BRASIL: BankProfile = {
  bankCode: "001",
  bankName: "BANCO DO BRASIL S.A.",
  fileLayoutVersion: "083",
  batchLayoutVersion: "042",
  density: "00000",
  agreementField: (a) =>
    `${a.agreement.padStart(9, "0")}0014${a.wallet.padStart(2, "0")}${a.walletVariation.padStart(3, "0")}  `,
  ourNumber: (a, sequence) => `${a.agreement.padStart(7, "0")}${String(sequence).padStart(10, "0")}`,
  walletCode: "7",
  kind: "02"
}
